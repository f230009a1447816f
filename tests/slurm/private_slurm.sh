# shellcheck shell=bash
# A private single-node Slurm cluster for tests: its own munged (own key and socket), its
# own slurmctld and slurmd (own slurm.conf, ports, state and spool directories), all under
# one temp directory, all stopped and removed when the sourcing shell exits. It touches no
# system-wide Slurm or MUNGE configuration and no running system daemon; only the package
# installation (if slurm-wlm or munge is missing) changes the machine.
#
# Usage (as root, which slurmd and a SlurmUser of root need; no terminal, no systemd):
#   source tests/slurm/private_slurm.sh
#   private_slurm_start          # exports SLURM_CONF; sbatch, srun, squeue... use the cluster
#   sbatch ...                   # PSLURM_PARTITION, PSLURM_CPUS, PSLURM_DIR are set
# private_slurm_start installs an EXIT trap that stops the daemons and removes the temp
# dir, then runs the EXIT trap that was set before it (with the same exit status), so a
# test's own cleanup still runs. Set PSLURM_KEEP=1 to keep the temp dir (logs) for
# inspection.
#
# Environment:
#   PSLURM_TMP   parent of the temp dir (default: $TMPDIR or /tmp)
#   PSLURM_KEEP  1: keep the temp dir at exit
#   PSLURM_CRED_EXPIRE  AuthInfo cred_expire, seconds (default 10): also the time a
#                requeued job waits before it may start again

PSLURM_DIR=""
PSLURM_PARTITION=carousel
PSLURM_CPUS=""
PSLURM_NODE=""
_PSLURM_PIDS=() # munged, slurmctld, slurmd, in start order
_PSLURM_PREV_EXIT_TRAP=""

_pslurm_log() { echo "private_slurm: $*" >&2; }
_pslurm_die() {
  _pslurm_log "ERROR: $*"
  return 1
}

# Installs the packages if a command is missing. Their postinst scripts would start the
# system munged, slurmctld and slurmd (through invoke-rc.d without systemd); a
# policy-rc.d that forbids it is put in place for the installation if there is none
# (as container images usually have), so that no system daemon is started.
private_slurm_install() {
  local missing=() c
  for c in munged mungekey slurmctld slurmd sbatch srun scontrol squeue; do
    command -v "$c" >/dev/null || missing+=("$c")
  done
  ((${#missing[@]})) || return 0
  _pslurm_log "installing slurm-wlm and munge (missing: ${missing[*]})"
  [[ $(id -u) == 0 ]] || _pslurm_die "not root, cannot install slurm-wlm and munge" || return 1
  command -v apt-get >/dev/null || _pslurm_die "no apt-get to install slurm-wlm and munge" || return 1
  local log policy=/usr/sbin/policy-rc.d made_policy=0 installed=0
  log=$(mktemp "${PSLURM_TMP:-${TMPDIR:-/tmp}}/private-slurm-apt.XXXXXX")
  if [[ ! -e $policy ]]; then
    printf '#!/bin/sh\n# tests/slurm/private_slurm.sh: no services start while it installs\nexit 101\n' \
      >"$policy" && chmod 755 "$policy" && made_policy=1
  fi
  # A stale package list may name versions gone from the mirror: update and try again.
  if { DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
    slurm-wlm munge </dev/null >"$log" 2>&1 ||
    { DEBIAN_FRONTEND=noninteractive apt-get update -q </dev/null >>"$log" 2>&1 &&
      DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
        slurm-wlm munge </dev/null >>"$log" 2>&1; }; }; then
    installed=1
  fi
  ((made_policy == 0)) || rm -f "$policy"
  if ((installed == 0)); then
    tail -n 20 "$log" >&2
    rm -f "$log"
    _pslurm_die "apt-get could not install slurm-wlm and munge" || return 1
  fi
  rm -f "$log"
  for c in "${missing[@]}"; do
    command -v "$c" >/dev/null || _pslurm_die "$c still missing after installing slurm-wlm and munge" || return 1
  done
}

# A TCP port nothing listens on, from a random start in 20000-59999 (two test runs at
# once pick different ports with high probability; the daemons fail loudly otherwise).
_pslurm_free_port() {
  local p=$((20000 + RANDOM % 40000)) tries
  for ((tries = 0; tries < 200; tries++, p++)); do
    [[ " $* " == *" $p "* ]] && continue # already picked for another daemon
    if command -v ss >/dev/null; then
      [[ -z $(ss -Htan "( sport = :$p )" 2>/dev/null) ]] && { echo "$p"; return 0; }
    elif ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
      echo "$p"
      return 0
    fi
  done
  _pslurm_die "no free TCP port found"
}

# _pslurm_wait SECONDS WHAT CMD... : polls CMD every 0.2 s until it succeeds.
_pslurm_wait() {
  local limit=$1 what=$2 start=$SECONDS
  shift 2
  until "$@" >/dev/null 2>&1; do
    ((SECONDS - start < limit)) || _pslurm_die "$what not ready after ${limit}s" || return 1
    sleep 0.2
  done
}

_pslurm_munge_ok() { munge -n -S "$1" | unmunge -S "$1"; }

_pslurm_node_idle() {
  [[ $(sinfo -h -n "$PSLURM_NODE" -o %t 2>/dev/null) == idle ]]
}

_pslurm_show_logs() {
  local f
  for f in "$PSLURM_DIR"/log/*.log; do
    [[ -s $f ]] || continue
    echo "---- $f (last 15 lines) ----" >&2
    tail -n 15 "$f" >&2
  done
}

private_slurm_start() {
  [[ -z $PSLURM_DIR ]] || _pslurm_die "already started ($PSLURM_DIR)" || return 1
  [[ $(id -u) == 0 ]] || _pslurm_die "must run as root (slurmd, SlurmUser=root)" || return 1
  private_slurm_install || return 1

  PSLURM_DIR=$(mktemp -d "${PSLURM_TMP:-${TMPDIR:-/tmp}}/private-slurm.XXXXXX") || return 1
  # munged refuses a socket whose directory is not searchable by everyone (clients of
  # any user must reach it); the key itself stays 0600 in a 0700 directory.
  chmod 755 "$PSLURM_DIR"
  mkdir -p "$PSLURM_DIR"/{munge,key,log,state,spool,run}
  chmod 700 "$PSLURM_DIR/key"

  _PSLURM_PREV_EXIT_TRAP=$(trap -p EXIT)
  trap _pslurm_on_exit EXIT

  # Slurm variables from the caller's environment (a test run inside a Slurm job, say)
  # would be taken as options by sbatch and srun, or name another cluster.
  local v
  for v in $(compgen -e); do
    case $v in SLURM_* | SBATCH_* | SRUN_* | SALLOC_* | SQUEUE_* | SCONTROL_*) unset "$v" ;; esac
  done

  # --- MUNGE: own key, socket, pid, log and seed file. --------------------------------
  local sock=$PSLURM_DIR/munge/munge.sock
  mungekey --create --bits 1024 --keyfile "$PSLURM_DIR/key/munge.key" >/dev/null 2>&1 ||
    dd if=/dev/urandom of="$PSLURM_DIR/key/munge.key" bs=1 count=1024 status=none
  chmod 600 "$PSLURM_DIR/key/munge.key"
  munged --key-file="$PSLURM_DIR/key/munge.key" --socket="$sock" \
    --pid-file="$PSLURM_DIR/run/munged.pid" --log-file="$PSLURM_DIR/log/munged.log" \
    --seed-file="$PSLURM_DIR/run/munged.seed" </dev/null ||
    { _pslurm_show_logs; _pslurm_die "munged did not start"; } || return 1
  _pslurm_wait 10 "munged pid file" test -s "$PSLURM_DIR/run/munged.pid" || return 1
  _PSLURM_PIDS+=("$(<"$PSLURM_DIR/run/munged.pid")")
  _pslurm_wait 10 "munged" _pslurm_munge_ok "$sock" ||
    { _pslurm_show_logs; return 1; }

  # --- slurm.conf ----------------------------------------------------------------------
  local host ctld_port slurmd_port node_line
  host=$(hostname -s)
  PSLURM_NODE=$host
  ctld_port=$(_pslurm_free_port) || return 1
  slurmd_port=$(_pslurm_free_port "$ctld_port") || return 1
  # The node as slurmd itself detects it (CPUs, sockets, cores, threads, RealMemory), so
  # that the node registers without being drained for a mismatch.
  node_line=$(slurmd -C 2>/dev/null | grep '^NodeName=') ||
    _pslurm_die "slurmd -C did not describe this node" || return 1
  node_line="NodeName=$host ${node_line#NodeName=* }"
  PSLURM_CPUS=$(sed -n 's/.* CPUs=\([0-9]*\).*/\1/p' <<<"$node_line")

  cat >"$PSLURM_DIR/slurm.conf" <<EOF
# Generated by tests/slurm/private_slurm.sh: a private single-node cluster.
ClusterName=carouseltest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
# Daemons run as root: no slurm user or system directories needed.
SlurmUser=root
SlurmdUser=root
# Our own munged. cred_expire also sets how long a requeued job waits before it may
# start again (default 120 s, too long for a test; see slurm_requeue.sh).
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$sock,cred_expire=${PSLURM_CRED_EXPIRE:-10}
StateSaveLocation=$PSLURM_DIR/state
SlurmdSpoolDir=$PSLURM_DIR/spool
SlurmctldPidFile=$PSLURM_DIR/run/slurmctld.pid
SlurmdPidFile=$PSLURM_DIR/run/slurmd.pid
SlurmctldLogFile=$PSLURM_DIR/log/slurmctld.log
SlurmdLogFile=$PSLURM_DIR/log/slurmd.log
# No mail (the default MailProg does not exist in a container).
MailProg=/bin/true
# No SPANK plugins from a system /etc/slurm/plugstack.conf.
PlugStackConfig=$PSLURM_DIR/plugstack.conf
SlurmctldDebug=info
SlurmdDebug=info
# No cgroup or systemd in a container: track processes through /proc, no task binding.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
# The job script must detect the MPI plugin itself (srun --mpi=list), as on a cluster
# whose default is none.
MpiDefault=none
# One job at a time per core; a 2-task job takes both cores of a 2-core machine.
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
# Test pending jobs every 2 s instead of every 60 s, so that a requeued job starts
# again as soon as it may.
SchedulerParameters=sched_interval=2
JobRequeue=1
ReturnToService=2
# Processes get 10 s between SIGTERM and SIGKILL at the time limit (default 30).
KillWait=10
# Finished jobs stay visible to scontrol/squeue for 5 minutes (the default), long enough
# for a test to read their final state.
MinJobAge=300
# The one node, this host, reached on the loopback address (its name need not resolve).
$node_line NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=$PSLURM_PARTITION Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
  : >"$PSLURM_DIR/plugstack.conf"
  export SLURM_CONF=$PSLURM_DIR/slurm.conf

  # --- the daemons -----------------------------------------------------------------------
  # -i: ignore state from a previous run (there is none, the state dir is new).
  slurmctld -i -f "$SLURM_CONF" </dev/null >>"$PSLURM_DIR/log/slurmctld.out" 2>&1 ||
    { _pslurm_show_logs; _pslurm_die "slurmctld did not start"; } || return 1
  _pslurm_wait 20 "slurmctld pid file" test -s "$PSLURM_DIR/run/slurmctld.pid" || return 1
  _PSLURM_PIDS+=("$(<"$PSLURM_DIR/run/slurmctld.pid")")
  _pslurm_wait 30 "slurmctld" scontrol ping || { _pslurm_show_logs; return 1; }

  slurmd -f "$SLURM_CONF" -N "$host" </dev/null >>"$PSLURM_DIR/log/slurmd.out" 2>&1 ||
    { _pslurm_show_logs; _pslurm_die "slurmd did not start"; } || return 1
  _pslurm_wait 20 "slurmd pid file" test -s "$PSLURM_DIR/run/slurmd.pid" || return 1
  _PSLURM_PIDS+=("$(<"$PSLURM_DIR/run/slurmd.pid")")
  _pslurm_wait 60 "node $host idle" _pslurm_node_idle ||
    { sinfo -N -l >&2 || true; _pslurm_show_logs; return 1; }
  _pslurm_start_watchdog
  _pslurm_log "cluster up: $SLURM_CONF, node $host ($PSLURM_CPUS CPUs), partition $PSLURM_PARTITION"
}

# _pslurm_end_daemons DIR PIDS... : ends the cluster living in DIR: its jobs (scancel,
# while slurmctld can still end them cleanly), then each daemon pid (newest first, SIGTERM,
# then SIGKILL after 10 s) and any slurmstepd of its slurmd. A process is ended only if
# its command line or environment names DIR, so a reused pid is never hit.
_pslurm_end_daemons() {
  local dir=$1 i pid waited
  shift
  local pids=("$@")
  if SLURM_CONF=$dir/slurm.conf scontrol ping >/dev/null 2>&1; then
    SLURM_CONF=$dir/slurm.conf scancel --full --signal=KILL --partition="$PSLURM_PARTITION" \
      >/dev/null 2>&1 || true
  fi
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    pid=${pids[i]}
    _pslurm_is_ours "$dir" "$pid" || continue
    kill -TERM "$pid" 2>/dev/null || continue
    for ((waited = 0; waited < 50; waited++)); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.2
    done
    kill -KILL "$pid" 2>/dev/null || true
  done
  # slurmstepd processes outlive slurmd (they inherit its SLURM_CONF).
  for pid in $(pgrep -x slurmstepd || true); do
    _pslurm_is_ours "$dir" "$pid" && kill -KILL "$pid" 2>/dev/null
  done
  return 0
}

_pslurm_is_ours() {
  grep -qF "$1" "/proc/$2/cmdline" 2>/dev/null ||
    tr '\0' '\n' <"/proc/$2/environ" 2>/dev/null | grep -qxF "SLURM_CONF=$1/slurm.conf"
}

# A watchdog outside this shell's process tree ends the cluster if this shell dies
# without running its EXIT trap (SIGKILL, as from a ctest timeout). It stops watching
# once private_slurm_stop removes the run/active marker.
_pslurm_start_watchdog() {
  local owner=$$ dir=$PSLURM_DIR keep=${PSLURM_KEEP:-0}
  local pids=("${_PSLURM_PIDS[@]}")
  touch "$dir/run/active"
  (
    (
      trap '' INT TERM HUP
      while [[ -e $dir/run/active ]] && kill -0 "$owner" 2>/dev/null; do sleep 2; done
      if [[ -e $dir/run/active ]]; then
        _pslurm_end_daemons "$dir" "${pids[@]}"
        [[ $keep == 1 ]] || rm -rf "$dir"
      fi
    ) </dev/null >/dev/null 2>&1 &
  )
}

# Stops the cluster and removes its temp dir (unless PSLURM_KEEP=1).
private_slurm_stop() {
  [[ -n $PSLURM_DIR ]] || return 0
  rm -f "$PSLURM_DIR/run/active"
  _pslurm_end_daemons "$PSLURM_DIR" "${_PSLURM_PIDS[@]}"
  _PSLURM_PIDS=()
  if [[ ${PSLURM_KEEP:-0} == 1 ]]; then
    _pslurm_log "kept $PSLURM_DIR"
  else
    rm -rf "$PSLURM_DIR"
  fi
  PSLURM_DIR=""
}

_pslurm_on_exit() {
  local rc=$?
  set +e
  private_slurm_stop
  if [[ -n $_PSLURM_PREV_EXIT_TRAP ]]; then
    # `trap -p` printed: trap -- 'COMMAND' EXIT; run COMMAND with $? still the status.
    local -a words
    eval "words=(${_PSLURM_PREV_EXIT_TRAP})"
    (exit "$rc")
    eval "${words[2]}"
  fi
  exit "$rc"
}
