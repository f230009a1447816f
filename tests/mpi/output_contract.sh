#!/usr/bin/env bash
# The output contract every model keeps (doc/outputs.md), checked the same way for all five:
# a run of --chains 2 on 2 ranks leaves OUT/chains.txt and OUT/chain-c/ for each chain, whose
# trace.csv starts with the column `iter`, with config.toml, a complete model.json and its
# draws in CmdStan's CSV layout (comment lines, a header, a row of numbers per kept draw);
# OUT/draws/chain-c.csv reaches each chain's draws; `carousel summary OUT` reads every run.
# A model whose input has ids writes their maps, one per row of its factor arrays, which
# are rows x K. The controls: the checks reject a trace whose first column is renamed, a
# model.json without a member, and an id map one row short.
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

T=$TEST_TMP
# Ratings whose ids are not 1..n (users 7, 14, ...; items 103, 106, ...), and a corpus.
"$CAROUSEL_BIN" gen mf --users 80 --items 50 --ratings 1500 --out "$T/gen.txt" >/dev/null
awk '{ print $1 * 7, $2 * 3 + 100, $3 }' "$T/gen.txt" >"$T/ratings.txt"
write_uci_corpus "$T/docword.txt" 200 300 5 40 5  # a word in about a fifth of the documents

SHORT=(--iterations 40 --burn-in 20 --seed 3 --chains 2 --quiet)
run_ok mf 2 mf --train "$T/ratings.txt" --test-fraction 0.1 --rank 4 "${SHORT[@]}" --out "$T/mf"
run_ok amf 2 amf --train "$T/ratings.txt" --rank 3 "${SHORT[@]}" --out "$T/amf"
run_ok lda 2 lda --corpus "$T/docword.txt" --topics 3 "${SHORT[@]}" --out "$T/lda"
run_ok sam 2 sam --corpus "$T/docword.txt" --topics 3 --max-df 0.5 "${SHORT[@]}" --out "$T/sam"
run_ok dpmix 2 dpmix --corpus "$T/docword.txt" "${SHORT[@]}" --out "$T/dpmix"

# check_run OUT MODEL : the contract of a finished run of 2 chains.
check_run() {
  local out=$1 model=$2 c
  grep -q "^chains 2$" "$out/chains.txt" || fail "$model: $out/chains.txt names no 2 chains"
  for c in 1 2; do
    local dir=$out/chain-$c
    [[ -s $dir/config.toml ]] || fail "$model: chain $c has no config.toml"
    [[ $(strip_comments "$dir/trace.csv" | head -1 | cut -d, -f1) == iter ]] ||
      fail "$model: chain $c's trace.csv does not start with the column iter"
    check_model_json "$dir" "$model"
    check_draws "$out/draws/chain-$c.csv" "$model chain $c"
  done
  "$CAROUSEL_BIN" summary "$out" >"$out.summary" 2>&1 || { show_log "$out.summary"; fail "$model: summary failed"; }
  grep -q "^carousel summary: 2 chains of [0-9]* draws" "$out.summary" ||
    { show_log "$out.summary"; fail "$model: summary does not read both chains"; }
}

# check_draws FILE WHAT : CmdStan's CSV layout: '#' comment lines, one header of names, and at
# least one row of as many numbers.
check_draws() {
  /usr/bin/python3 - "$1" <<'PY' || fail "$2: $1 is not a draws file in CmdStan's layout"
import sys
lines = [l.rstrip("\n") for l in open(sys.argv[1]) if not l.startswith("#") and l.strip()]
header = lines[0].split(",")
assert header and all(h and not h[0].isdigit() for h in header), header
assert len(lines) > 1, "no draws"
for l in lines[1:]:
    values = l.split(",")
    assert len(values) == len(header), l
    [float(v) for v in values]
PY
}

# check_ids DIR MAP ARRAY INPUT_COLUMN : MAP holds the input's ids of ARRAY's rows, one per
# row, each an id of that column of ratings.txt.
check_ids() {
  /usr/bin/python3 - "$1" "$2" "$3" "$4" "$T/ratings.txt" <<'PY' || fail "$1: $2 is not the id map of $3's rows"
import sys, numpy as np
d, id_map, array, column, ratings = sys.argv[1:6]
ids = np.load(f"{d}/{id_map}")
rows = np.load(f"{d}/{array}")
assert rows.ndim == 2 and rows.shape[0] == len(ids), (rows.shape, len(ids))
given = {int(l.split()[int(column)]) for l in open(ratings)}
assert set(int(i) for i in ids) <= given and len(set(ids.tolist())) == len(ids)
PY
}

for model in mf amf lda sam dpmix; do check_run "$T/$model" "$model"; done
for c in 1 2; do
  check_ids "$T/mf/chain-$c" user_ids.npy W_mean.npy 0
  check_ids "$T/mf/chain-$c" item_ids.npy H_mean.npy 1
  check_ids "$T/amf/chain-$c" row_ids.npy W_mean.npy 0
  check_ids "$T/amf/chain-$c" col_ids.npy H_mean.npy 1
done
ok "mf, amf, lda, sam and dpmix keep the output contract: chains, trace.csv from iter, config.toml, model.json, CmdStan draws, summary, id maps of rows x K arrays"

# The chains of a run share its data: one held-out set (and one tile grid, --split-seed).
held_out() {  # held_out MODEL CHAIN: the chain's held-out observations, one per line
  local d=$T/$1/chain-$2
  case $1 in
    mf) grep -v '^#' "$d/predictions.csv" | cut -d, -f1,2 ;;
    lda | sam) grep -v '^#' "$d/heldout.txt" ;;
    dpmix) grep -v '^#' "$d/clusters.csv" | awk -F, '$4 == 1 { print $1 }' ;;
  esac
}
for model in mf lda sam dpmix; do
  [[ $(held_out "$model" 1 | wc -l) -gt 1 ]] || fail "$model: chain 1 holds out nothing"
  cmp -s <(held_out "$model" 1) <(held_out "$model" 2) ||
    fail "$model: the chains hold out different observations"
done
# The control: a run with chain 2's seed alone holds out others.
seed2=$(awk '$1 == "chain" && $2 == 2 { print $4 }' "$T/lda/chains.txt")
run_ok lda-seed2 2 lda --corpus "$T/docword.txt" --topics 3 --iterations 40 --burn-in 20 --quiet \
  --seed "$seed2" --out "$T/lda-seed2"
! cmp -s <(held_out lda 2) <(grep -v '^#' "$T/lda-seed2/heldout.txt") ||
  fail "the held-out set does not depend on the seed: the check above shows nothing"
ok "the chains of a run hold out the same observations (mf, lda, sam, dpmix); a run of chain 2's seed alone holds out others"

# The controls: each check rejects an output that breaks it (run in a subshell, where fail
# exits the subshell only).
cp -r "$T/lda" "$T/broken"
sed -i 's/^iter,/iteration,/' "$T/broken/chain-2/trace.csv"
! (check_run "$T/broken" lda) >/dev/null 2>&1 || fail "the check took a trace.csv starting with 'iteration'"
rm -rf "$T/broken" && cp -r "$T/dpmix" "$T/broken"
sed -i 's/"thin"/"thinning"/' "$T/broken/chain-1/model.json"
! (check_run "$T/broken" dpmix) >/dev/null 2>&1 || fail "the check took a model.json without thin"
rm -rf "$T/broken" && cp -r "$T/amf/chain-1" "$T/broken"
/usr/bin/python3 -c "import numpy as np, sys; a = np.load(sys.argv[1]); np.save(sys.argv[1], a[:-1])" "$T/broken/col_ids.npy"
! (check_ids "$T/broken" col_ids.npy H_mean.npy 1) >/dev/null 2>&1 || fail "the check took an id map one row short"
ok "the controls: a trace from 'iteration', a model.json without thin and a short id map are rejected"
