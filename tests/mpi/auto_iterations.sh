#!/usr/bin/env bash
# --iterations auto (issue #42): a run of several chains goes on, in rounds twice as long as
# the one before, until `carousel summary`'s checks pass or --max-iterations. Checked here:
# - the job's rounds: the chains continue from their checkpoints, so chain 1 of a run that
#   stopped at N iterations is bitwise the single run of N iterations with the burn-in
#   resolved from the first round's length;
# - the verdict: the job stops at the first round whose draws pass, and the summary of its
#   chains says so; with --max-iterations at the first round's length it stops there and says
#   that the cap was reached;
# - a --resume of an interrupted auto run goes on with its rounds;
# - auto without --chains is refused.
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

T=$TEST_TMP
"$CAROUSEL_BIN" gen mf --users 120 --items 80 --ratings 3000 --rank 3 --seed 4 \
  --out "$T/ratings.txt" >/dev/null
COMMON=(mf --train "$T/ratings.txt" --test-fraction 0.1 --rank 3 --tiles 2 --quiet)

run_ok auto 2 "${COMMON[@]}" --chains 2 --iterations auto --max-iterations 16000 --out "$T/auto"
round=$(awk '$1 == "round" { print $2 }' "$T/auto/chains.txt")
[[ -n $round ]] || fail "chains.txt records no round"
last=$(trace_body "$T/auto/chain-1/trace.csv" | tail -n 1 | cut -d, -f1)
[[ $last == "$round" ]] || fail "chain 1 ends at iteration $last, not at the round's $round"
grep -q "The chains mixed" "$T/auto.log" || fail "the job ended before its chains mixed"
! grep -q "^iter " "$T/auto.log" || fail "the rounds' chains print progress lines despite --quiet"
# Every round before the last failed the checks: the job went on after each of them.
rounds=$(grep -c "the chains go on to" "$T/auto.log" || true)
[[ $round == $((1000 << rounds)) ]] ||
  fail "$rounds rounds after the first should end at $((1000 << rounds)), not $round"
ok "--iterations auto: $((rounds + 1)) rounds, to $round iterations, where the chains mixed"

# Chain 1 is the single run of that length, with the first round's burn-in.
burn_in=$(awk -F' = ' '$1 == "burn-in" { print $2 + 0 }' "$T/auto/chain-1/config.toml")
[[ -n $burn_in ]] || fail "chain 1's config.toml records no burn-in"
run_ok single 1 "${COMMON[@]}" --iterations "$round" --burn-in "$burn_in" --out "$T/single"
NPY_FILES=(W_mean.npy H_mean.npy W_var.npy H_var.npy)
same_outputs "$T/auto/chain-1" "$T/single" "chain 1 of the auto run vs the single run of $round"
ok "chain 1 is bitwise the single run of $round iterations with burn-in $burn_in"

# The cap: at the first round's length the job stops after it, unmixed, and says why. Without
# --iterations, a run of chains is an auto run: its default.
run_ok capped 2 "${COMMON[@]}" --chains 2 --max-iterations 1000 --out "$T/capped"
grep -q "^round 1000$" "$T/capped/chains.txt" ||
  fail "chains.txt of --chains without --iterations records no round of --iterations auto"
grep -q "reached --max-iterations 1000" "$T/capped.log" || fail "the capped run does not say so"
grep -q "The chains have NOT mixed" "$T/capped.log" || fail "the capped run's chains mixed at 1000"
[[ $(trace_body "$T/capped/chain-2/trace.csv" | tail -n 1 | cut -d, -f1) == 1000 ]] ||
  fail "the capped run's chains did not stop at 1000"
ok "--max-iterations stops the rounds, and the job says the chains did not mix; auto is the default with --chains"

# An explicit --iterations runs every chain that long, without rounds.
run_ok fixed 2 "${COMMON[@]}" --chains 2 --iterations 400 --out "$T/fixed"
! grep -q "^round " "$T/fixed/chains.txt" || fail "--chains 2 --iterations 400 ran in rounds"
[[ $(trace_body "$T/fixed/chain-2/trace.csv" | tail -n 1 | cut -d, -f1) == 400 ]] ||
  fail "--chains 2 --iterations 400: chain 2 did not stop at 400"
ok "--chains with an explicit --iterations: no rounds"

# An interrupted auto run: its chains.txt names the round; --resume goes on with the rounds.
cp -r "$T/capped" "$T/resumed"
sed -i "s/^max_iterations 1000$/max_iterations 16000/" "$T/resumed/chains.txt"
run_ok resumed 2 mf --resume "$T/resumed"
[[ $(awk '$1 == "round" { print $2 }' "$T/resumed/chains.txt") == "$round" ]] ||
  fail "the resumed auto run did not go on to the round the whole run reached ($round)"
same_outputs "$T/resumed/chain-1" "$T/auto/chain-1" "the resumed auto run vs the whole one"
ok "--resume of an auto run goes on with its rounds to the same chains"

expect_fail 2 "auto needs --chains 2 or more" "$CAROUSEL_BIN" "${COMMON[@]}" --iterations auto \
  --out "$T/single-auto"
ok "--iterations auto without --chains is refused: $EXPECT_FAIL_MESSAGE"
