#!/usr/bin/env bash
# `carousel dpmix` end to end (DESIGN.md sections 1, 3 and 4; model/dpmix/dpmix_model.hpp):
#   - rank-count invariance: with --tiles 4 and a fixed seed, 1, 2 and 4 ranks give
#     bitwise-identical components.npy, clusters.csv and trace.csv (without '#' lines and
#     seconds), for scir and sgrld (components are created on every rank from keyed draws,
#     cross-rank sums are ordered); another seed gives other outputs;
#   - resume: a run checkpointed at iteration 100 and resumed to 200 on another rank count
#     ends with the outputs of the uninterrupted 200-iteration run;
#   - bad input: a malformed corpus line and a duplicate entry end the job with exit 3 and
#     one message naming file:line.
# A synthetic corpus (300 observations, 60 categories, 4 clusters) keeps runs under a second.
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

T=$TEST_TMP
write_uci_corpus "$T/docword.txt" 300 60 4 30 3
COMMON=(--corpus "$T/docword.txt" --minibatch 100 --eval-every 20 --burn-in 40 --tiles 4
  --quiet)

same_dpmix_outputs() {
  local a=$1 b=$2 what=$3
  [[ -s $a/components.npy && -s $b/components.npy ]] || fail "$what: components.npy missing"
  cmp -s "$a/components.npy" "$b/components.npy" || fail "$what: components.npy differs"
  [[ -n $(strip_comments "$a/clusters.csv") ]] || fail "$what: $a/clusters.csv has only comments"
  cmp -s <(strip_comments "$a/clusters.csv") <(strip_comments "$b/clusters.csv") ||
    fail "$what: clusters.csv differs"
  [[ -n $(trace_body "$a/trace.csv") ]] || fail "$what: $a/trace.csv has no rows"
  cmp -s <(trace_body "$a/trace.csv") <(trace_body "$b/trace.csv") ||
    fail "$what: trace.csv differs"
}

for sampler in scir sgrld; do
  for np in 1 2 4; do
    run_ok "$sampler-p$np" "$np" dpmix "${COMMON[@]}" --iterations 200 --seed 5 \
      --sampler "$sampler" --out "$T/$sampler-p$np"
    grep -qx "# ranks: $np" "$T/$sampler-p$np/trace.csv" ||
      fail "$sampler: trace.csv of the $np-rank run does not record '# ranks: $np'"
  done
  same_dpmix_outputs "$T/$sampler-p1" "$T/$sampler-p2" "$sampler: P=1 vs P=2"
  same_dpmix_outputs "$T/$sampler-p1" "$T/$sampler-p4" "$sampler: P=1 vs P=4"
  cmp -s "$T/$sampler-p1/model.json" "$T/$sampler-p4/model.json" || fail "$sampler: model.json differs"
  check_model_json "$T/$sampler-p1" dpmix
  ok "$sampler: P=1, 2, 4 give bitwise-identical components.npy, clusters.csv, trace.csv, model.json"
done
# The trace reports what the issue asks: log predictive, occupied components and alpha.
head_line=$(strip_comments "$T/scir-p1/trace.csv" | head -n 1)
[[ $head_line == "iter,seconds,log_pred,log_pred_sample,occupied,alpha,samples" ]] ||
  fail "trace.csv header is '$head_line'"
run_ok seed6 2 dpmix "${COMMON[@]}" --iterations 200 --seed 6 --out "$T/seed6"
! cmp -s <(trace_body "$T/scir-p2/trace.csv") <(trace_body "$T/seed6/trace.csv") ||
  fail "--seed 6 gives the same trace.csv as --seed 5"
ok "--seed 6 gives another chain than --seed 5 (the comparison can fail)"

# Resume: checkpointed at 100 on 2 ranks, resumed to 200 on 4 ranks.
# --chains as for every model: chain 1 is the single run with --seed (seed 5's sgrld
# run above on 2 ranks), draws/ holds each chain's scalars, and `carousel summary` reads them.
run_ok chains 2 dpmix "${COMMON[@]}" --iterations 200 --seed 5 --sampler sgrld --chains 2 --out "$T/chains"
same_dpmix_outputs "$T/sgrld-p2" "$T/chains/chain-1" "chain 1 of --chains 2 vs the single run"
"$CAROUSEL_BIN" summary "$T/chains" >"$T/chains-summary.out" 2>&1 ||
  { show_log "$T/chains-summary.out"; fail "summary of 2 dpmix chains failed"; }
grep -q "^carousel summary: 2 chains of [0-9]* draws, 3 variables" "$T/chains-summary.out" &&
  grep -q "^occupied " "$T/chains-summary.out" && grep -q "^alpha " "$T/chains-summary.out" ||
  { show_log "$T/chains-summary.out"; fail "summary of 2 dpmix chains lacks their scalars"; }
ok "dpmix --chains 2: chain 1 is the single run; summary reads the draws (log_pred_sample, occupied, alpha)"
# With --vocab, components.txt names each component's most probable categories.
awk 'NR == 2 { for (w = 1; w <= $1; w++) print "cat" w; exit }' "$T/docword.txt" >"$T/vocab.txt"
run_ok vocab 2 dpmix "${COMMON[@]}" --iterations 100 --seed 5 --vocab "$T/vocab.txt" --out "$T/vocab"
lines=$(strip_comments "$T/vocab/components.txt" | wc -l)
components=$(head -c 128 "$T/vocab/components.npy" | grep -ao "'shape': ([0-9]*" | grep -o "[0-9]*$")
[[ $lines == "$components" && $lines -gt 0 ]] && strip_comments "$T/vocab/components.txt" | head -1 |
  grep -Eq "^component 0 \(weight 0\.[0-9]+\): cat[0-9]+ \(0\.[0-9]+\)" ||
  { cat "$T/vocab/components.txt" >&2; fail "components.txt: $lines lines for $components components, or no named categories"; }
ok "dpmix --vocab: components.txt names the top categories of each of the $components components"
run_ok ref 2 dpmix "${COMMON[@]}" --iterations 200 --seed 5 --checkpoint-every 50 --out "$T/ref"
run_ok part 2 dpmix "${COMMON[@]}" --iterations 100 --seed 5 --checkpoint-every 50 \
  --out "$T/part"
run_ok resumed 4 dpmix --resume "$T/part" --iterations 200 --quiet
same_dpmix_outputs "$T/ref" "$T/part" "resumed on 4 ranks vs uninterrupted"
ok "a run resumed from its checkpoint at iteration 100 on another rank count ends bitwise as the uninterrupted run"

# Bad input: exit 3, one message naming file:line.
{
  printf '4\n60\n4\n'
  printf '1 2 3\n2 x 4\n3 3 1\n4 5 2\n'
} >"$T/malformed.txt"
expect_fail_mpi 3 "$T/malformed.txt:5:" 2 dpmix --corpus "$T/malformed.txt" --out "$T/bad1"
ok "malformed line: exit 3, '$EXPECT_FAIL_MESSAGE'"
{
  printf '3\n60\n4\n'
  printf '1 2 3\n2 4 4\n2 4 1\n3 5 2\n'
} >"$T/dup.txt"
expect_fail_mpi 3 "$T/dup.txt:6: duplicate entry" 2 dpmix --corpus "$T/dup.txt" --out "$T/bad2"
ok "duplicate entry: exit 3, '$EXPECT_FAIL_MESSAGE'"

# Options that contradict each other are refused before sampling: exit 2, one message for
# the job, no rank aborting the others.
expect_fail_mpi 2 "option --init-components: is 10, more than --max-components 3" 2 dpmix \
  --corpus "$T/dup.txt" --init-components 10 --max-components 3 --out "$T/bad3"
! grep -q "MPI_ABORT" "$T/last.err" || { show_log "$T/last.err"; fail "--init-components > --max-components: a rank aborted the job"; }
ok "--init-components above --max-components: exit 2 before sampling, one message"

# No held-out observations (--test-fraction 0): said at the start and in the closing line,
# instead of a NaN log predictive in the progress and summary lines.
run_ok no-held-out 2 dpmix --corpus "$T/docword.txt" --minibatch 100 --eval-every 20 \
  --burn-in 40 --tiles 4 --iterations 60 --test-fraction 0 --out "$T/no-held-out"
log=$TEST_TMP/no-held-out.log
grep -q "note: no held-out observations (--test-fraction 0)" "$log" &&
  grep -q "; no held-out observations (--test-fraction 0); [0-9]* occupied components" "$log" ||
  { show_log "$log"; fail "--test-fraction 0: no note on the missing held-out observations"; }
! grep -qw "nan" "$log" || { show_log "$log"; fail "--test-fraction 0: a nan is printed"; }
ok "--test-fraction 0: a note and a closing line without held-out figures, no NaN printed"
