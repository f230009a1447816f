#!/usr/bin/env bash
# Configures and builds Carousel in Release mode into build/ (or $CAROUSEL_BUILD_DIR).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${CAROUSEL_BUILD_DIR:-$root/build}"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
# CAROUSEL_BUILD_TARGETS (e.g. "carousel"): build only those; by default everything, the
# tests and benchmarks included.
targets=()
for t in ${CAROUSEL_BUILD_TARGETS:-}; do targets+=(--target "$t"); done
cmake --build "$build" -j "$(nproc)" "${targets[@]}"
