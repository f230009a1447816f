#!/usr/bin/env bash
# SCIR paper Fig. 2 (Baker et al. 2018, Sec. 2.2): KS distance against minibatch
# proportion for SCIR and SGRLD on the sparse and dense Dirichlet posteriors. Builds
# scir_fig2 if needed, writes scir_fig2.csv, scir_fig2_tuning.csv, scir_fig2.txt (the
# summary table) and scir_fig2.png to bench/results/ (or $CAROUSEL_BENCH_OUT). Pass
# --quick for a short run. Needs python3-matplotlib.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${CAROUSEL_BENCH_OUT:-$root/bench/results}"
mkdir -p "$out"
if [[ ! -f "$root/build/CMakeCache.txt" ]]; then
  cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build "$root/build" -j2 --target scir_fig2 >/dev/null
"$root/build/bench/scir_fig2" "$out" "$@" | tee "$out/scir_fig2.txt"
/usr/bin/python3 "$root/bench/plot_figures.py" scir-fig2 "$out/scir_fig2.csv" "$out"
echo "figure: $out/scir_fig2.png"
