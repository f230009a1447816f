#!/usr/bin/env bash
# Issue 3 figures: HAMCMC paper Fig. 2 and recipe paper Fig. 2 (CSV + PNG) in bench/results/
# (or $CAROUSEL_BENCH_OUT). Pass --quick for a short run. Needs python3-matplotlib.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${CAROUSEL_BENCH_OUT:-$root/bench/results}"
mkdir -p "$out"
"$root/build/bench/sampler_figures" "$out" "$@"
/usr/bin/python3 "$root/bench/plot_figures.py" hamcmc-fig2 "$out/hamcmc_fig2.csv" "$out"
/usr/bin/python3 "$root/bench/plot_figures.py" recipe-fig2 "$out/recipe_density.csv" \
  "$out/recipe_paths.csv" "$out"
echo "figures: $out/hamcmc_fig2.png $out/recipe_fig2.png"
