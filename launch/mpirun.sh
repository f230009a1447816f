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
exec mpirun --oversubscribe -np "$np" "$bin" "$@"
