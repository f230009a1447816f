#!/usr/bin/env bash
# Issue #11: reading a corpus by rank. Load time, parse rate and peak memory per rank of
# `carousel lda` on a corpus drawn by `carousel gen lda` at NYTimes' shape (300,000
# documents, 102,660 words, 334 tokens per document on average: about 100M tokens), K = 50,
# held against the bound
#   peak RSS <= 1.5 x (tokens and corpus share held + parameter blocks and state) + 64 MiB
# with both terms as the run reports them. Five iterations are run (one minibatch of
# documents each), so the figures are of loading plus a few steps.
#
#   bench/run_lda_load_bench.sh [DOCUMENTS] [MEAN_LENGTH]   (default: 300000 334)
#
# RANKS (default "1 2 4"). The corpus is generated once into $CAROUSEL_BENCH_DATA (default
# bench/results/data). Writes bench/results/lda_load/lda_load.csv (or under
# $CAROUSEL_BENCH_OUT) and prints it.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${CAROUSEL_BENCH_OUT:-$root/bench/results}/lda_load"
data="${CAROUSEL_BENCH_DATA:-$root/bench/results/data}"
ranks="${RANKS:-1 2 4}"
documents="${1:-300000}"
length="${2:-334}"
bin="${CAROUSEL_BIN:-$root/build/carousel}"
mkdir -p "$out" "$data"

file="$data/lda_${documents}x${length}.txt"
if [ ! -s "$file" ]; then
  echo "== generating $documents documents of $length tokens on average"
  "$bin" gen lda --documents "$documents" --vocabulary 102660 --topics 50 --mean-length "$length" \
    --seed 3 --out "$file.tmp" >/dev/null
  mv "$file.tmp" "$file"
fi
entries=$(sed -n 3p "$file")
tokens=$(awk 'NR > 3 { n += $3 } END { printf "%d", n }' "$file")
mb=$(awk -v b="$(stat -c %s "$file")" 'BEGIN { printf "%.1f", b / 1e6 }')
echo "corpus: $file, $mb MB, $entries entries, $tokens tokens"

csv="$out/lda_load.csv"
echo "tokens,entries,file_mb,ranks,rank_id,tokens_held,load_s,parse_mb_per_s,peak_when_read_mib,peak_mib,data_mib,state_mib,bound_mib,within_bound,data_bytes_per_token,peak_bytes_per_token" >"$csv"
for np in $ranks; do
  echo "== $np rank(s)"
  log="$out/lda_p$np.log"
  "$root/launch/mpirun.sh" "$np" lda --corpus "$file" --topics 50 --iterations 5 --burn-in 0 \
    --eval-every 5 --quiet --overwrite --out "$out/run_p$np" >"$log"
  awk -v prefix="$tokens,$entries,$mb" -v np="$np" -f "$root/bench/rank_stats.awk" "$log" >>"$csv"
done
column -s, -t <"$csv"
