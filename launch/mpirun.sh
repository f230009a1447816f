#!/usr/bin/env bash
# mpirun for Carousel on one machine: `launch/mpirun.sh NP carousel-args...`.
# Allows running as root (containers, CI) and more ranks than cores.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
np="$1"
shift
bin="${CAROUSEL_BIN:-$root/build/carousel}"
if [ "$(id -u)" -eq 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
# SIGTERM to this script stops the job with a checkpoint and exit code 7, as SIGTERM to a
# rank does: Open MPI 4's mpirun answers SIGTERM itself by killing its ranks (and exits 1),
# but forwards SIGUSR2, which Carousel takes as "checkpoint and stop".
# Ranks on one machine talk through shared memory (Open MPI's ob1 with its vader
# transport), which Open MPI picks anyway here, but only after probing UCX for network
# devices: 0.2 of the 0.31 s a 2-rank start took on a 2-core VM. Naming ob1 skips the
# probe (0.11 s). A value set by the user wins; launch/slurm.sbatch, for clusters whose
# network needs UCX, does not set it.
export OMPI_MCA_pml="${OMPI_MCA_pml:-ob1}"
mpirun --oversubscribe -np "$np" "$bin" "$@" &
pid=$!
trap 'kill -USR2 "$pid" 2>/dev/null || true' TERM
rc=0
while :; do
  wait "$pid" && rc=0 || rc=$?
  kill -0 "$pid" 2>/dev/null || break # wait was cut short by the trapped signal
done
exit "$rc"
