#!/usr/bin/env bash
# Issue #39, "accumulate posterior moments at a default thinning that costs a small fraction
# of a pass": `carousel mf` on one rank, 25M Netflix-shaped ratings (bench/netflix_shaped.sh),
# K = 32, 7 passes at --tiles B with the burn-in ending after pass 3. The seconds per pass
# before the burn-in ends (passes 2-3: no draw kept) and after it (passes 5-7: a kept draw
# each pass) are read from the trace, for --moments-every 1 (every kept draw enters W_mean,
# W_var, ...) and at the default (ceil(6 x parameters / ratings) = 4 here), RUNS times in
# turn. The difference after - before is what keeping a draw costs a pass.
#
#   bench/run_moment_cost.sh [TILES] [RUNS]     (defaults: 64 3)
#
# Results: ${CAROUSEL_BENCH_OUT:-bench/results}/moment_cost/moments_B.csv (moments_every, run,
# before, after, after - before). One benchmark at a time: nothing else should run beside it.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tiles="${1:-64}" runs="${2:-3}"
bin="${CAROUSEL_BIN:-$root/build/carousel}"
out="${CAROUSEL_BENCH_OUT:-$root/bench/results}/moment_cost"
mkdir -p "$out/data"
# shellcheck source=netflix_shaped.sh
source "$root/bench/netflix_shaped.sh"
netflix_shaped_split "$bin" 25000000 "$out/data"
export CAROUSEL_RANKS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

csv="$out/moments_$tiles.csv"
echo "moments_every,run,before,after,cost" >"$csv"
for run in $(seq 1 "$runs"); do
  for every in 1 default; do
    option=()
    [ "$every" = default ] || option=(--moments-every "$every")
    "$bin" mf --train "$train" --test "$test" --rank 32 --tiles "$tiles" \
      --iterations $((7 * tiles)) --burn-in $((3 * tiles)) "${option[@]}" --keep-samples 0 \
      --quiet --overwrite --out "$out/run" >/dev/null
    awk -F, -v b="$tiles" -v every="$every" -v run="$run" '!/^#/ && $1 ~ /^[0-9]+$/ { t[$1] = $2 }
      END { before = (t[3 * b] - t[b]) / 2; after = (t[7 * b] - t[4 * b]) / 3
            printf "%s,%d,%.4f,%.4f,%.4f\n", every, run, before, after, after - before }' \
      "$out/run/trace.csv" >>"$csv"
  done
done
column -s, -t "$csv"
