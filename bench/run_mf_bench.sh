#!/usr/bin/env bash
# Matrix-factorization benchmarks of issue #2. Writes CSV files to bench/results/ (or
# $CAROUSEL_BENCH_OUT) and prints them. Assumes a Release build in build/ (launch/build.sh).
#   throughput.csv   ratings/s per process at K = 10, 32, 100 (kernel and whole iteration)
#   scaling.csv      communication share, peak memory and ratings held per rank, P = 1, 2, 4
#   ml100k.csv       test RMSE of the posterior mean on ml-100k u1..u5 (K = 10), PSGLD and
#                    the exact Gibbs sampler for the same model, with wall times
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${CAROUSEL_BENCH_OUT:-$root/bench/results}"
data="${CAROUSEL_SHARED_DATA:-$root/../shared/data}"
bin="$root/build/carousel"
mkdir -p "$out"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

echo "== throughput (one process)"
"$root/build/bench/mf_throughput" --seconds 3 | tee "$out/throughput.csv"

echo "== communication share and memory (MovieLens-1M-shaped data, psgld, K = 10, 300 iterations)"
"$bin" gen mf --out "$tmp/ml1m.txt" >/dev/null
echo "ranks,tiles,rank_id,comm_share_percent,peak_rss_mib,ratings_held,wall_s" >"$out/scaling.csv"
for np in 1 2 4; do
  "$root/launch/mpirun.sh" "$np" mf --train "$tmp/ml1m.txt" --test-fraction 0.1 --tiles "$np" \
    --iterations 300 --burn-in 100 --eval-every 50 --quiet --out "$tmp/scale$np" >"$tmp/scale$np.log"
  wall=$(grep -o 'in [0-9.]* s' "$tmp/scale$np.log" | head -1 | awk '{print $2}')
  grep '^  rank' "$tmp/scale$np.log" | sed -E 's/  rank ([0-9]+): ([0-9.]+)% .*memory ([0-9.]+) MiB, ([0-9]+) training.*/\1,\2,\3,\4/' |
    awk -v np="$np" -v wall="$wall" '{print np "," np "," $0 "," wall}' >>"$out/scaling.csv"
done
cat "$out/scaling.csv"

echo "== ml-100k u1..u5, K = 10: PSGLD (2 ranks, defaults) and exact Gibbs (120 sweeps)"
echo "split,method,rmse_posterior_mean,wall_s" >"$out/ml100k.csv"
for k in 1 2 3 4 5; do
  for method in psgld gibbs; do
    if [ "$method" = gibbs ]; then
      cmd=("$bin" mf --sampler gibbs --iterations 120 --burn-in 20)
    else
      cmd=("$root/launch/mpirun.sh" 2 mf)
    fi
    start=$(date +%s.%N)
    "${cmd[@]}" --train "$data/ml-100k/u$k.base" --test "$data/ml-100k/u$k.test" --rank 10 \
      --quiet --out "$tmp/u$k-$method" >/dev/null
    end=$(date +%s.%N)
    rmse=$(grep -v '^#' "$tmp/u$k-$method/trace.csv" | tail -1 | cut -d, -f4)
    echo "u$k,$method,$rmse,$(awk -v a="$start" -v b="$end" "BEGIN { printf \"%.2f\", b - a }")" | tee -a "$out/ml100k.csv"
  done
done
