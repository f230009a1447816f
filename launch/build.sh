#!/usr/bin/env bash
# Configures and builds Carousel in Release mode into build/ (or $CAROUSEL_BUILD_DIR).
# By default it builds everything: the tests, benchmarks, man page and header checks
# included. CAROUSEL_BUILD_TARGETS=carousel builds the binary alone and configures none of
# the rest (launch/demo.sh). Further arguments go to cmake.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${CAROUSEL_BUILD_DIR:-$root/build}"
# Every part is named explicitly either way, so that a build directory configured by one
# mode builds everything again in the other.
if [ -n "${CAROUSEL_BUILD_TARGETS:-}" ]; then parts=OFF; else parts=ON; fi
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCAROUSEL_TESTS=$parts \
  -DCAROUSEL_BENCH=$parts -DCAROUSEL_MAN_PAGE=$parts -DCAROUSEL_HEADER_CHECKS=$parts "$@" >/dev/null
targets=()
for t in ${CAROUSEL_BUILD_TARGETS:-}; do targets+=(--target "$t"); done
cmake --build "$build" -j "$(nproc)" "${targets[@]}"
