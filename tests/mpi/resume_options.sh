#!/usr/bin/env bash
# What a user meets around --resume and --out (issue #12), on 2 ranks: options given with
# --resume are taken (how far and how it reports) or refused by name (everything else); the
# tile count and burn-in come from the run, not from today's rank count or --iterations; a
# finished run goes on when given more iterations; a damaged newest checkpoint falls back to
# the one before it; a checkpoint of another command is named; a fresh run refuses an --out
# holding another run unless --overwrite, which leaves no stale file; SIGUSR2 to mpirun (or
# SIGTERM to launch/mpirun.sh) stops with a checkpoint and exit code 7; --checkpoint-minutes
# checkpoints by wall time.
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_ml100k

T=$TEST_TMP
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# No --tiles and no --burn-in: both defaults depend on things a resume may change.
RUN=(--train "$ML100K/u1.base" --test "$ML100K/u1.test" --rank 4 --seed 3 --eval-every 10
  --quiet)

# Two ranks without --tiles give 2 x 2 tiles; 400 iterations give burn-in min(60, 400 / 2)
# (30 passes over the data, 30 x 2 tiles).
run_ok ref 2 mf "${RUN[@]}" --iterations 400 --out "$T/ref"

# ---------------------------------------------------------------------------------------
# A run of 100 iterations, extended to 400 on 1 rank: its tiles (2, from 2 ranks) and its
# burn-in (min(60, 100 / 2) = 50) are kept, so the result is bitwise that of a 400-iteration
# run with burn-in 50 on 2 x 2 tiles.
run_ok ref-burn-in-50 2 mf "${RUN[@]}" --iterations 400 --burn-in 50 --out "$T/ref50"
run_ok short 2 mf "${RUN[@]}" --iterations 100 --checkpoint-every 50 --out "$T/short"
run_ok extend-p1 1 mf --resume "$T/short" --iterations 400
same_outputs "$T/ref50" "$T/short" "a finished 2-rank run extended on 1 rank"
grep -q '^# tiles: 2$' "$T/short/trace.csv" || fail "the extended run's header does not say tiles: 2"
grep -q '^# burn_in: 50$' "$T/short/trace.csv" || fail "the extended run's header does not say burn_in: 50"
ok "a finished run (2 ranks, default tiles) extended with --resume --iterations 400 on 1 rank equals a 400-iteration run with its burn-in"

# More tiles, a longer default burn-in (30 passes, 30 x 4 = 120 at 4 x 4 tiles from 4 ranks),
# which a resume on 2 ranks keeps although the command line it parses names no tiles: the
# extended run equals a 400-iteration run with burn-in 120 (and not the 60 of fewer tiles).
run_ok tiles4 4 mf "${RUN[@]}" --iterations 300 --checkpoint-every 100 --out "$T/tiles4"
grep -q '^# burn_in: 120$' "$T/tiles4/trace.csv" || fail "4 x 4 tiles: the default burn-in is not 120"
grep -q '^burn-in = 120  # resolved' "$T/tiles4/config.toml" ||
  fail "4 x 4 tiles: config.toml does not record the resolved burn-in 120"
run_ok tiles4-more 2 mf --resume "$T/tiles4" --iterations 400
run_ok ref-tiles4 2 mf "${RUN[@]}" --tiles 4 --iterations 400 --burn-in 120 --out "$T/ref-tiles4"
same_outputs "$T/ref-tiles4" "$T/tiles4" "a 4-rank run (default tiles and burn-in) extended on 2 ranks"
grep -q '^# burn_in: 120$' "$T/tiles4/trace.csv" || fail "the resumed 4-tile run's burn-in is not 120"
ok "default burn-in of 30 passes (120 at 4 x 4 tiles), kept by a resume on 2 ranks"

# The options that may change are taken; --eval-every and --checkpoint-every in = form.
run_ok extend-again 2 mf --resume="$T/short" --iterations=450 --eval-every=25 \
  --checkpoint-every 0 --checkpoint-minutes 5 --quiet
last=$(trace_body "$T/short/trace.csv" | tail -n 1 | cut -d, -f1)
[[ $last == 450 ]] || fail "after --iterations=450 the trace ends at iteration $last"
ok "--resume=DIR --iterations=450 --eval-every=25 --checkpoint-every 0 --checkpoint-minutes 5 --quiet: taken"

# A new --iterations below the run's burn-in or its newest checkpoint, and every option
# that would change the chain, are refused by name.
cp -a "$T/short" "$T/refusals"
expect_fail_mpi 2 "option --iterations: is 300, but the run's newest checkpoint is at iteration 400" \
  2 mf --resume "$T/refusals" --iterations 300
ok "fewer iterations than the checkpoint: exit 2: $EXPECT_FAIL_MESSAGE"
for option in "--rank 9" "--seed 77" "--tiles 1" "--burn-in 10" "--sampler sgld" \
  "--train $ML100K/u1.test" "--out $T/elsewhere" "--overwrite" "--no-bias"; do
  read -r -a words <<<"$option"
  expect_fail_mpi 2 "option ${words[0]}: cannot be given with --resume" \
    2 mf --resume "$T/refusals" --iterations 500 "${words[@]}"
done
ok "--rank, --seed, --tiles, --burn-in, --sampler, --train, --out, --overwrite, --no-bias with --resume: exit 2, named"
cmp -s <(trace_body "$T/short/trace.csv") <(trace_body "$T/refusals/trace.csv") ||
  fail "a refused resume changed the run's trace"

# The burn-in of a short run stays its own: 50 iterations resolve it to 25, and
# --iterations 60 continues (it used to be refused against the burn-in a 200-iteration run gets).
run_ok tiny 2 mf "${RUN[@]}" --iterations 50 --checkpoint-every 50 --out "$T/tiny"
run_ok tiny-more 2 mf --resume "$T/tiny" --iterations 60
grep -q '^# burn_in: 25$' "$T/tiny/trace.csv" || fail "the resumed run's burn-in is not the run's 25"
expect_fail_mpi 2 "option --iterations: must be larger than the resumed run's burn-in, 25" \
  2 mf --resume "$T/tiny" --iterations 20
ok "burn-in fixed at the run's start (25): --iterations 60 continues, 20 is refused"

# ---------------------------------------------------------------------------------------
# A damaged newest checkpoint: the resume warns and continues from the one before it.
run_ok damaged 2 mf "${RUN[@]}" --iterations 400 --checkpoint-every 50 --out "$T/damaged"
newest=$(checkpoints_of "$T/damaged" | tail -n 1)
previous=$(checkpoints_of "$T/damaged" | head -n 1)
[[ $(checkpoint_iteration "$newest") == 400 && $(checkpoint_iteration "$previous") == 350 ]] ||
  fail "damaged: expected checkpoints 350 and 400, found $previous $newest"
truncate -s 100 "$newest"
run_ok damaged-resume 2 mf --resume "$T/damaged"
grep -q "warning: $newest: .*resuming from the checkpoint before it, $previous" "$T/damaged-resume.log" ||
  { show_log "$T/damaged-resume.log"; fail "no warning naming the damaged and the used checkpoint"; }
[[ $(grep -c warning "$T/damaged-resume.log") == 1 ]] || fail "the warning is not printed once"
same_outputs "$T/ref" "$T/damaged" "resumed past a damaged newest checkpoint"
ok "a truncated newest checkpoint: warning, resumed from the one before, outputs identical"

# ---------------------------------------------------------------------------------------
# A checkpoint of carousel lda resumed with carousel mf (and the reverse) is named.
write_uci_corpus "$T/corpus.txt" 40 60 3 30 1
run_ok lda 2 lda --corpus "$T/corpus.txt" --topics 3 --iterations 20 --checkpoint-every 10 \
  --quiet --out "$T/lda"
expect_fail_mpi 5 "holds a run of carousel lda, not carousel mf; continue it with carousel lda --resume $T/lda" \
  2 mf --resume "$T/lda"
expect_fail_mpi 5 "holds a run of carousel mf, not carousel lda" 2 lda --resume "$T/short"
ok "mf --resume of an lda run (and the reverse): exit 5: $EXPECT_FAIL_MESSAGE"

# ---------------------------------------------------------------------------------------
# A fresh run into another run's --out is refused; --overwrite replaces that run whole.
expect_fail_mpi 2 "option --out: $T/short holds another run's checkpoints" \
  2 mf "${RUN[@]}" --iterations 100 --out "$T/short"
expect_fail_mpi 2 "option --out: $T/lda holds another run's checkpoints and trace.csv: continue that run with carousel lda --resume $T/lda," \
  2 mf "${RUN[@]}" --iterations 100 --out "$T/lda"
rm -rf "$T/lda/checkpoints"
expect_fail_mpi 2 "option --out: $T/lda holds another run's" 2 mf "${RUN[@]}" --iterations 100 --out "$T/lda"
ok "a fresh run into another run's outputs or checkpoints: exit 2: $EXPECT_FAIL_MESSAGE"

# What a fresh --no-bias run leaves, next to what it leaves after --overwrite of a run with
# biases and of an lda run (whose files are all Carousel's, so all must go): the same.
run_ok nobias 2 mf "${RUN[@]}" --iterations 100 --no-bias --checkpoint-every 50 --out "$T/nobias"
echo "keep me" >"$T/short/notes.txt"
echo "keep me" >"$T/lda/notes.txt"
for dir in short lda; do
  run_ok "overwrite-$dir" 2 mf "${RUN[@]}" --iterations 100 --no-bias --checkpoint-every 50 \
    --overwrite --out "$T/$dir"
  diff <(cd "$T/nobias" && find . -type f | sort) \
    <(cd "$T/$dir" && find . -type f ! -name notes.txt | sort) ||
    fail "--overwrite into the $dir run left other files than a fresh run's (diff above)"
  [[ -f $T/$dir/notes.txt ]] || fail "--overwrite deleted a file that is not Carousel's"
  for f in "$T"/nobias/*.npy; do
    cmp -s "$f" "$T/$dir/${f##*/}" || fail "--overwrite into the $dir run: ${f##*/} differs"
  done
done
ok "--overwrite into a run with biases and into an lda run: exactly a fresh run's files, notes.txt kept"

# ---------------------------------------------------------------------------------------
# Stopping under mpirun: SIGUSR2 to mpirun (forwarded to every rank) checkpoints and exits
# 7; so does SIGTERM to launch/mpirun.sh. Each run is far from its end when stopped, and
# resumes to a close ten iterations later.
for way in mpirun wrapper; do
  out=$T/stop-$way log=$T/stop-$way.log
  if [[ $way == mpirun ]]; then
    start_mpi "$log" 2 mf "${RUN[@]}" --iterations 1000000 --burn-in 5 --out "$out"
  else
    CAROUSEL_BIN=$CAROUSEL_BIN timeout -k 10 "$CAROUSEL_TEST_TIMEOUT" "$root/launch/mpirun.sh" 2 \
      mf "${RUN[@]}" --iterations 1000000 --burn-in 5 --out "$out" </dev/null >"$log" 2>&1 &
    BG_PID=$!
    BG_PIDS+=("$BG_PID")
  fi
  until [[ -s $out/trace.csv ]]; do # written at the first evaluation: the loop runs
    alive "$BG_PID" || { show_log "$log"; fail "$way: the run ended before its first evaluation"; }
    sleep 0.01
  done
  if [[ $way == mpirun ]]; then
    kill -USR2 "$(mpirun_pid "$BG_PID")"
  else
    kill -TERM "$(pgrep -P "$BG_PID" | head -n 1)" # the script, under the timeout wrapper
  fi
  wait_bg "$BG_PID"
  [[ $BG_RC == 7 ]] || { show_log "$log"; fail "$way: exit $BG_RC, expected 7"; }
  [[ $(grep -c 'stopped by SIG[A-Z0-9]* at iteration' "$log" || true) == 1 ]] ||
    { show_log "$log"; fail "$way: not one 'stopped' message"; }
  ckpt=$(checkpoints_of "$out" | tail -n 1)
  [[ -n $ckpt ]] || fail "$way: stopped without a checkpoint"
  it=$(checkpoint_iteration "$ckpt")
  run_ok "resume-$way" 2 mf --resume "$out" --iterations $((it + 10))
  [[ -s $out/W_mean.npy ]] || fail "$way: the resumed run wrote no outputs"
done
ok "SIGUSR2 to mpirun and SIGTERM to launch/mpirun.sh: exit 7 with a checkpoint; the run resumes"

# --checkpoint-minutes: checkpoints by wall time, where the same run without it (the
# reference, --checkpoint-every 0 by default) writes none.
[[ -z $(checkpoints_of "$T/ref") ]] || fail "the reference run wrote checkpoints"
run_ok timed 2 mf "${RUN[@]}" --iterations 400 --checkpoint-minutes 0.0001 --out "$T/timed"
n=$(checkpoints_of "$T/timed" | wc -l)
[[ $n == 2 ]] || fail "--checkpoint-minutes 0.0001: $n checkpoints kept, expected 2"
same_outputs "$T/ref" "$T/timed" "a run checkpointed by wall time"
ok "--checkpoint-minutes 0.0001 writes checkpoints by wall time ($n kept), outputs unchanged"
