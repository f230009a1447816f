#!/usr/bin/env bash
# Issue #9, item 4: ratings updated per second per core at K = 32 on data far larger than
# the caches (25M generated ratings, the issue's generator call), Carousel against LIBMF's
# SGD, measured side by side and alternately, REPEATS times each, medians reported.
#
#   LIBMF_TRAIN=/path/to/libmf/mf-train bench/run_core_rate.sh [TRAIN_FILE]
#
# - LIBMF: `mf-train -k 32 -s 1` (SSE/AVX SGD) on 1 thread, and on 2 threads; the time of
#   one iteration is the wall time of a (1 + ITERATIONS)-iteration run less that of a
#   1-iteration run, over ITERATIONS.
# - Carousel: `carousel mf --rank 32` at its defaults (PSGLD) with evaluation every
#   ITERATIONS / 2 iterations, on P = 1 and 2 ranks with --tiles P; the time of an
#   iteration is the sampling clock between its two evaluations (trace.csv), over their
#   distance, so loading and the first iteration's set-up are left out. An iteration of
#   Carousel visits one stratum, 1/P of the ratings (a gradient term each), and updates
#   every factor of its blocks with Gaussian noise; one of LIBMF is an SGD update per rating.
# - CAROUSEL_BASELINE=/path/to/another/carousel adds that binary's rows (a before/after).
# TRAIN_FILE defaults to bench/results/scale_25000000/data/train.txt (run_scale_bench.sh
# makes it); a missing file is generated with `carousel gen mf` (all 25M ratings).
# Writes bench/results/core_rate/core_rate.csv (or under $CAROUSEL_BENCH_OUT).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${CAROUSEL_BENCH_OUT:-$root/bench/results}/core_rate"
bin="${CAROUSEL_BIN:-$root/build/carousel}"
libmf="${LIBMF_TRAIN:?set LIBMF_TRAIN to the mf-train binary of LIBMF}"
repeats="${REPEATS:-3}"
iterations="${ITERATIONS:-10}"
train="${1:-$root/bench/results/scale_25000000/data/train.txt}"
mkdir -p "$out"
if [ ! -s "$train" ]; then
  train="$out/train.txt"
  [ -s "$train" ] || "$bin" gen mf --users 480189 --items 17770 --ratings 25000000 --rank 10 \
    --seed 5 --out "$train"
fi
ratings=$(wc -l <"$train")

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.4f", b - a }'; }

libmf_seconds() { # THREADS ITERATIONS: wall seconds of a LIBMF run
  local start
  start=$(now)
  "$libmf" -k 32 -s "$1" -t "$2" "$train" "$out/libmf.model" >/dev/null
  since "$start"
}

carousel_seconds() { # BIN RANKS: seconds per iteration between the two evaluations
  local b=$1 np=$2
  rm -rf "$out/carousel" # (no --overwrite: a baseline binary may predate it)
  # The burn-in spans the run, so that only the iterations n and 2n are evaluated (every
  # iteration after a burn-in is: the posterior mean's running sums).
  CAROUSEL_BIN=$b "$root/launch/mpirun.sh" "$np" mf --train "$train" --rank 32 --tiles "$np" \
    --iterations "$iterations" --burn-in $((iterations - 1)) --eval-every $((iterations / 2)) \
    --quiet --out "$out/carousel" >/dev/null
  grep -v '^#' "$out/carousel/trace.csv" | awk -F, -v n=$((iterations / 2)) \
    '$1 == n { a = $2 } $1 == 2 * n { printf "%.4f", ($2 - a) / n }'
}

echo "tool,cores,repeat,seconds_per_iteration,ratings_per_second_per_core" >"$out/core_rate.csv"
row() { # TOOL CORES REPEAT SECONDS [STRATA]: an iteration visits 1/STRATA of the ratings
  awk -v t="$1" -v c="$2" -v r="$3" -v s="$4" -v n="$ratings" -v d="${5:-1}" \
    'BEGIN { printf "%s,%d,%d,%.4f,%.0f\n", t, c, r, s, n / d / s / c }' | tee -a "$out/core_rate.csv"
}
for r in $(seq "$repeats"); do
  for threads in 1 2; do
    one=$(libmf_seconds "$threads" 1)
    more=$(libmf_seconds "$threads" $((1 + iterations)))
    row "libmf" "$threads" "$r" "$(awk -v a="$one" -v b="$more" -v n="$iterations" 'BEGIN { print (b - a) / n }')"
  done
  for np in 1 2; do
    row "carousel" "$np" "$r" "$(carousel_seconds "$bin" "$np")" "$np"
    if [ -n "${CAROUSEL_BASELINE:-}" ]; then
      row "carousel-baseline" "$np" "$r" "$(carousel_seconds "$CAROUSEL_BASELINE" "$np")" "$np"
    fi
  done
done
rm -f "$out/libmf.model"

echo "== medians (ratings per second per core)"
/usr/bin/python3 - "$out/core_rate.csv" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
keys = sorted({(r["tool"], int(r["cores"])) for r in rows})
med = {k: statistics.median(float(r["ratings_per_second_per_core"]) for r in rows
                            if (r["tool"], int(r["cores"])) == k) for k in keys}
for (tool, cores), v in med.items():
    ratio = med.get(("libmf", cores), float("nan")) / v
    print(f"{tool:18s} {cores} core(s): {v / 1e6:6.2f}M/s per core; LIBMF / this = {ratio:.2f}")
PY
