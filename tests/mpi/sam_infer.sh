#!/usr/bin/env bash
# `carousel sam infer` as users run it: on one process without mpirun (or under mpirun -np 1,
# same bytes), refused on more; D x K proportions whose rows are points of the simplex; new
# documents matched by spelling with --vocab (the corpus in reversed word order with its
# vocabulary reversed to match gives the same bytes); a run of two chains gives 2 x D x K,
# each slice what the chain's own directory gives; errors end with exit 3 and one message.
# The proportions follow the documents: on 5 topics of disjoint word ranges, the documents of
# one range share their most probable topic and the ranges get different ones; with the
# vocabulary shuffled (words matched to others of the run) that check fails, as it must.
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

T=$TEST_TMP
D=400 V=200 K=5
write_uci_corpus "$T/docword.txt" $D $V $K 60 5
awk -v V=$V 'BEGIN { for (w = 1; w <= V; w++) print "word" w }' >"$T/vocab.txt"
COMMON=(--topics "$K" --max-df 0.5 --minibatch 40 --seed 3 --eval-draws 20 --quiet)

"$CAROUSEL_BIN" sam --corpus "$T/docword.txt" --vocab "$T/vocab.txt" "${COMMON[@]}" \
  --iterations 300 --out "$T/run" >"$T/run.log" 2>&1 || { show_log "$T/run.log"; fail "carousel sam failed"; }
for f in idf.npy words.txt topic_vectors.npy; do
  [[ -s $T/run/$f ]] || fail "carousel sam wrote no $f"
done
grep -q '"idf": "idf.npy"' "$T/run/model.json" || fail "model.json does not name idf.npy"

"$CAROUSEL_BIN" sam infer --run "$T/run" --corpus "$T/docword.txt" --vocab "$T/vocab.txt" \
  --out "$T/direct.npy" >"$T/direct.log" 2>&1 ||
  { show_log "$T/direct.log"; fail "sam infer without mpirun failed"; }
run_ok infer-p1 1 sam infer --run "$T/run" --corpus "$T/docword.txt" --vocab "$T/vocab.txt" \
  --out "$T/p1.npy"
cmp -s "$T/direct.npy" "$T/p1.npy" || fail "mpirun -np 1 gives other bytes than no mpirun"
expect_fail_mpi 2 "runs on one process" 2 sam infer --run "$T/run" --corpus "$T/docword.txt" \
  --out "$T/p2.npy"
[[ ! -e $T/p2.npy ]] || fail "the refused 2-rank run wrote its output"
ok "sam infer runs without mpirun, gives the same bytes with -np 1, and is refused on 2 ranks"

# The corpus in reversed word ids with its vocabulary reversed to match, plus a word the run
# never saw (3 tokens in document 1).
write_reversed_corpus "$T/docword.txt" "$T/vocab.txt" $V "$T/reversed.txt" "$T/reversed_vocab.txt"
"$CAROUSEL_BIN" sam infer --run "$T/run" --corpus "$T/reversed.txt" \
  --vocab "$T/reversed_vocab.txt" --out "$T/reversed.npy" >"$T/reversed.log" 2>&1 ||
  { show_log "$T/reversed.log"; fail "sam infer --vocab failed"; }
cmp -s "$T/direct.npy" "$T/reversed.npy" ||
  fail "the same documents in another word order (matched by --vocab) give other proportions"
ok "--vocab matches words by spelling (same bytes in reversed word order, an unknown word left out)"

# A vocabulary shuffled against the corpus: every word is matched to another of the run's.
shuf --random-source=<(yes) "$T/vocab.txt" >"$T/shuffled_vocab.txt"
"$CAROUSEL_BIN" sam infer --run "$T/run" --corpus "$T/docword.txt" \
  --vocab "$T/shuffled_vocab.txt" --out "$T/shuffled.npy" >"$T/shuffled.log" 2>&1 ||
  { show_log "$T/shuffled.log"; fail "sam infer with a shuffled vocabulary failed"; }

/usr/bin/python3 - "$T" "$D" "$K" <<'PY' || fail "the inferred proportions do not follow the documents"
import sys, numpy as np
t, D, K = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
theta = np.load(t + "/direct.npy")
assert theta.shape == (D, K), theta.shape
assert np.all(theta >= 0) and np.allclose(theta.sum(axis=1), 1, atol=1e-9), "rows off the simplex"
band = np.arange(D) % K  # write_uci_corpus: document d (from 1) draws from range (d - 1) % K
def agreement(theta):
    # Per word range: the share of its documents whose most probable topic is the range's
    # most common one, and how many ranges have a most common topic of their own.
    top = theta.argmax(axis=1)
    modes = [np.bincount(top[band == b], minlength=K).argmax() for b in range(K)]
    share = np.mean([np.mean(top[band == b] == modes[b]) for b in range(K)])
    return share, len(set(modes))
share, distinct = agreement(theta)
print(f"documents sharing their range's topic: {share:.3f}; ranges with their own topic: {distinct} of {K}")
assert share >= 0.9 and distinct == K, (share, distinct)
control_share, control_distinct = agreement(np.load(t + "/shuffled.npy"))
print(f"control (shuffled vocabulary): {control_share:.3f}, {control_distinct} of {K}")
assert not (control_share >= 0.9 and control_distinct == K), "the control passed too"
PY
ok "the proportions follow the documents' word ranges, and a shuffled vocabulary fails the check"

# Two chains: 2 x D x K, chain c's slice what `sam infer --run RUN/chain-c` gives, bitwise.
"$CAROUSEL_BIN" sam --corpus "$T/docword.txt" --vocab "$T/vocab.txt" "${COMMON[@]}" --chains 2 \
  --iterations 100 --out "$T/two" >"$T/two.log" 2>&1 ||
  { show_log "$T/two.log"; fail "carousel sam --chains 2 failed"; }
for c in 1 2; do
  "$CAROUSEL_BIN" sam infer --run "$T/two/chain-$c" --corpus "$T/docword.txt" \
    --vocab "$T/vocab.txt" --out "$T/chain$c.npy" >"$T/chain$c.log" 2>&1 ||
    { show_log "$T/chain$c.log"; fail "sam infer of chain $c failed"; }
done
"$CAROUSEL_BIN" sam infer --run "$T/two" --corpus "$T/docword.txt" --vocab "$T/vocab.txt" \
  --out "$T/pooled.npy" >"$T/pooled.log" 2>&1 ||
  { show_log "$T/pooled.log"; fail "sam infer of a run of two chains failed"; }
/usr/bin/python3 - "$T" "$D" "$K" <<'PY' || fail "sam infer did not keep the two chains apart"
import sys, numpy as np
t, D, K = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
pooled = np.load(t + "/pooled.npy")
assert pooled.shape == (2, D, K), pooled.shape
for c in (1, 2):
    assert np.array_equal(pooled[c - 1], np.load(f"{t}/chain{c}.npy")), f"chain {c} differs"
assert not np.array_equal(pooled[0], pooled[1])
PY
ok "sam infer of a run of two chains: 2 x $D x $K proportions, each chain's own bitwise"

# Errors: exit 3 with one message naming the problem.
expect_fail 3 "not a directory" "$CAROUSEL_BIN" sam infer --run "$T/nothing" \
  --corpus "$T/docword.txt"
ok "a missing --run directory: $EXPECT_FAIL_MESSAGE"
mkdir "$T/empty_run"
expect_fail 3 "model.json: not found" "$CAROUSEL_BIN" sam infer --run "$T/empty_run" \
  --corpus "$T/docword.txt"
ok "a --run directory without model.json: $EXPECT_FAIL_MESSAGE"
"$CAROUSEL_BIN" lda --corpus "$T/docword.txt" --topics 3 --iterations 20 --quiet \
  --out "$T/lda" >/dev/null 2>&1 || fail "carousel lda failed"
expect_fail 3 "is not a carousel sam model description" "$CAROUSEL_BIN" sam infer \
  --run "$T/lda" --corpus "$T/docword.txt"
ok "an lda run given to sam infer: $EXPECT_FAIL_MESSAGE"
printf '2\n%d\n2\n1 %d 2\n2 %d 1\n' $((V + 2)) $((V + 1)) $((V + 2)) >"$T/unknown.txt"
expect_fail 3 "no word of its 3 tokens" "$CAROUSEL_BIN" sam infer --run "$T/run" \
  --corpus "$T/unknown.txt" --out "$T/unknown.npy"
[[ ! -e $T/unknown.npy ]] || fail "a corpus without a known word left an output"
ok "a corpus without a known word: $EXPECT_FAIL_MESSAGE"
