#!/usr/bin/env bash
# HAMCMC paper Fig. 5 on ml-100k (u1 split, K = 10, P = 2): test RMSE against iterations
# and seconds for SGLD, PSGLD, HAMCMC, SGHMC and SGNHT; each sampler's cost per iteration
# relative to SGLD; the iterations each needs before the running posterior-mean test RMSE
# (burn-in 50) falls to 0.94. Writes fig5.csv, fig5_summary.csv and fig5.png to
# bench/results/ (or $CAROUSEL_BENCH_OUT). Assumes a Release build in build/.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${CAROUSEL_BENCH_OUT:-$root/bench/results}"
data="${CAROUSEL_SHARED_DATA:-$root/../shared/data}/ml-100k"
samplers="${CAROUSEL_FIG5_SAMPLERS:-sgld psgld hamcmc sghmc sgnht}"
iterations="${CAROUSEL_FIG5_ITERATIONS:-1000}"
# HAMCMC's settings, chosen on a validation split carved from u1.base (--test-fraction 0.1),
# never on u1.test (README, "HAMCMC on matrix factorization"): H0 = rating-count metric,
# M = 3; the step is the CLI default for this H0.
hamcmc_args="${CAROUSEL_FIG5_HAMCMC_ARGS---initial-metric metric --memory 3}"
mkdir -p "$out/fig5"
for s in $samplers; do
  extra=()
  [[ $s == hamcmc ]] && read -r -a extra <<<"$hamcmc_args"
  # The RMSE trace (evaluation every 2 iterations) ...
  "$root/launch/mpirun.sh" 2 mf --train "$data/u1.base" --test "$data/u1.test" --rank 10 \
    --sampler "$s" "${extra[@]}" --iterations "$iterations" --burn-in 50 --eval-every 2 --quiet \
    --out "$out/fig5/$s" >"$out/fig5/$s.log"
  # ... and the cost per iteration, timed without evaluations.
  "$root/launch/mpirun.sh" 2 mf --train "$data/u1.base" --test "$data/u1.test" --rank 10 \
    --sampler "$s" "${extra[@]}" --iterations "$iterations" --burn-in 50 --eval-every "$iterations" --quiet \
    --out "$out/fig5/$s-timing" >"$out/fig5/$s-timing.log"
done
/usr/bin/python3 "$root/bench/plot_figures.py" fig5 "$out/fig5" "$out" $samplers
