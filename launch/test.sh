#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds, runs ctest (unit, statistical
# and mpirun end-to-end tests). Exit code 0 only if every test passes.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/launch/install-deps.sh"
"$root/launch/build.sh"
cd "$root/build"
ctest --output-on-failure --timeout 900 -j "$(nproc)"
