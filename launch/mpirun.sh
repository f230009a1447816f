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
mpirun --oversubscribe -np "$np" "$bin" "$@" &
pid=$!
trap 'kill -USR2 "$pid" 2>/dev/null || true' TERM
rc=0
while :; do
  wait "$pid" && rc=0 || rc=$?
  kill -0 "$pid" 2>/dev/null || break # wait was cut short by the trapped signal
done
exit "$rc"
