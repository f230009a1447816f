#!/usr/bin/env bash
# Issue #11: reading input by rank. Load time, parse rate and peak memory per rank of
# `carousel mf` at Netflix's shape (480,189 users, 17,770 items), K = 32, for each rating
# count and rank count, held against the memory bound
#   peak RSS <= 1.5 x (ratings in the rank's tiles + parameter blocks and sampler state) + 64 MiB
# with both terms as the run reports them (its "holds ... MiB of data and ... MiB of
# parameters" line). One iteration is run, so the figures are of loading plus a step.
#
#   bench/run_load_bench.sh [RATINGS...]        (default: 25000000 100480507)
#
# RANKS (default "1 2 4") are the rank counts; TEST_FRACTION (default 0) holds out that share
# of the ratings as a test set (which each rank keeps only for its own row blocks). Data is generated once with `carousel gen mf`
# (seed 5) into $CAROUSEL_BENCH_DATA (default bench/results/data). With LIBMF_TRAIN set
# (the mf-train binary of LIBMF, built outside this tree), LIBMF's peak memory and wall
# time for one iteration on the same file (K = 32, 1 thread) are measured beside it (its
# load_s column is that whole wall time: LIBMF does not report its load separately).
# Writes bench/results/load/load.csv (or under $CAROUSEL_BENCH_OUT) and prints it.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${CAROUSEL_BENCH_OUT:-$root/bench/results}/load"
data="${CAROUSEL_BENCH_DATA:-$root/bench/results/data}"
ranks="${RANKS:-1 2 4}"
counts=("$@")
[ ${#counts[@]} -gt 0 ] || counts=(25000000 100480507)
bin="${CAROUSEL_BIN:-$root/build/carousel}"
mkdir -p "$out" "$data"

csv="$out/load.csv"
echo "ratings,file_mb,tool,ranks,rank_id,ratings_held,load_s,parse_mb_per_s,peak_when_read_mib,peak_mib,data_mib,state_mib,bound_mib,within_bound,data_bytes_per_rating,peak_bytes_per_rating" >"$csv"

for n in "${counts[@]}"; do
  file="$data/netflix_shape_$n.txt"
  if [ ! -s "$file" ]; then
    echo "== generating $n ratings"
    "$bin" gen mf --users 480189 --items 17770 --ratings "$n" --rank 10 --seed 5 --out "$file.tmp" >/dev/null
    mv "$file.tmp" "$file"
  fi
  mb=$(awk -v b="$(stat -c %s "$file")" 'BEGIN { printf "%.1f", b / 1e6 }')
  for np in $ranks; do
    echo "== $n ratings, $np rank(s)"
    log="$out/carousel_${n}_p$np.log"
    "$root/launch/mpirun.sh" "$np" mf --train "$file" --test-fraction "${TEST_FRACTION:-0}" \
      --rank 32 --iterations 1 --eval-every 1 --burn-in 0 --quiet --overwrite \
      --out "$out/run_${n}_p$np" >"$log"
    awk -v prefix="$n,$mb,carousel" -v np="$np" -f "$root/bench/rank_stats.awk" "$log" >>"$csv"
  done
  if [ -n "${LIBMF_TRAIN:-}" ]; then
    echo "== LIBMF, $n ratings, 1 thread"
    /usr/bin/time -f "%e %M" -o "$out/libmf_$n.time" "$LIBMF_TRAIN" -k 32 -t 1 -s 1 -l2 0.05 \
      "$file" "$out/libmf_$n.model" >"$out/libmf_$n.log"
    read -r wall kib <"$out/libmf_$n.time"
    awk -v n="$n" -v mb="$mb" -v w="$wall" -v k="$kib" 'BEGIN {
      printf "%s,%s,libmf,1,0,%s,%s,,,%.1f,,,,,,%.1f\n", n, mb, n, w, k / 1024, k * 1024 / n }' >>"$csv"
    rm -f "$out/libmf_$n.model"
  fi
done
column -s, -t <"$csv"
