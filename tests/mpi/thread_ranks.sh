#!/usr/bin/env bash
# Ranks as threads (src/comm/thread_communicator.cpp, src/driver/thread_ranks.cpp): a model
# command started without mpirun runs one rank per core by default, or CAROUSEL_RANKS of
# them (one for `lda infer`). Such a run is the chain mpirun gives on the same tiles, bitwise, for mf and lda,
# oversubscribed too; a rank failing alone ends the process with its exit code, without a
# hang; bad input stops every rank with one message; SIGTERM and SIGINT checkpoint, and a resume on
# another rank count finishes the same chain; a bad CAROUSEL_RANKS, or one given under
# mpirun, is a usage error.
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_ml100k
require_lda_data

T=$TEST_TMP
PLAIN_ENV=("${NO_LAUNCHER_ENV[@]}" -u CAROUSEL_RANKS) # and the default rank count

# run_threads NAME RANKS ARGS... : carousel without mpirun on RANKS thread ranks ("" for the
# default), must exit 0; log in $T/NAME.log.
run_threads() {
  local name=$1 count=$2 rc=0
  shift 2
  local rank_env=()
  [[ -z $count ]] || rank_env=("CAROUSEL_RANKS=$count")
  timeout -k 10 "$CAROUSEL_TEST_TIMEOUT" "${PLAIN_ENV[@]}" "${rank_env[@]}" "$CAROUSEL_BIN" "$@" \
    </dev/null >"$T/$name.log" 2>&1 || rc=$?
  [[ $rc == 0 ]] || { show_log "$T/$name.log"; fail "$name: exit $rc, expected 0: carousel $*"; }
}

MF=(mf --train "$ML100K/u1.base" --test "$ML100K/u1.test" --rank 8 --tiles 4 --seed 3
  --iterations 60 --burn-in 20 --eval-every 5)
run_threads mf-threads 2 "${MF[@]}" --out "$T/mf-threads"
grep -q "on 2 rank(s)" "$T/mf-threads.log" || { show_log "$T/mf-threads.log"; fail "mf: not 2 ranks"; }
run_threads mf-one 1 "${MF[@]}" --out "$T/mf-one"
run_ok mf-mpi 2 "${MF[@]}" --out "$T/mf-mpi"
same_outputs "$T/mf-threads" "$T/mf-mpi" "mf: 2 thread ranks vs mpirun -np 2"
same_outputs "$T/mf-threads" "$T/mf-one" "mf: 2 thread ranks vs 1 rank"
run_threads mf-four 4 "${MF[@]}" --out "$T/mf-four"
same_outputs "$T/mf-four" "$T/mf-one" "mf: 4 thread ranks (oversubscribed) vs 1 rank"
ok "mf on 2 and 4 thread ranks: outputs bitwise those of mpirun -np 2 and of one rank"

LDA=(lda --corpus "$KOS/docword.kos.txt" --vocab "$KOS/vocab.kos.txt" --topics 10 --seed 3
  --tiles 4 --test-fraction 0.1 --iterations 12 --burn-in 4 --eval-every 4 --quiet)
run_threads lda-threads 4 "${LDA[@]}" --out "$T/lda-threads"
run_ok lda-mpi 2 "${LDA[@]}" --out "$T/lda-mpi"
same_lda_outputs "$T/lda-threads" "$T/lda-mpi" "lda: 4 thread ranks vs mpirun -np 2"
ok "lda on 4 thread ranks: outputs bitwise those of mpirun -np 2"
# `lda infer` runs on one process: by default it starts one rank, not one per CPU.
run_threads lda-infer "" lda infer --run "$T/lda-threads" --corpus "$KOS/docword.kos.txt" \
  --vocab "$KOS/vocab.kos.txt" --out "$T/infer.npy"
[[ -s $T/infer.npy ]] || fail "lda infer at the default ranks wrote no $T/infer.npy"
ok "lda infer at the default ranks: one rank"

# The default: one rank per CPU (at most 16), one tile per rank, recorded in config.toml.
cpus=$(nproc)
((cpus <= 16)) || cpus=16
run_threads mf-default "" mf --train "$ML100K/u1.base" --test "$ML100K/u1.test" \
  --iterations 20 --out "$T/mf-default"
grep -q "on $cpus rank(s)" "$T/mf-default.log" ||
  { show_log "$T/mf-default.log"; fail "default: not $cpus ranks"; }
grep -q "^tiles = $cpus " "$T/mf-default/config.toml" || fail "default: config.toml lacks tiles = $cpus"
# --tiles the CPUs do not divide: the largest divisor within them (1 for a prime above).
run_threads mf-tiles-7 "" mf --train "$ML100K/u1.base" --iterations 4 --tiles 7 \
  --out "$T/mf-tiles-7"
want=$cpus
while ((7 % want != 0)); do want=$((want - 1)); done
grep -q "on $want rank(s)" "$T/mf-tiles-7.log" || { show_log "$T/mf-tiles-7.log"; fail "--tiles 7: not $want ranks"; }
ok "default: $cpus rank(s) and tiles; --tiles 7 runs on $want"

# lda shares a rank's work out among threads (--threads), so by default it runs one rank
# on every CPU (at most 16); --tiles keeps one rank per tile where the CPUs allow.
run_threads lda-default "" lda --corpus "$KOS/docword.kos.txt" --topics 10 --iterations 4 \
  --out "$T/lda-default"
grep -q "on 1 rank(s)" "$T/lda-default.log" || { show_log "$T/lda-default.log"; fail "lda default: not 1 rank"; }
grep -Eq "rank 0: .* \($cpus threads?\)" "$T/lda-default.log" ||
  { show_log "$T/lda-default.log"; fail "lda default: rank 0 does not run on $cpus thread(s)"; }
run_threads lda-threads-3 "" lda --corpus "$KOS/docword.kos.txt" --topics 10 --iterations 4 \
  --threads 3 --out "$T/lda-threads-3"
grep -q "rank 0: .* (3 threads)" "$T/lda-threads-3.log" ||
  { show_log "$T/lda-threads-3.log"; fail "lda --threads 3: rank 0 does not run on 3 threads"; }
run_threads lda-tiles "" lda --corpus "$KOS/docword.kos.txt" --topics 10 --iterations 4 \
  --tiles "$cpus" --out "$T/lda-tiles"
grep -q "on $cpus rank(s)" "$T/lda-tiles.log" || { show_log "$T/lda-tiles.log"; fail "lda --tiles $cpus: not $cpus ranks"; }
ok "lda: by default 1 rank on $cpus thread(s); --threads 3 runs 3; --tiles $cpus runs $cpus ranks"

# A run without a test set says so at its start, and its progress shows the training RMSE,
# not "rmse nan".
timeout -k 10 "$CAROUSEL_TEST_TIMEOUT" "${PLAIN_ENV[@]}" CAROUSEL_RANKS=2 "$CAROUSEL_BIN" mf \
  --train "$ML100K/u1.base" --iterations 40 --out "$T/no-test" </dev/null >"$T/no-test.log" 2>&1 ||
  { show_log "$T/no-test.log"; fail "a run without a test set failed"; }
grep -q "^carousel mf: note: no test set" "$T/no-test.log" && grep -q "train rmse 0\.[0-9]" "$T/no-test.log" &&
  ! grep -qi "nan" "$T/no-test.log" || { show_log "$T/no-test.log"; fail "a run without a test set: no note, or nan shown"; }
ok "a run without a test set: a note at its start, the training RMSE in its progress, no nan"

# A rank failing alone (a failed message, then a bug) ends the process: no hang.
# shellcheck disable=SC2034  # read by expect_fail in lib.sh
EXPECT_FAIL_LIMIT=20
SHORT=(mf --train "$ML100K/u1.base" --test "$ML100K/u1.test" --iterations 30 --burn-in 10 --quiet)
expect_fail 8 "a message between ranks failed (injected): rank 1, call 40 (" \
  "${PLAIN_ENV[@]}" CAROUSEL_RANKS=2 "CAROUSEL_INJECT_FAULT=rank=1,call=40,kind=message" \
  "$CAROUSEL_BIN" "${SHORT[@]}" --out "$T/fault-message"
ok "rank 1 of 2 fails a message at call 40: exit 8 in ${EXPECT_FAIL_SECONDS}s"
expect_fail 1 "injected fault: rank 2 threw at its call 5 (" \
  "${PLAIN_ENV[@]}" CAROUSEL_RANKS=3 "CAROUSEL_INJECT_FAULT=rank=2,call=5,kind=throw" \
  "$CAROUSEL_BIN" "${SHORT[@]}" --out "$T/fault-throw"
ok "rank 2 of 3 throws at call 5: exit 1 in ${EXPECT_FAIL_SECONDS}s"

# Bad input on the second rank's half of the file: one message, exit 3.
{ head -n 70000 "$ML100K/u1.base"; printf '1\tx\t4\t0\n'; tail -n +70001 "$ML100K/u1.base"; } >"$T/bad.tsv"
expect_fail 3 "bad.tsv:70001" "${PLAIN_ENV[@]}" CAROUSEL_RANKS=2 "$CAROUSEL_BIN" mf \
  --train "$T/bad.tsv" --quiet --out "$T/bad"
ok "bad input on 2 thread ranks: exit 3: $EXPECT_FAIL_MESSAGE"

expect_fail 2 "CAROUSEL_RANKS='two'" "${PLAIN_ENV[@]}" CAROUSEL_RANKS=two "$CAROUSEL_BIN" \
  "${SHORT[@]}" --out "$T/bad-ranks"
expect_fail 2 "the launcher chooses the ranks" env CAROUSEL_RANKS=2 "$MPIEXEC" --oversubscribe \
  -np 2 "$CAROUSEL_BIN" "${SHORT[@]}" --out "$T/ranks-under-mpirun"
ok "a bad CAROUSEL_RANKS, and one under mpirun: exit 2"

# SIGTERM: a checkpoint and exit 7; resumed on 1 rank and on 4, the same chain.
LONG=(mf --train "$ML100K/u.data" --test-fraction 0.1 --rank 8 --tiles 4 --seed 7
  --iterations 1500 --burn-in 100 --eval-every 10 --quiet --checkpoint-every 100)
run_threads long-ref 1 "${LONG[@]}" --out "$T/long-ref"
sigterm_run "$T/term" "${PLAIN_ENV[@]}" CAROUSEL_RANKS=2 "$CAROUSEL_BIN" "${LONG[@]}"
cp -r "$T/term" "$T/term-4"
run_threads resume-1 "" mf --resume "$T/term"
same_outputs "$T/long-ref" "$T/term" "resume on 1 rank after SIGTERM on 2 thread ranks"
run_threads resume-4 4 mf --resume "$T/term-4"
same_outputs "$T/long-ref" "$T/term-4" "resume on 4 thread ranks after SIGTERM on 2"
ok "SIGTERM on 2 thread ranks: exit 7 with a checkpoint; resumed on 1 or 4 ranks, the same chain"

# Ctrl-C (SIGINT) on a run without a launcher stops it as SIGTERM does: a checkpoint, exit 7,
# a message that gives the command to continue; that command finishes the same chain. A
# fresh run into the stopped run's --out points at the same command.
stop_run INT "$T/int" "${PLAIN_ENV[@]}" CAROUSEL_RANKS=2 "$CAROUSEL_BIN" "${LONG[@]}"
grep -q "stopped by SIGINT at iteration [0-9]*; checkpoint in $T/int/checkpoints; continue with: carousel mf --resume $T/int\$" "$T/int.log" ||
  { show_log "$T/int.log"; fail "SIGINT: no message with the command to continue"; }
expect_fail 2 "holds another run's checkpoints and trace.csv: continue that run with carousel mf --resume $T/int," \
  "${PLAIN_ENV[@]}" CAROUSEL_RANKS=1 "$CAROUSEL_BIN" "${LONG[@]}" --out "$T/int"
run_threads resume-int 2 mf --resume "$T/int"
same_outputs "$T/long-ref" "$T/int" "resume after SIGINT on 2 thread ranks"
ok "SIGINT on 2 thread ranks: exit 7 with a checkpoint and the command to continue; that command finishes the same chain"

# A run killed before any checkpoint leaves no way to continue: the advice says so.
mkdir -p "$T/killed" && printf 'iter,rmse\n' >"$T/killed/trace.csv"
expect_fail 2 "holds another run's trace.csv, and no checkpoint to continue it from: replace it with --overwrite" \
  "${PLAIN_ENV[@]}" CAROUSEL_RANKS=1 "$CAROUSEL_BIN" "${LONG[@]}" --out "$T/killed"
ok "an --out with another run's trace.csv and no checkpoint: --overwrite is suggested, not --resume"
