#!/usr/bin/env bash
# Issue #39, "Memory": the peak memory of each rank as an MPI process (`launch/mpirun.sh P`,
# --tiles P; P from RANKS, default 16) against the issue's bound, 1.5 x (the rank's data +
# its parameters and sampler state) + 64 MiB, for `carousel mf` (25M generated ratings, K =
# 32, every 100th line held out) and `carousel lda` (the 10M-token generated corpus, K = 50,
# one worker thread a rank). A process's memory does not depend on the cores it gets, so the
# ranks may oversubscribe a small machine; a short run (2 passes) reaches the peak, which
# loading sets. The figures are the ranks' own report (`peak memory`, `holds ... of data and
# ... of parameters and sampler state`, `every rank also holds ... whole`).
#
#   bash bench/run_rank_memory.sh
#
# MF_RATINGS overrides 25000000, LDA_DOCUMENTS 75000. Results go to
# ${CAROUSEL_BENCH_OUT:-bench/results}/rank_memory/: memory.csv (one line per rank and model)
# and each run's log.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${CAROUSEL_BIN:-$root/build/carousel}"
p="${RANKS:-16}"
ratings="${MF_RATINGS:-25000000}"
out="${CAROUSEL_BENCH_OUT:-$root/bench/results}/rank_memory"
data="$out/data"
mkdir -p "$data"
# shellcheck source=netflix_shaped.sh
source "$root/bench/netflix_shaped.sh"
netflix_shaped_split "$bin" "$ratings" "$data"
corpus="$data/lda_${LDA_DOCUMENTS:-75000}.txt"
[ -s "$corpus" ] || "$bin" gen lda --documents "${LDA_DOCUMENTS:-75000}" --out "$corpus" >/dev/null

export CAROUSEL_BIN="$bin"
bash "$root/launch/mpirun.sh" "$p" mf --train "$train" --test "$test" --rank 32 --tiles "$p" \
  --iterations $((2 * p)) --keep-samples 0 --overwrite --out "$out/mf" >"$out/mf.log" 2>&1
bash "$root/launch/mpirun.sh" "$p" lda --corpus "$corpus" --topics 50 --tiles "$p" --threads 1 \
  --iterations $((2 * p)) --overwrite --out "$out/lda" >"$out/lda.log" 2>&1

# One line per rank: rank, peak MiB (the run's), data MiB, state MiB, whole MiB (0: none).
ranks_of() {
  awk '/^  rank [0-9]+: / { r = $2 + 0 }
    /% of the sampling time/ { for (i = 1; i < NF; i++) if ($i == "memory") peak[r] = $(i + 1) }
    /input read/ { for (i = 1; i < NF; i++) {
        if ($i == "holds" && $(i + 3) == "of" && $(i + 4) == "data") data[r] = $(i + 1)
        if ($i == "and" && $(i + 3) == "of" && $(i + 4) == "parameters") state[r] = $(i + 1)
        if ($i == "holds" && $(i + 3) == "whole") whole[r] = $(i + 1) } }
    END { for (r in data) print r, peak[r], data[r], state[r], whole[r] + 0 }' "$1" | sort -n
}

echo "model,rank,peak_mib,data_mib,state_mib,whole_mib,bound_mib,within" >"$out/memory.csv"
for model in mf lda; do
  ranks_of "$out/$model.log" | awk -v m="$model" '{
    bound = 1.5 * ($3 + $4) + 64
    printf "%s,%s,%s,%s,%s,%s,%.1f,%s\n", m, $1, $2, $3, $4, $5, bound, ($2 <= bound ? "yes" : "NO") }' \
    >>"$out/memory.csv"
done
awk -F, 'NR > 1 { n[$1]++; if ($3 > peak[$1]) peak[$1] = $3
    if (low[$1] == "" || $7 < low[$1]) low[$1] = $7; if ($8 != "yes") bad[$1]++ }
  END { for (m in n) printf "%s: %d ranks, largest peak %.1f MiB, smallest bound %.1f MiB, %d ranks over their bound\n",
    m, n[m], peak[m], low[m], bad[m] + 0 }' "$out/memory.csv" | sort | tee "$out/summary.txt"
