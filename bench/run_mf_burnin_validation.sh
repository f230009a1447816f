#!/usr/bin/env bash
# The default `carousel mf` burn-in at one tile, chosen on validation splits only: for each
# burn-in given, one process (one tile) runs the defaults on u1-u5.base of ml-100k with a
# seeded 10% held out (--test-fraction 0.1, seeds 1-3; the uK.test files are never read),
# 1000 iterations. Prints per burn-in the mean over the 15 runs of the posterior-mean
# validation RMSE at the end and of the first iteration at which it is at or below 0.95,
# then the paired difference of the final RMSE of each burn-in against the first one given.
#
#   bash bench/run_mf_burnin_validation.sh [--sampler NAME] BURN_IN...   e.g. 30 60
#
# Writes $CAROUSEL_BENCH_OUT/mf_burnin/runs.txt (default bench/results): one line per run,
# "burn_in split seed exit_code first_iteration_at_or_below_0.95 final_rmse".
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
data=${CAROUSEL_SHARED_DATA:-$root/../shared/data}/ml-100k
bin=${CAROUSEL_BIN:-$root/build/carousel}
out=${CAROUSEL_BENCH_OUT:-$root/bench/results}/mf_burnin
sampler=()
if [[ ${1:-} == --sampler ]]; then
  sampler=(--sampler "$2")
  shift 2
fi
[[ $# -gt 0 ]] || { echo "usage: $0 [--sampler NAME] BURN_IN..." >&2; exit 2; }
mkdir -p "$out"
runs=$out/runs.txt
: >"$runs"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for burn_in in "$@"; do
  for k in 1 2 3 4 5; do
    for seed in 1 2 3; do
      rc=0
      "$bin" mf ${sampler[@]+"${sampler[@]}"} --train "$data/u$k.base" --test-fraction 0.1 \
        --seed "$seed" --burn-in "$burn_in" --quiet --overwrite --out "$tmp/run" >/dev/null 2>&1 ||
        rc=$?
      awk -F, -v b="$burn_in" -v k="$k" -v s="$seed" -v rc="$rc" '
        /^#/ || $1 == "iter" { next }
        !reached && $4 != "nan" && $4 <= 0.95 { reached = $1 }
        { last = $4 }
        END { print b, k, s, rc, (reached ? reached : "never"), last }' "$tmp/run/trace.csv" >>"$runs"
    done
  done
done
awk -v first="$1" '
  { n[$1]++; failed[$1] += ($4 != 0); final[$1] += $6; if ($5 != "never") { reach[$1] += $5; reached[$1]++ }
    value[$1, $2, $3] = $6 }
  END {
    printf "%8s %5s %7s %22s %18s\n", "burn-in", "runs", "failed", "mean final RMSE", "mean it. to 0.95"
    for (b in n) printf "%8s %5d %7d %22.5f %18.1f\n", b, n[b], failed[b], final[b] / n[b],
      reached[b] ? reach[b] / reached[b] : -1
    for (b in n) {
      if (b == first) continue
      m = 0; ss = 0; c = 0; better = 0
      for (k = 1; k <= 5; k++) for (s = 1; s <= 3; s++) {
        d = value[b, k, s] - value[first, k, s]; m += d; ss += d * d; c++; better += (d < 0)
      }
      m /= c
      printf "burn-in %s against %s: mean difference %.5f (standard error %.5f), lower in %d of %d\n",
        b, first, m, sqrt((ss / c - m * m) / (c - 1)), better, c
    }
  }' "$runs"
