#!/usr/bin/env bash
# `carousel lda infer` as users run it: on one process without mpirun (or under mpirun -np 1,
# same bytes), refused on more; new documents matched by spelling with --vocab (a corpus in
# another word order with its own vocabulary gives the same bytes as the training ids), words
# outside the run's vocabulary ignored and counted; a bad --run directory, a corpus without
# a known word, or --vocab for a run trained without one end with exit 3 and one message.
# The statistics (agreement with doc_topic.npy, rows summing to 1) are in
# tests/cli/lda_infer_test.cpp.
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

T=$TEST_TMP
D=300 V=200 K=10
write_uci_corpus "$T/docword.txt" $D $V $K 60 3
awk -v V=$V 'BEGIN { for (w = 1; w <= V; w++) print "word" w }' >"$T/vocab.txt"
COMMON=(--topics "$K" --minibatch 100 --iterations 60 --burn-in 20 --eval-every 20
  --eval-sweeps 4 --seed 7 --quiet)

# Trained without mpirun (one process), with and without a vocabulary.
"$CAROUSEL_BIN" lda --corpus "$T/docword.txt" --vocab "$T/vocab.txt" "${COMMON[@]}" \
  --out "$T/run" >"$T/run.log" 2>&1 || { show_log "$T/run.log"; fail "carousel lda without mpirun failed"; }
cmp -s "$T/vocab.txt" "$T/run/vocab.txt" || fail "run/vocab.txt is not the --vocab file"
run_ok plain 1 lda --corpus "$T/docword.txt" "${COMMON[@]}" --out "$T/plain"
[[ ! -e $T/plain/vocab.txt ]] || fail "a run without --vocab wrote vocab.txt"
# A D x K float64 .npy: a 128-byte header (version 1.0, padded to 64 bytes), then the rows.
size=$(stat -c %s "$T/run/doc_topic.npy")
[[ $size == $((128 + D * K * 8)) ]] || fail "doc_topic.npy has $size bytes, expected $((128 + D * K * 8))"
ok "carousel lda writes doc_topic.npy ($D x $K) and, with --vocab, vocab.txt"

# One process without mpirun, and under mpirun -np 1: the same bytes.
"$CAROUSEL_BIN" lda infer --run "$T/run" --corpus "$T/docword.txt" --out "$T/direct.npy" \
  --perplexity "$T/direct.csv" >"$T/direct.log" 2>&1 ||
  { show_log "$T/direct.log"; fail "lda infer without mpirun failed"; }
size=$(stat -c %s "$T/direct.npy")
[[ $size == $((128 + D * K * 8)) ]] || fail "the inferred .npy has $size bytes, expected $((128 + D * K * 8))"
[[ $(grep -vc '^#' "$T/direct.csv") == $((D + 1)) ]] || fail "--perplexity: expected a header and $D rows"
grep -q 'document-completion perplexity' "$T/direct.log" || fail "no perplexity in the summary"
run_ok infer-p1 1 lda infer --run "$T/run" --corpus "$T/docword.txt" --out "$T/p1.npy"
cmp -s "$T/direct.npy" "$T/p1.npy" || fail "mpirun -np 1 gives other bytes than no mpirun"
expect_fail_mpi 2 "runs on one process" 2 lda infer --run "$T/run" --corpus "$T/docword.txt" \
  --out "$T/p2.npy"
[[ ! -e $T/p2.npy ]] || fail "the refused 2-rank run wrote its output"
ok "lda infer runs without mpirun, gives the same bytes with -np 1, and is refused on 2 ranks: $EXPECT_FAIL_MESSAGE"

# --vocab: the corpus in reversed word ids with its vocabulary reversed to match, plus one
# word the run never saw (id 0 of the new vocabulary, 3 tokens in document 1).
awk -v V=$V 'NR == 1 { print; next } NR == 2 { print V + 1; next } NR == 3 { print $1 + 1; next }
  { print $1, V + 1 - $2 + 1, $3 } END { print 1, 1, 3 }' "$T/docword.txt" >"$T/reversed.txt"
{
  echo "neverseen"
  tac "$T/vocab.txt"
} >"$T/reversed_vocab.txt"
"$CAROUSEL_BIN" lda infer --run "$T/run" --corpus "$T/reversed.txt" --vocab "$T/reversed_vocab.txt" \
  --out "$T/reversed.npy" >"$T/reversed.log" 2>&1 ||
  { show_log "$T/reversed.log"; fail "lda infer --vocab failed"; }
cmp -s "$T/direct.npy" "$T/reversed.npy" ||
  fail "the same documents in another word order (matched by --vocab) give other topics"
grep -q '3 tokens of 1 distinct words outside' "$T/reversed.log" ||
  { show_log "$T/reversed.log"; fail "the unknown word is not counted in the summary"; }
ok "--vocab matches words by spelling (same bytes in reversed word order); 1 unknown word counted"

# Errors: exit 3 with one message naming the problem.
expect_fail 3 "not a directory" "$CAROUSEL_BIN" lda infer --run "$T/nothing" --corpus "$T/docword.txt"
ok "a missing --run directory: $EXPECT_FAIL_MESSAGE"
mkdir "$T/empty_run"
expect_fail 3 "topic_word.npy: not found" "$CAROUSEL_BIN" lda infer --run "$T/empty_run" \
  --corpus "$T/docword.txt"
ok "a --run directory without topic_word.npy: $EXPECT_FAIL_MESSAGE"
printf '2\n%d\n2\n1 %d 2\n2 %d 1\n' $((V + 2)) $((V + 1)) $((V + 2)) >"$T/unknown.txt"
expect_fail 3 "no word of its 3 tokens" "$CAROUSEL_BIN" lda infer --run "$T/run" \
  --corpus "$T/unknown.txt" --out "$T/unknown.npy"
[[ ! -e $T/unknown.npy ]] || fail "a corpus without a known word left an output"
ok "a corpus without a known word: $EXPECT_FAIL_MESSAGE"
expect_fail 3 "trained without --vocab" "$CAROUSEL_BIN" lda infer --run "$T/plain" \
  --corpus "$T/docword.txt" --vocab "$T/vocab.txt"
ok "--vocab for a run without a vocabulary: $EXPECT_FAIL_MESSAGE"
