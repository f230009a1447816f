#!/usr/bin/env bash
# Issue #42, "Accuracy at the defaults is no worse": `carousel mf` at its defaults (one chain,
# every option at its default but --seed) on the five ml-100k splits u1-u5, against a
# baseline binary built from an earlier commit, run one after the other in the same session.
#
#   BASELINE_BIN=/path/to/old/carousel bench/run_default_accuracy.sh [SEEDS...]
#
# SEEDS default to 1 2 3. Prints, per split and seed, the test RMSE of the posterior mean
# (the closing line's) of this build and of the baseline, and per split their means over the
# seeds; writes the table to ${CAROUSEL_BENCH_OUT:-bench/results}/default_accuracy.csv.
# CAROUSEL_BIN (default build/carousel), CAROUSEL_SHARED_DATA (default ../shared/data).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${CAROUSEL_BIN:-$root/build/carousel}"
baseline="${BASELINE_BIN:?set BASELINE_BIN to the carousel binary to compare with}"
shared="${CAROUSEL_SHARED_DATA:-$root/../shared/data}"
out="${CAROUSEL_BENCH_OUT:-$root/bench/results}"
seeds=("$@")
[ ${#seeds[@]} -gt 0 ] || seeds=(1 2 3)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"

# The posterior mean's test RMSE from the closing line ("... %.4f (posterior mean of ...").
rmse_of() {
  "$1" mf --train "$shared/ml-100k/$2.base" --test "$shared/ml-100k/$2.test" --seed "$3" \
    --out "$work/run" --overwrite --quiet |
    sed -n 's/.*(sample), \([0-9.]*\) (posterior mean.*/\1/p'
}

csv="$out/default_accuracy.csv"
echo "split,seed,rmse,baseline_rmse" >"$csv"
for split in u1 u2 u3 u4 u5; do
  for seed in "${seeds[@]}"; do
    echo "$split,$seed,$(rmse_of "$bin" "$split" "$seed"),$(rmse_of "$baseline" "$split" "$seed")" |
      tee -a "$csv"
  done
done
echo
echo "| split | this build, mean test RMSE | baseline | difference |"
echo "|---|---|---|---|"
awk -F, 'NR > 1 { n[$1]++; a[$1] += $3; b[$1] += $4 }
  END { for (s in n) printf "| %s | %.4f | %.4f | %+.4f |\n", s, a[s] / n[s], b[s] / n[s], (a[s] - b[s]) / n[s] }' \
  "$csv" | sort
