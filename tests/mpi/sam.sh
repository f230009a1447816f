#!/usr/bin/env bash
# `carousel sam` end to end (issue #14, part 4):
#  - rank-count invariance: 1, 2 and 4 ranks (--tiles 4) give bitwise-identical outputs
#    (topic_vectors.npy, the draws, and trace.csv, topics.txt, words.txt, heldout.txt
#    without '#' lines and seconds), for gSGNHT (the default) and SGGMC;
#  - a run killed with SIGKILL mid-run and resumed on another rank count, and one stopped by
#    SIGTERM and resumed, end bitwise-identical to the uninterrupted run;
#  - bad input and options end every rank with one message and a non-zero exit: a malformed
#    corpus line (named by file:line), --diffusion fisher, --min-df above --max-df, a cut that
#    keeps no word.
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

T=$TEST_TMP
# 600 documents over 300 words from 5 topics on disjoint word ranges; a topic's words are in
# about a fifth of the documents, so --max-df 0.5 keeps them.
write_uci_corpus "$T/docword.txt" 600 300 5 60 5
BASE=(--corpus "$T/docword.txt" --topics 5 --max-df 0.5 --minibatch 40 --tiles 4 --seed 3
  --eval-draws 20 --quiet)

# same_sam_outputs A B WHAT : bitwise-identical results of two `carousel sam` runs.
same_sam_outputs() {
  local a=$1 b=$2 what=$3 f
  for f in topic_vectors.npy; do
    [[ -s $a/$f && -s $b/$f ]] || fail "$what: $f missing"
    cmp -s "$a/$f" "$b/$f" || fail "$what: $f differs ($a vs $b)"
  done
  for f in topics.txt words.txt heldout.txt draws/chain-1.csv; do
    [[ -s $a/$f && -s $b/$f ]] || fail "$what: $f missing"
    [[ -n $(strip_comments "$a/$f") ]] || fail "$what: $a/$f has only comments"
    cmp -s <(strip_comments "$a/$f") <(strip_comments "$b/$f") ||
      fail "$what: $f differs (ignoring '#' lines) ($a vs $b)"
  done
  [[ $(trace_body "$a/trace.csv" | wc -l) -gt 2 ]] || fail "$what: $a/trace.csv has no rows"
  cmp -s <(trace_body "$a/trace.csv") <(trace_body "$b/trace.csv") ||
    fail "$what: trace.csv differs (ignoring '#' lines and seconds) ($a vs $b)"
}

# ---------------------------------------------------------------------------------------
# Invariance.
for sampler in gsgnht sggmc; do
  for np in 1 2 4; do
    run_ok "$sampler-p$np" "$np" sam "${BASE[@]}" --sampler "$sampler" --iterations 120 \
      --eval-every 20 --out "$T/$sampler-p$np"
  done
  same_sam_outputs "$T/$sampler-p1" "$T/$sampler-p2" "$sampler: 1 vs 2 ranks"
  same_sam_outputs "$T/$sampler-p1" "$T/$sampler-p4" "$sampler: 1 vs 4 ranks"
  cmp -s "$T/$sampler-p1/model.json" "$T/$sampler-p4/model.json" || fail "$sampler: model.json differs"
  check_model_json "$T/$sampler-p1" sam
  ok "$sampler: 1, 2 and 4 ranks give bitwise-identical outputs and model.json"
done
files_differ "$T/gsgnht-p1/topic_vectors.npy" "$T/sggmc-p1/topic_vectors.npy" ||
  fail "gsgnht and sggmc gave the same topics"
# The run learned something: the averaged log-perplexity fell from the first evaluation.
first=$(trace_body "$T/gsgnht-p1/trace.csv" | sed -n 2p | cut -d, -f2)
last=$(trace_body "$T/gsgnht-p1/trace.csv" | tail -n 1 | cut -d, -f2)
awk -v a="$first" -v b="$last" 'BEGIN { exit !(b < a) }' ||
  fail "log-perplexity did not fall: $first -> $last"
ok "log-perplexity fell from $first to $last"
# 120 iterations, burn-in 60, a draw every 20 after it: 3 draws.
rows=$(strip_comments "$T/gsgnht-p1/draws/chain-1.csv" | wc -l)
[[ $rows == 4 ]] || fail "draws/chain-1.csv holds $((rows - 1)) draws, expected 3"
ok "the draws file holds the 3 kept draws"

# ---------------------------------------------------------------------------------------
# Resume after SIGKILL (on 4 ranks) and after SIGTERM (on 1 rank).
ITERATIONS=2000
RUN=("${BASE[@]}" --iterations "$ITERATIONS" --burn-in 50 --eval-every 200 --checkpoint-every 100)
resume_checks sam same_sam_outputs topic_vectors.npy 300 "${RUN[@]}"

# ---------------------------------------------------------------------------------------
# Bad input and options.
awk 'NR == 7 { $2 = "x" } { print }' "$T/docword.txt" >"$T/bad.txt"
expect_fail_mpi 3 "bad.txt:7" 2 sam --corpus "$T/bad.txt" --out "$T/bad"
ok "a malformed corpus line is named: $EXPECT_FAIL_MESSAGE"
expect_fail_mpi 2 "--diffusion" 2 sam "${BASE[@]}" --diffusion fisher --out "$T/bad"
ok "--diffusion fisher is refused: $EXPECT_FAIL_MESSAGE"
expect_fail_mpi 2 "--min-df" 2 sam "${BASE[@]}" --min-df 0.6 --out "$T/bad"
ok "--min-df above --max-df is refused: $EXPECT_FAIL_MESSAGE"
expect_fail_mpi 3 "no training documents" 2 sam --corpus "$T/docword.txt" --min-df 0.9 \
  --max-df 0.95 --out "$T/bad"
ok "a cut that keeps no word is refused: $EXPECT_FAIL_MESSAGE"
