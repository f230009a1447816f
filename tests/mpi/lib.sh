# shellcheck shell=bash disable=SC2034  # globals set here are read by the sourcing tests
# Shared helpers for the end-to-end tests of the `carousel` binary under mpirun.
# Sourced by every tests/mpi/*.sh (this file is not a test itself).
#
# Environment (set by ctest, see tests/CMakeLists.txt; give them yourself to run a script
# standalone):
#   CAROUSEL_BIN          path of the built carousel binary
#   CAROUSEL_SHARED_DATA  directory holding ml-100k/u1.base, u1.test, u.data (the mf tests)
#                         and kos/, reuters/ (the lda tests); each script checks for the
#                         data it uses (require_ml100k, require_lda_data)
#   MPIEXEC               mpirun / mpiexec (default: mpirun)
#   CAROUSEL_TEST_TIMEOUT seconds after which one carousel run counts as hung (default 120)
#   CAROUSEL_KEEP_TMP     set to 1 to keep the temp dir for inspection
#
#   CAROUSEL_BIN=build/carousel CAROUSEL_SHARED_DATA=../shared/data MPIEXEC=mpirun \
#     bash tests/mpi/invariance.sh
set -euo pipefail

: "${CAROUSEL_BIN:?set CAROUSEL_BIN to the carousel binary}"
: "${CAROUSEL_SHARED_DATA:?set CAROUSEL_SHARED_DATA to the shared data directory}"
MPIEXEC=${MPIEXEC:-mpirun}
[[ -n $MPIEXEC ]] || MPIEXEC=mpirun
CAROUSEL_TEST_TIMEOUT=${CAROUSEL_TEST_TIMEOUT:-120}

# CI runs as root on 2 cores; the tests use up to 4 ranks.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
# No MPI warnings about missing high-speed interconnects on CI machines.
export OMPI_MCA_btl_base_warn_component_unused=0
# Shared memory on one machine without Open MPI's UCX probe first (launch/mpirun.sh says
# why): 0.2 s less per mpirun.
export OMPI_MCA_pml=${OMPI_MCA_pml:-ob1}
# A run without mpirun uses one rank per core by default (ranks as threads); the tests
# compare such runs with golden outputs and with mpirun's, so they pin one rank unless a
# test chooses (tests/mpi/thread_ranks.sh).
export CAROUSEL_RANKS=${CAROUSEL_RANKS:-1}

# `"${NO_LAUNCHER_ENV[@]}" CMD`: CMD as a user's shell would start it, without a launcher's
# variables (in case ctest runs inside one).
NO_LAUNCHER_ENV=(env -u OMPI_COMM_WORLD_SIZE -u OMPI_COMM_WORLD_RANK -u PMIX_RANK -u PMI_RANK
  -u PMI_SIZE -u PMI_FD -u MPI_LOCALNRANKS -u SLURM_PROCID -u ALPS_APP_PE -u MV2_COMM_WORLD_RANK
  -u CAROUSEL_MPI)

ML100K=$CAROUSEL_SHARED_DATA/ml-100k
KOS=$CAROUSEL_SHARED_DATA/kos
REUTERS=$CAROUSEL_SHARED_DATA/reuters
[[ -x $CAROUSEL_BIN ]] || { echo "FAIL: CAROUSEL_BIN=$CAROUSEL_BIN is not executable" >&2; exit 1; }
command -v "$MPIEXEC" >/dev/null || { echo "FAIL: MPIEXEC=$MPIEXEC not found" >&2; exit 1; }
CAROUSEL_BIN_REAL=$(readlink -f "$CAROUSEL_BIN")

TEST_NAME=$(basename "$0" .sh)
TEST_TMP=$(mktemp -d "${TMPDIR:-/tmp}/carousel-mpi-$TEST_NAME.XXXXXX")
TEST_START=$SECONDS

# Processes started in the background by start_mpi, ended on exit if still running.
BG_PIDS=()

cleanup() {
  local rc=$?
  local pid
  for pid in "${BG_PIDS[@]}"; do
    kill_run_tree "$pid" 2>/dev/null || true
  done
  if [[ ${CAROUSEL_KEEP_TMP:-0} == 1 ]]; then
    echo "kept $TEST_TMP" >&2
  else
    rm -rf "$TEST_TMP"
  fi
  if [[ $rc == 0 ]]; then
    echo "PASS: $TEST_NAME ($((SECONDS - TEST_START)) s)"
  elif [[ $rc == 77 ]]; then
    echo "SKIPPED: $TEST_NAME"
  else
    echo "FAILED: $TEST_NAME (exit $rc after $((SECONDS - TEST_START)) s)" >&2
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The shared data sets, checked by the scripts that use them (so that a missing data set
# fails only the tests that need it).
require_ml100k() {
  [[ -f $ML100K/u1.base ]] || fail "$ML100K/u1.base not found"
}
require_lda_data() {
  [[ -f $KOS/docword.kos.txt && -f $KOS/vocab.kos.txt ]] || fail "$KOS/docword.kos.txt or vocab.kos.txt not found"
  [[ -f $REUTERS/reuters.ldac && -f $REUTERS/reuters.tokens ]] || fail "$REUTERS/reuters.ldac or reuters.tokens not found"
}

ok() { echo "ok: $*"; }
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
note() { echo "note: $*"; }

# Shows the tail of a log file, to explain a failure.
show_log() {
  local f
  for f in "$@"; do
    [[ -s $f ]] || continue
    echo "---- $f (last 30 lines) ----" >&2
    tail -n 30 "$f" >&2
  done
}

# run_mpi NP ARGS... : runs carousel on NP ranks, stdin from /dev/null, with a timeout so
# that no test can hang. Returns carousel's (mpirun's) exit status; 124 means timed out.
run_mpi() {
  local np=$1
  shift
  timeout -k 10 "$CAROUSEL_TEST_TIMEOUT" \
    "$MPIEXEC" --oversubscribe -np "$np" "$CAROUSEL_BIN" "$@" </dev/null
}

# run_ok NAME NP ARGS... : run_mpi that must exit 0; stdout/stderr go to $TEST_TMP/NAME.log.
run_ok() {
  local name=$1
  shift
  local log=$TEST_TMP/$name.log rc=0
  run_mpi "$@" >"$log" 2>&1 || rc=$?
  if [[ $rc != 0 ]]; then
    show_log "$log"
    [[ $rc == 124 ]] && fail "$name: timed out after ${CAROUSEL_TEST_TIMEOUT}s (hang?): mpirun -np $*"
    fail "$name: exit code $rc, expected 0: mpirun -np $*"
  fi
}

# start_mpi LOG NP ARGS... : like run_mpi, in the background. Sets BG_PID to the pid of
# the timeout wrapper, whose only child is mpirun (see mpirun_pid).
start_mpi() {
  local log=$1 np=$2
  shift 2
  timeout -k 10 "$CAROUSEL_TEST_TIMEOUT" \
    "$MPIEXEC" --oversubscribe -np "$np" "$CAROUSEL_BIN" "$@" </dev/null >"$log" 2>&1 &
  BG_PID=$!
  BG_PIDS+=("$BG_PID")
}

# wait_bg PID : waits for a background run; sets BG_RC to its exit status.
wait_bg() {
  local pid=$1 p rest=()
  BG_RC=0
  { wait "$pid"; } 2>/dev/null || BG_RC=$? # no "Killed" notice from bash
  for p in "${BG_PIDS[@]}"; do [[ $p == "$pid" ]] || rest+=("$p"); done
  BG_PIDS=("${rest[@]}")
}

# alive PID : the process runs (exists and is not a zombie waiting to be reaped).
alive() {
  local state
  state=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null) || return 1
  [[ -n $state && $state != Z ]]
}

# Pids of every process whose command line contains MARKER (a unique temp path), except
# this shell and its helpers: the timeout wrapper, mpirun and the ranks.
pids_with() {
  local marker=$1 pid
  for pid in $(pgrep -f -- "$marker" || true); do
    [[ $pid == "$$" || $pid == "$BASHPID" ]] && continue
    echo "$pid"
  done
}

# Pids of the carousel ranks (the binary itself, not mpirun) whose command line contains
# MARKER.
rank_pids() {
  local marker=$1 pid exe
  for pid in $(pids_with "$marker"); do
    exe=$(readlink -f "/proc/$pid/exe" 2>/dev/null) || continue
    [[ $exe == "$CAROUSEL_BIN_REAL" ]] && echo "$pid"
  done
  return 0
}

# The mpirun (or mpiexec) process started by start_mpi under the timeout wrapper BG_PID.
mpirun_pid() {
  local pid
  pid=$(pgrep -P "$1" | head -n 1)
  [[ -n $pid ]] || fail "no mpirun process under pid $1"
  echo "$pid"
}

# Kills (SIGKILL) a background run started by start_mpi: the timeout wrapper, mpirun and
# all of mpirun's descendants, each by pid.
kill_run_tree() {
  local pids=() queue=("$1") p c
  while ((${#queue[@]})); do
    p=${queue[0]}
    queue=("${queue[@]:1}")
    pids+=("$p")
    for c in $(pgrep -P "$p" || true); do queue+=("$c"); done
  done
  ((${#pids[@]})) && kill -9 "${pids[@]}" 2>/dev/null
  return 0
}

# kill9_run MARKER PID : SIGKILL to every process of the background run PID (the timeout
# wrapper, mpirun, the ranks: all whose command line holds MARKER, a unique temp path),
# each by pid, at once; then waits for it (BG_RC). No "Killed" notice from bash.
kill9_run() {
  local marker=$1 pid=$2
  {
    # shellcheck disable=SC2046  # one word per pid
    kill -9 $(pids_with "$marker") 2>/dev/null || true
    wait_bg "$pid"
  } 2>/dev/null
}

# Checkpoint files (complete ones: temp files end in .tmp.N) under DIR/checkpoints.
checkpoints_of() {
  local f
  for f in "$1"/checkpoints/checkpoint-*.ckpt; do
    [[ -f $f ]] && echo "$f"
  done
  return 0
}

# wait_for_checkpoints DIR N BG_PID [SECONDS] : polls until DIR has at least N checkpoints;
# fails if the run ends or the time runs out first.
wait_for_checkpoints() {
  local dir=$1 n=$2 pid=$3 limit=${4:-60} start=$SECONDS
  while (($(checkpoints_of "$dir" | wc -l) < n)); do
    alive "$pid" || fail "run writing $dir ended before $n checkpoint(s) existed"
    ((SECONDS - start < limit)) || fail "no $n checkpoint(s) under $dir after ${limit}s"
    sleep 0.02
  done
}

# The iteration in a checkpoint's file name.
checkpoint_iteration() {
  local name
  name=$(basename "$1" .ckpt)
  echo $((10#${name#checkpoint-}))
}

# ---------------------------------------------------------------------------------------
# Comparing outputs.

# Every .npy array compared by the rank-invariance and resume tests.
NPY_FILES=(W_mean.npy W_var.npy H_mean.npy H_var.npy W_sample.npy H_sample.npy
  user_bias_mean.npy user_bias_var.npy item_bias_mean.npy item_bias_var.npy
  user_ids.npy item_ids.npy)

# A CSV without its '#' comment lines (the header records the command and rank count).
strip_comments() { grep -v '^#' "$1" || true; }
# trace.csv without comments and without its `seconds` column (column 2).
trace_body() { grep -v '^#' "$1" | cut -d, -f1,3- || true; }

# same_outputs A B WHAT : the two output dirs hold bitwise-identical results.
same_outputs() {
  local a=$1 b=$2 what=$3 f
  for f in "${NPY_FILES[@]}"; do
    [[ -f $a/$f ]] || fail "$what: $a/$f missing"
    [[ -f $b/$f ]] || fail "$what: $b/$f missing"
    cmp -s "$a/$f" "$b/$f" || fail "$what: $f differs ($a vs $b)"
  done
  [[ -s $a/predictions.csv && -s $b/predictions.csv ]] || fail "$what: predictions.csv missing"
  cmp -s <(strip_comments "$a/predictions.csv") <(strip_comments "$b/predictions.csv") ||
    fail "$what: predictions.csv differs (ignoring '#' lines) ($a vs $b)"
  [[ -s $a/trace.csv && -s $b/trace.csv ]] || fail "$what: trace.csv missing"
  [[ $(trace_body "$a/trace.csv" | wc -l) -gt 1 ]] || fail "$what: $a/trace.csv has no rows"
  cmp -s <(trace_body "$a/trace.csv") <(trace_body "$b/trace.csv") ||
    fail "$what: trace.csv differs (ignoring '#' lines and seconds) ($a vs $b)"
}

# same_lda_outputs A B WHAT : the two `carousel lda` output dirs hold bitwise-identical
# results: topic_word.npy, doc_topic.npy, and trace.csv, topics.txt, heldout.txt and the draws
# without '#' lines (they record the command and rank count) and without the trace's seconds column.
same_lda_outputs() {
  local a=$1 b=$2 what=$3 f
  for f in topic_word.npy doc_topic.npy; do
    [[ -s $a/$f && -s $b/$f ]] || fail "$what: $f missing"
    cmp -s "$a/$f" "$b/$f" || fail "$what: $f differs ($a vs $b)"
  done
  for f in topics.txt heldout.txt draws/chain-1.csv; do
    [[ -s $a/$f && -s $b/$f ]] || fail "$what: $f missing"
    [[ -n $(strip_comments "$a/$f") ]] || fail "$what: $a/$f has only comments"
    cmp -s <(strip_comments "$a/$f") <(strip_comments "$b/$f") ||
      fail "$what: $f differs (ignoring '#' lines) ($a vs $b)"
  done
  [[ -s $a/trace.csv && -s $b/trace.csv ]] || fail "$what: trace.csv missing"
  [[ $(trace_body "$a/trace.csv" | wc -l) -gt 1 ]] || fail "$what: $a/trace.csv has no rows"
  cmp -s <(trace_body "$a/trace.csv") <(trace_body "$b/trace.csv") ||
    fail "$what: trace.csv differs (ignoring '#' lines and seconds) ($a vs $b)"
}

# write_uci_corpus FILE D V K TOKENS SEED : a synthetic UCI docword file of D documents
# over V words drawn from K topics on disjoint word ranges (document d: 90% of its TOKENS
# tokens from topic d mod K, the rest uniform over the vocabulary).
write_uci_corpus() {
  awk -v D="$2" -v V="$3" -v K="$4" -v T="$5" -v seed="$6" 'BEGIN {
    srand(seed); width = int(V / K); nnz = 0
    for (d = 1; d <= D; d++) {
      delete c
      for (t = 0; t < T; t++) {
        if (rand() < 0.9) w = ((d - 1) % K) * width + int(rand() * width) + 1
        else w = int(rand() * V) + 1
        c[w]++
      }
      for (w = 1; w <= V; w++) if (w in c) line[++nnz] = d " " w " " c[w]
    }
    print D; print V; print nnz
    for (i = 1; i <= nnz; i++) print line[i]
  }' >"$1"
}

# write_reversed_corpus CORPUS VOCAB V OUT_CORPUS OUT_VOCAB : CORPUS (UCI, V words) with its
# word ids reversed and VOCAB reversed to match, plus a word neither has seen (id 1 of the new
# vocabulary, 3 tokens in document 1): the same documents in another word order.
write_reversed_corpus() {
  awk -v V="$3" 'NR == 1 { print; next } NR == 2 { print V + 1; next } NR == 3 { print $1 + 1; next }
    { print $1, V + 1 - $2 + 1, $3 } END { print 1, 1, 3 }' "$1" >"$4"
  {
    echo "neverseen"
    tac "$2"
  } >"$5"
}

# latest_checkpoint DIR : the newest checkpoint file under DIR (empty if none).
latest_checkpoint() { checkpoints_of "$1" | tail -n 1; }

# wait_for_iteration DIR IT BG_PID : polls until DIR's latest checkpoint is of iteration IT
# or later (only the last 2 checkpoints are kept, so counting them does not do).
wait_for_iteration() {
  local dir=$1 want=$2 pid=$3 start=$SECONDS latest
  while :; do
    latest=$(latest_checkpoint "$dir")
    [[ -n $latest ]] && (($(checkpoint_iteration "$latest") >= want)) && return 0
    alive "$pid" || fail "run writing $dir ended before a checkpoint of iteration $want"
    ((SECONDS - start < 60)) || fail "no checkpoint of iteration $want under $dir after 60s"
    sleep 0.02
  done
}

# resume_checks CMD SAME FINAL WAIT ARGS... : the resume paths of `carousel CMD ARGS` (which
# must checkpoint every few iterations and run a while): (a) a run on 2 ranks killed with
# SIGKILL after its checkpoint of iteration WAIT, resumed on 4 ranks; (b) one stopped by SIGTERM
# to its ranks (exit 7), resumed on 1 rank. Both must end with outputs that SAME (a function
# A B WHAT) finds identical to $TEST_TMP/ref, the uninterrupted run on 2 ranks made first.
# FINAL is an output file that only a finished run writes. $ITERATIONS: the run's length.
resume_checks() {
  local cmd=$1 same=$2 final=$3 wait=$4 t=$TEST_TMP it
  shift 4
  run_ok ref 2 "$cmd" "$@" --out "$t/ref"

  start_mpi "$t/killed.log" 2 "$cmd" "$@" --out "$t/killed"
  wait_for_iteration "$t/killed" "$wait" "$BG_PID"
  sleep 0.1
  kill9_run "$t/killed" "$BG_PID"
  [[ $BG_RC != 0 ]] || fail "the run to be killed had already finished; lengthen it"
  [[ ! -e $t/killed/$final ]] || fail "the killed run wrote its final outputs"
  it=$(checkpoint_iteration "$(latest_checkpoint "$t/killed")")
  ((it >= wait && it < ITERATIONS)) || fail "the killed run's last checkpoint is at iteration $it"
  run_ok resume-killed 4 "$cmd" --resume "$t/killed"
  "$same" "$t/ref" "$t/killed" "resume after kill -9 on 4 ranks"
  ok "killed with SIGKILL after iteration $it, resumed on 4 ranks: identical to the uninterrupted run"

  start_mpi "$t/term.log" 2 "$cmd" "$@" --out "$t/term"
  wait_for_iteration "$t/term" "$wait" "$BG_PID"
  mapfile -t ranks < <(rank_pids "$t/term")
  kill -TERM "${ranks[@]}"
  wait_bg "$BG_PID"
  [[ $BG_RC == 7 ]] || { show_log "$t/term.log"; fail "SIGTERM: exit $BG_RC, expected 7"; }
  run_ok resume-term 1 "$cmd" --resume "$t/term"
  "$same" "$t/ref" "$t/term" "resume after SIGTERM on 1 rank"
  ok "stopped by SIGTERM (exit 7), resumed on 1 rank: identical to the uninterrupted run"
}

# differ A B : the two files differ.
files_differ() { ! cmp -s "$1" "$2"; }

# ---------------------------------------------------------------------------------------
# Expected failures.

# Seconds a failing run may take (it should fail at once).
EXPECT_FAIL_LIMIT=${EXPECT_FAIL_LIMIT:-20}

# expect_fail CODE PATTERN CMD... : CMD exits with CODE within EXPECT_FAIL_LIMIT seconds, and
# its stderr holds PATTERN (a fixed string) exactly once, and at most one
# "carousel: error:" message (one message for the job, not one per rank).
# stdout/stderr are left in $TEST_TMP/last.out / last.err.
expect_fail() {
  local code=$1 pattern=$2
  shift 2
  local out=$TEST_TMP/last.out err=$TEST_TMP/last.err rc=0 start end elapsed count errors
  start=$(date +%s.%N)
  timeout -k 5 "$EXPECT_FAIL_LIMIT" "$@" >"$out" 2>"$err" </dev/null || rc=$?
  end=$(date +%s.%N)
  elapsed=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
  if [[ $rc == 124 || $rc == 137 ]]; then
    show_log "$err"
    fail "did not finish within ${EXPECT_FAIL_LIMIT}s (hang?): $*"
  fi
  if [[ $rc != "$code" ]]; then
    show_log "$out" "$err"
    fail "exit code $rc, expected $code: $*"
  fi
  count=$({ grep -o -F -- "$pattern" "$err" || true; } | wc -l)
  if [[ $count != 1 ]]; then
    show_log "$err"
    fail "stderr holds '$pattern' $count times, expected exactly once: $*"
  fi
  errors=$(grep -c -F 'carousel: error' "$err" || true)
  if ((errors > 1)); then
    show_log "$err"
    fail "$errors error messages, expected one for the whole job: $*"
  fi
  EXPECT_FAIL_MESSAGE=$(grep -F -m 1 -- "$pattern" "$err")
  EXPECT_FAIL_SECONDS=$elapsed
}

# expect_fail_mpi CODE PATTERN NP ARGS... : expect_fail on `mpirun -np NP carousel ARGS...`.
expect_fail_mpi() {
  local code=$1 pattern=$2 np=$3
  shift 3
  expect_fail "$code" "$pattern" "$MPIEXEC" --oversubscribe -np "$np" "$CAROUSEL_BIN" "$@"
}

# stop_run SIGNAL DIR CMD... : starts CMD (carousel started without mpirun, e.g.
# "${NO_LAUNCHER_ENV[@]}" "$CAROUSEL_BIN" mf ...) with `--out DIR` in the background, waits
# for its first checkpoint, sends SIGNAL (TERM, INT) to the carousel process itself (as a
# user's kill or Ctrl-C would, not to the timeout wrapper) and requires exit 7 without final
# outputs.
stop_run() {
  local signal=$1 dir=$2 pid
  shift 2
  timeout -k 10 "$CAROUSEL_TEST_TIMEOUT" "$@" --out "$dir" </dev/null >"$dir.log" 2>&1 &
  pid=$!
  BG_PIDS+=("$pid")
  wait_for_checkpoints "$dir" 1 "$pid"
  pkill "-$signal" -f -- "^$CAROUSEL_BIN .*--out $dir" || fail "no carousel process to signal"
  wait_bg "$pid"
  [[ $BG_RC == 7 ]] || { show_log "$dir.log"; fail "SIG$signal: exit $BG_RC, expected 7"; }
  [[ ! -e $dir/W_mean.npy ]] || fail "SIG$signal: the stopped run wrote final outputs"
}

# sigterm_run DIR CMD... : stop_run with SIGTERM.
sigterm_run() { stop_run TERM "$@"; }

# check_model_json DIR MODEL : DIR/model.json is a MODEL run's (format "carousel MODEL
# model"), holds the members every model's has, and names only files that DIR holds
# (doc/outputs.md, "model.json").
check_model_json() {
  local dir=$1 model=$2
  /usr/bin/python3 - "$dir" "$model" <<'PY' || fail "$dir/model.json is not a complete $model model.json"
import json, os, sys
d, model = sys.argv[1], sys.argv[2]
m = json.load(open(os.path.join(d, "model.json")))
assert m["format"] == f"carousel {model} model", m["format"]
for key in ("format_version", "carousel", "sampler", "seed", "tiles", "iterations", "burn_in",
            "thin", "files"):
    assert key in m, f"no {key}"
assert m["files"], "no files"
for role, name in m["files"].items():
    assert os.path.isfile(os.path.join(d, name)), f"{role}: {name} is not in the run"
PY
}
