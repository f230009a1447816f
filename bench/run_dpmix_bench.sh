#!/usr/bin/env bash
# Dirichlet-process mixture benchmark (issue #15; SCIR paper Sec. 4.2, Fig. 3b) on KOS, the
# documents as observations and the words as categories: SCIR against SGRLD (fixed steps
# from a small grid, 1000 observations per iteration as the paper), five chain seeds each on
# one held-out split, on P = 1 and P = 2 ranks (--tiles 2 on both, so the chains of one seed are the same on either; P
# changes only the seconds). Writes each run's output directory and log, dpmix.png
# (held-out log predictive per observation against iterations and seconds, like Fig. 3b) and
# summary.txt (the chosen steps; final log predictive per sampler and P, mean and sd over
# seeds; occupied components; alpha) to $CAROUSEL_BENCH_OUT/dpmix (default bench/results/dpmix).
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
  $((iterations / 2)) --eval-every 10 --quiet --overwrite)

# Steps: the paper tunes them by a grid search on the predictive; here a 3-point grid per
# sampler on another held-out split (--split-seed 2) and chain seed (101) than the reported
# ones, the best final log predictive (averaged over the kept samples) wins.
best_step() {  # sampler steps...
  local sampler=$1 best="" best_lp="" step lp
  shift
  for step in "$@"; do
    "$root/launch/mpirun.sh" 1 "${common[@]}" --sampler "$sampler" --step "$step" --seed 101 \
      --split-seed 2 --out "$out/tune-$sampler-$step" >"$out/tune-$sampler-$step.log"
    lp=$(grep -v '^#' "$out/tune-$sampler-$step/trace.csv" | tail -n 1 | cut -d, -f3)
    echo "tuning $sampler --step $step: final log predictive $lp" >&2
    if [[ -z $best_lp ]] || awk -v a="$lp" -v b="$best_lp" 'BEGIN { exit !(a > b) }'; then
      best=$step best_lp=$lp
    fi
  done
  echo "$best"
}
scir_step=$(best_step scir 0.1 0.5 2)
sgrld_step=$(best_step sgrld 0.01 0.05 0.2)
echo "steps: scir $scir_step, sgrld $sgrld_step" | tee "$out/steps.txt" >&2

# The reported runs: one held-out split (--split-seed 1) for every chain seed, so that the
# seeds differ in the chain only.
for ranks in 1 2; do
  for sampler in scir sgrld; do
    step=$scir_step
    [[ $sampler == sgrld ]] && step=$sgrld_step
    for seed in 1 2 3 4 5; do
      name=$sampler-p$ranks-s$seed
      echo "carousel $name ..." >&2
      "$root/launch/mpirun.sh" "$ranks" "${common[@]}" --sampler "$sampler" --step "$step" \
        --seed "$seed" --split-seed 1 --out "$out/$name" >"$out/$name.log"
      tail -n 1 "$out/$name.log" >&2
    done
  done
done
{ cat "$out/steps.txt"; "$py" "$root/bench/plot_dpmix.py" "$out"; } | tee "$out/summary.txt"
