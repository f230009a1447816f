#!/usr/bin/env bash
# Dirichlet-process mixture benchmark (issue #15; SCIR paper Sec. 4.2, Fig. 3b) on KOS, the
# documents as observations and the words as categories: SCIR against SGRLD (default fixed
# steps, 1000 observations per iteration as the paper), five seeds each, on P = 1 and
# P = 2 ranks (--tiles 2 on both, so the chains of one seed are the same on either; P
# changes only the seconds). Writes each run's output directory and log, dpmix.png
# (held-out log predictive per observation against iterations and seconds, like Fig. 3b) and
# summary.txt (final log predictive per sampler and P, mean and sd over seeds; occupied
# components; alpha) to $CAROUSEL_BENCH_OUT/dpmix (default bench/results/dpmix).
# Usage: bash bench/run_dpmix_bench.sh [iterations]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
data=${CAROUSEL_SHARED_DATA:-$root/../shared/data}/kos
out=${CAROUSEL_BENCH_OUT:-$root/bench/results}/dpmix
iterations=${1:-1000}
py=python3
[[ -x /usr/bin/python3 ]] && py=/usr/bin/python3
mkdir -p "$out"
export CAROUSEL_BIN=${CAROUSEL_BIN:-$root/build/carousel}
[[ -x $CAROUSEL_BIN ]] || "$root/launch/build.sh"

common=(dpmix --corpus "$data/docword.kos.txt" --vocab "$data/vocab.kos.txt" --tiles 2
  --minibatch 1000 --test-fraction 0.1 --iterations "$iterations" --burn-in
  $((iterations / 2)) --eval-every 20 --quiet --overwrite)
for ranks in 1 2; do
  for sampler in scir sgrld; do
    for seed in 1 2 3 4 5; do
      name=$sampler-p$ranks-s$seed
      echo "carousel $name ..." >&2
      "$root/launch/mpirun.sh" "$ranks" "${common[@]}" --sampler "$sampler" --seed "$seed" \
        --out "$out/$name" >"$out/$name.log"
      tail -n 1 "$out/$name.log" >&2
    done
  done
done
"$py" "$root/bench/plot_dpmix.py" "$out" | tee "$out/summary.txt"
