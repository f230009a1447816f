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
write_reversed_corpus "$T/docword.txt" "$T/vocab.txt" $V "$T/reversed.txt" "$T/reversed_vocab.txt"
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

# A run of two chains: the proportions per chain (2 x D x K: topics are not aligned across
# chains), chain c's being what `lda infer --run RUN/chain-c` gives, bitwise; the held-out
# predictive pooled: each document's perplexity is that of the chains' mean probability of
# its held-out tokens, log((p_1 + p_2) / 2), computed here from each chain's own output. The
# control: the chains' mean log-probability (a geometric mean, not a mixture) is rejected.
"$CAROUSEL_BIN" lda --corpus "$T/docword.txt" --vocab "$T/vocab.txt" "${COMMON[@]}" --chains 2 \
  --out "$T/two" >"$T/two.log" 2>&1 || { show_log "$T/two.log"; fail "carousel lda --chains 2 failed"; }
for c in 1 2; do
  "$CAROUSEL_BIN" lda infer --run "$T/two/chain-$c" --corpus "$T/docword.txt" \
    --out "$T/chain$c.npy" --perplexity "$T/chain$c.csv" >"$T/chain$c.log" 2>&1 ||
    { show_log "$T/chain$c.log"; fail "lda infer of chain $c failed"; }
done
"$CAROUSEL_BIN" lda infer --run "$T/two" --corpus "$T/docword.txt" --out "$T/pooled.npy" \
  --perplexity "$T/pooled.csv" >"$T/pooled.log" 2>&1 ||
  { show_log "$T/pooled.log"; fail "lda infer of a run of two chains failed"; }
grep -q "the 2 chains' predictive pooled; each chain's alone" "$T/pooled.log" ||
  { show_log "$T/pooled.log"; fail "the summary does not name the pooled chains"; }
/usr/bin/python3 - "$T" "$D" "$K" <<'PY' || fail "lda infer did not pool the two chains as documented"
import sys, numpy as np
t, D, K = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
pooled = np.load(t + "/pooled.npy")
assert pooled.shape == (2, D, K), pooled.shape
for c in (1, 2):
    own = np.load(f"{t}/chain{c}.npy")
    assert np.array_equal(pooled[c - 1], own), f"chain {c}'s proportions differ from its own run's"
assert not np.array_equal(pooled[0], pooled[1])
def rows(name):
    lines = [l for l in open(f"{t}/{name}.csv") if not l.startswith("#")]
    assert lines[0].strip() == "doc,tokens,test_tokens,perplexity", lines[0]
    r = np.array([[float(x) for x in l.split(",")] for l in lines[1:]])
    return r[:, 2], r[:, 3]
n, p1 = rows("chain1"); n2, p2 = rows("chain2"); m, got = rows("pooled")
assert np.array_equal(n, n2) and np.array_equal(n, m)
keep = n > 0
l1, l2 = -n[keep] * np.log(p1[keep]), -n[keep] * np.log(p2[keep])
mixture = np.exp(-np.logaddexp(l1, l2) + np.log(2)) ** (1 / n[keep])  # log of the mean probability
geometric = np.exp(-(l1 + l2) / 2 / n[keep])
assert np.allclose(got[keep], mixture, rtol=1e-9), np.max(np.abs(got[keep] / mixture - 1))
assert not np.allclose(got[keep], geometric, rtol=1e-6), "the control (geometric mean) passed too"
print(f"pooled perplexity matches the mixture; geometric control off by up to {np.max(np.abs(geometric / got[keep] - 1)):.2e}")
PY
ok "lda infer of a run of two chains: 2 x $D x $K proportions (each chain's own, bitwise), perplexity of the chains' mean probability"

# An output that cannot be written stops the command with exit 4 before any output is in
# place: lda infer's .npy is not left without its --perplexity file, nor gen lda's corpus
# without its --topics-out.
expect_fail 4 "cannot create /nonexistent/p.csv" "$CAROUSEL_BIN" lda infer --run "$T/run" \
  --corpus "$T/docword.txt" --out "$T/orphan.npy" --perplexity /nonexistent/p.csv
[[ ! -e $T/orphan.npy ]] || fail "lda infer left its .npy when --perplexity could not be written"
expect_fail 4 "cannot create /nonexistent/t.npy" "$CAROUSEL_BIN" gen lda --documents 20 --topics 2 \
  --out "$T/orphan.txt" --topics-out /nonexistent/t.npy
[[ ! -e $T/orphan.txt ]] || fail "gen lda left its corpus when --topics-out could not be written"
ok "unwritable --perplexity and --topics-out: exit 4 with no output left ($EXPECT_FAIL_MESSAGE)"
