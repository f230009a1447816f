#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# launch/slurm.sbatch on a real (private, single-node) Slurm: a job with a 1-minute time
# limit gets the warning signal, checkpoints, stops with exit code 7 before the limit,
# requeues itself and resumes, until the chain is done; its outputs are bitwise identical
# to an uninterrupted `mpirun -np 2` run. Also checks that the script picks srun's pmix
# plugin (the cluster's MpiDefault is none) and appends to its log across requeues.
#
# Needs root (slurmd) and slurm-wlm + munge, which tests/slurm/private_slurm.sh installs
# with apt-get when missing. Environment: CAROUSEL_BIN (required), MPIEXEC,
# CAROUSEL_KEEP_TMP=1 and PSLURM_KEEP=1 keep the temp dirs, TIMELINE_OUT=FILE saves the
# timeline of the job, SLURM_TEST_CHAIN_SECONDS the sampling time of the chain on 2 ranks
# (default 50).
#
#   CAROUSEL_BIN=build/carousel bash tests/slurm/slurm_requeue.sh

# tests/mpi/lib.sh gives the mpirun helpers and the output comparison of the resume tests.
# This test reads no shared data set, and its reference run is long.
: "${CAROUSEL_SHARED_DATA:=/nonexistent}"
: "${CAROUSEL_TEST_TIMEOUT:=400}"
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../mpi/lib.sh
source "$here/../mpi/lib.sh"
# shellcheck source=private_slurm.sh
source "$here/private_slurm.sh"

T=$TEST_TMP
SBATCH_SCRIPT=$here/../../launch/slurm.sbatch
CHAIN_SECONDS=${SLURM_TEST_CHAIN_SECONDS:-50}
JOB_LIMIT=420 # seconds the job may take from submission to completion

# ---------------------------------------------------------------------------------------
# Timeline: "EPOCH<TAB>TEXT" lines, sorted and printed at the end (and on failure).
TIMELINE=$T/timeline.raw
SUBMIT_TIME=""
event_at() { printf '%s\t%s\n' "$1" "$2" >>"$TIMELINE"; }
event() { event_at "$(date +%s.%N)" "$*"; }
print_timeline() {
  [[ -s $TIMELINE ]] || return 0
  local t0=${SUBMIT_TIME:-$(sort -n "$TIMELINE" | head -n 1 | cut -f1)}
  sort -s -n -k1,1 "$TIMELINE" | awk -F '\t' -v t0="$t0" '{
    cmd = "date -d @" int($1) " +%H:%M:%S"; cmd | getline hms; close(cmd)
    printf "%s  %+7.1fs  %s\n", hms, $1 - t0, $2 }'
}
show_timeline() {
  local out
  out=$(print_timeline)
  [[ -n $out ]] || return 0
  echo "---- timeline (seconds from submission) ----"
  echo "$out"
  if [[ -n ${TIMELINE_OUT:-} ]]; then
    echo "$out" >"$TIMELINE_OUT"
    echo "timeline saved to $TIMELINE_OUT"
  fi
}

# ---------------------------------------------------------------------------------------
# The cluster. A failed start (for instance apt-get unable to install) fails the test.
private_slurm_start || fail "could not start a private Slurm cluster (see the messages above)"
((PSLURM_CPUS >= 2)) || fail "the node has $PSLURM_CPUS CPU(s); the 2-task job needs 2"
ok "private Slurm up: node $PSLURM_NODE, $PSLURM_CPUS CPU(s), SLURM_CONF=$SLURM_CONF"

# ---------------------------------------------------------------------------------------
# Data: `carousel gen mf` writes either one ratings file or a directory with train.txt
# and test.txt, depending on the version.
"$CAROUSEL_BIN" gen mf --users 20000 --items 5000 --ratings 1000000 --rank 5 --seed 5 \
  --out "$T/data" >"$T/gen.log" 2>&1 || { show_log "$T/gen.log"; fail "carousel gen mf failed"; }
if [[ -d $T/data ]]; then
  DATA=(--train "$T/data/train.txt" --test "$T/data/test.txt")
else
  DATA=(--train "$T/data" --test-fraction 0.1)
fi

# Periodic checkpoints by time, where this carousel has them (same settings for the
# reference run: checkpoints do not change the chain).
CKPT_OPTS=()
CHECKPOINT_MINUTES=""
mf_help=$("$CAROUSEL_BIN" mf --help 2>&1 || true)
if [[ $mf_help == *--checkpoint-minutes* ]]; then
  CHECKPOINT_MINUTES=0.25
  CKPT_OPTS=(--checkpoint-minutes "$CHECKPOINT_MINUTES")
fi
OPTS=(--rank 10 --tiles 2 --seed 11 --quiet)

# The chain's length: about CHAIN_SECONDS of sampling on 2 ranks at the speed of a short
# run, so that the test's duration does not depend much on the machine.
# The sampling time carousel reports ("N iterations on 2 rank(s) in S s").
sampling_seconds() {
  sed -n 's/.* iterations on [0-9]* rank(s) in \([0-9.]*\) s.*/\1/p' "$1" | head -n 1
}
calib_iterations=300
run_ok calibrate 2 mf "${DATA[@]}" "${OPTS[@]}" --iterations "$calib_iterations" --out "$T/calibrate"
seconds=$(sampling_seconds "$T/calibrate.log")
[[ -n $seconds ]] || fail "no sampling time in $T/calibrate.log"
ITERATIONS=$(awk -v n="$calib_iterations" -v s="$seconds" -v target="$CHAIN_SECONDS" 'BEGIN {
  it = int(n * target / s / 100) * 100; if (it < 1000) it = 1000; if (it > 100000) it = 100000
  print it }')
ok "calibration: $calib_iterations iterations in ${seconds}s; the chain has $ITERATIONS iterations"
CHECKPOINT_EVERY=$((ITERATIONS / 4))
RUN=("${OPTS[@]}" --iterations "$ITERATIONS" --checkpoint-every "$CHECKPOINT_EVERY")

# ---------------------------------------------------------------------------------------
# The uninterrupted reference.
run_ok reference 2 mf "${DATA[@]}" "${RUN[@]}" "${CKPT_OPTS[@]}" --out "$T/ref"
ref_seconds=$(sampling_seconds "$T/reference.log")
[[ -n $ref_seconds ]] || fail "no sampling time in $T/reference.log"
ok "uninterrupted reference run on 2 ranks: $ITERATIONS iterations in ${ref_seconds}s of sampling"

# ---------------------------------------------------------------------------------------
# The job: 2 tasks and a 1-minute limit. The warning is asked for 55 s before the limit;
# slurmctld looks at its timers every 30 s, so it comes 5 to 35 s after the start. The
# stop comes at the warning or STOP_AFTER seconds after the start, whichever is later
# (CAROUSEL_STOP_MARGIN = 60 - STOP_AFTER), well before the limit is enforced (60 to 90 s):
# a third of the reference's sampling time, 10 to 30 s, so that the job takes about
# three allocations however fast this machine samples just now (the speed of a busy
# machine changes from one minute to the next; a fixed stop time could let the whole
# chain fit in the first allocation).
STOP_AFTER=$(awk -v s="$ref_seconds" 'BEGIN { t = int(s / 3); if (t < 10) t = 10; if (t > 30) t = 30; print t }')
out=$T/job-out
log_file=$T/job.log
export CAROUSEL_BIN CAROUSEL_STOP_MARGIN=$((60 - STOP_AFTER)) CAROUSEL_CHECKPOINT_MINUTES=$CHECKPOINT_MINUTES
SUBMIT_TIME=$(date +%s.%N)
job=$(sbatch --parsable --ntasks=2 --time=1 --signal=B:USR1@55 --output="$log_file" \
  --chdir="$T" "$SBATCH_SCRIPT" mf "${DATA[1]}" "$out" "${DATA[@]:2}" "${RUN[@]}") ||
  fail "sbatch failed"
job=${job%%;*}
event_at "$SUBMIT_TIME" "submitted job $job: sbatch --ntasks=2 --time=1 --signal=B:USR1@55 launch/slurm.sbatch (CAROUSEL_STOP_MARGIN=$CAROUSEL_STOP_MARGIN)"

# Each poll: the job's state, new checkpoints, new lines of the job's log.
field() { sed -n "s/.*[[:space:]]$1=\([^[:space:]]*\).*/\1/p" <<<"$2"; }
last_state="" seen_checkpoints="" log_lines=0 begin_nudges=0 state="" restarts=0
untimed=()
poll() {
  local info reason begin now f it kind line ts text
  info=$(scontrol show job -o "$job" 2>/dev/null) || info=""
  state=$(field JobState "$info")
  restarts=$(field Restarts "$info")
  reason=$(field Reason "$info")
  begin=$(field EligibleTime "$info")
  if [[ -n $state && "$state/$restarts/$reason" != "$last_state" ]]; then
    event "job state $state (restarts ${restarts:-0}, reason ${reason:-None}, eligible ${begin:-?})"
    last_state="$state/$restarts/$reason"
  fi
  # A requeued job may not start before its EligibleTime (Reason=BeginTime): the requeue
  # time plus cred_expire (AuthInfo), so that no credential of the job's previous run
  # (same job id) is still valid when it starts again. The private cluster sets
  # cred_expire=10; should a Slurm version keep the default 120 s, bring the start
  # forward, so that the test does not idle two minutes per requeue.
  if [[ $state == PENDING && $reason == BeginTime && -n $begin && $begin != Unknown ]]; then
    now=$(date +%s)
    if (($(date -d "$begin" +%s) - now > 20 && begin_nudges < 10)); then
      scontrol update jobid="$job" StartTime=now && event "eligible time $begin moved to now"
      begin_nudges=$((begin_nudges + 1))
    fi
  fi
  for f in "$out"/checkpoints/checkpoint-*.ckpt; do
    [[ -f $f && " $seen_checkpoints " != *" $f "* ]] || continue
    seen_checkpoints+=" $f"
    it=$(checkpoint_iteration "$f")
    kind=""
    ((it % CHECKPOINT_EVERY == 0)) && kind=" (--checkpoint-every $CHECKPOINT_EVERY)"
    event_at "$(stat -c %.9Y "$f")" "checkpoint of iteration $it written$kind"
  done
  # The script's lines carry their time; carousel's lines (printed just before it exits,
  # which the script logs at once) take the time of the next script line.
  if [[ -f $log_file ]]; then
    while IFS= read -r line; do
      log_lines=$((log_lines + 1))
      if [[ $line =~ ^\[([0-9T:.-]+)\]\ slurm\.sbatch:\ (.*)$ ]]; then
        ts=$(date -d "${BASH_REMATCH[1]}" +%s.%N) || continue
        for text in "${untimed[@]}"; do
          event_at "$(awk -v t="$ts" 'BEGIN { printf "%.3f", t - 0.001 }')" "$text"
        done
        untimed=()
        event_at "$ts" "script: ${BASH_REMATCH[2]}"
      elif [[ $line == carousel* ]]; then
        untimed+=("${line:0:160}")
      fi
    done < <(tail -n +$((log_lines + 1)) "$log_file")
  fi
}
flush_untimed() {
  for text in "${untimed[@]}"; do event "$text"; done
  untimed=()
}

deadline=$((SECONDS + JOB_LIMIT))
while :; do
  poll
  case $state in
    COMPLETED) break ;;
    FAILED | CANCELLED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY | BOOT_FAIL | DEADLINE | PREEMPTED)
      flush_untimed
      show_timeline
      show_log "$log_file"
      fail "job $job ended in state $state" ;;
  esac
  if ((SECONDS > deadline)); then
    flush_untimed
    show_timeline
    show_log "$log_file"
    scancel "$job" || true
    fail "job $job not done after ${JOB_LIMIT}s (state $state)"
  fi
  sleep 0.5
done
sleep 1
poll
flush_untimed
event "job $job done: state $state, restarts $restarts"
show_timeline

# ---------------------------------------------------------------------------------------
# Checks.
grep -q 'srun --mpi=pmix' "$log_file" || { show_log "$log_file"; fail "the script did not choose srun --mpi=pmix"; }
grep -q 'on 2 rank(s)' "$log_file" || { show_log "$log_file"; fail "the run did not report 2 ranks (one MPI job)"; }
ok "srun --mpi=pmix detected (MpiDefault=none); the two tasks ran as one 2-rank MPI job"
if [[ -n $CHECKPOINT_MINUTES ]]; then
  grep -q -- " mf --train .* --checkpoint-minutes $CHECKPOINT_MINUTES " "$log_file" ||
    fail "the new run was not given --checkpoint-minutes $CHECKPOINT_MINUTES (CAROUSEL_CHECKPOINT_MINUTES)"
fi

starts=$(grep -c 'slurm.sbatch: job .* restart count' "$log_file" || true)
requeues=$(grep -c 'slurm.sbatch: requeueing job' "$log_file" || true)
warnings=$(grep -c 'slurm.sbatch: warning signal' "$log_file" || true)
grep -q 'restart count 0: new run' "$log_file" || fail "the log lacks the first run (not appended to?)"
grep -q 'restart count [1-9][0-9]*: resuming from' "$log_file" || fail "no requeued run resumed (SLURM_RESTART_COUNT > 0)"
((requeues >= 1 && restarts >= 1)) || fail "job requeued $requeues time(s) (Slurm's count: $restarts), expected at least 1"
((starts == requeues + 1)) || fail "$starts runs in the log for $requeues requeue(s)"
((warnings >= requeues)) || fail "$requeues requeue(s) but only $warnings warning signal(s)"
# A resumed run gets --resume OUT and nothing else (the other options are the chain's).
resume_line="slurm.sbatch: srun --mpi=pmix $CAROUSEL_BIN mf --resume $out"
resumes=$(sed 's/^\[[^]]*\] //' "$log_file" | grep -c -x -F "$resume_line" || true)
((resumes == requeues)) || { show_log "$log_file"; fail "$resumes of $requeues requeued runs ran 'carousel mf --resume OUT' and nothing else"; }
ok "$warnings warning signal(s), $requeues requeue(s) (Slurm: Restarts=$restarts), $starts runs appended to one log"

same_outputs "$T/ref" "$out" "Slurm job requeued $requeues time(s)"
ok "outputs of the requeued job identical to the uninterrupted run"
