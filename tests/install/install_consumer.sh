#!/usr/bin/env bash
# `cmake --install` into a temp prefix, then the installed tree used as a consumer would:
# the files are where cmake/CarouselInstall.cmake says, the package names no path of the
# source or build tree, tests/install/consumer/ configures with find_package(Carousel),
# builds against Carousel::carousel and runs, and the installed binary runs.
#
# Environment (set by ctest, see tests/CMakeLists.txt):
#   CAROUSEL_BUILD_DIR   the configured and built Carousel build tree
#   CAROUSEL_SOURCE_DIR  the Carousel sources
#   CAROUSEL_VERSION     the project version (X.Y.Z)
#   CAROUSEL_MAN_PAGE_FILE  the man page the build made; empty when help2man was missing
#   CMAKE_COMMAND, CMAKE_GENERATOR, CXX_COMPILER: as for the Carousel build
#   CAROUSEL_KEEP_TMP    set to 1 to keep the temp dir for inspection
set -euo pipefail

: "${CAROUSEL_BUILD_DIR:?}" "${CAROUSEL_SOURCE_DIR:?}" "${CAROUSEL_VERSION:?}"
CMAKE_COMMAND=${CMAKE_COMMAND:-cmake}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/carousel-install.XXXXXX")
cleanup() {
  local rc=$?
  if [[ ${CAROUSEL_KEEP_TMP:-0} == 1 ]]; then echo "kept $tmp" >&2; else rm -rf "$tmp"; fi
  ((rc == 0)) && echo "PASS: install_consumer ($SECONDS s)"
  exit "$rc"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
ok() { echo "ok: $*"; }
# run LOG CMD... : CMD with its output in LOG, shown when it fails.
run() {
  local log=$1
  shift
  if ! "$@" >"$log" 2>&1; then
    tail -n 40 "$log" >&2
    fail "$*"
  fi
}

prefix=$tmp/prefix
run "$tmp/install.log" "$CMAKE_COMMAND" --install "$CAROUSEL_BUILD_DIR" --prefix "$prefix"
ok "cmake --install into $prefix"

# The layout (GNUInstallDirs: lib or lib64 depending on the platform).
libdir=''
for d in lib64 lib; do [[ -d $prefix/$d/cmake/Carousel ]] && libdir=$d; done
[[ -n $libdir ]] || fail "no lib/cmake/Carousel under the prefix"
expect=(bin/carousel include/carousel/version.hpp include/carousel/comm/ordered_sum.hpp
  include/carousel/model/bpmf/mf_generator.hpp include/carousel/util/error.hpp
  "$libdir/cmake/Carousel/CarouselConfig.cmake" "$libdir/cmake/Carousel/CarouselConfigVersion.cmake"
  "$libdir/cmake/Carousel/CarouselTargets.cmake" "$libdir/cmake/Carousel/CarouselHeaderOnlyDeps.cmake"
  share/bash-completion/completions/carousel)
for layer in util data comm io sampler model engine analysis driver cli; do
  expect+=("$libdir/libcarousel_$layer.a")
done
[[ -n ${CAROUSEL_MAN_PAGE_FILE:-} ]] && expect+=(share/man/man1/carousel.1)
for f in "${expect[@]}"; do
  [[ -s $prefix/$f ]] || fail "$f not installed"
done
[[ -x $prefix/bin/carousel ]] || fail "bin/carousel is not executable"
# Headers only: no template, no private header of src/.
stray=$(find "$prefix/include" -type f ! -name '*.hpp')
[[ -z $stray ]] || fail "non-header files installed under include/: $stray"
[[ ! -e $prefix/include/carousel/version.hpp.in ]] || fail "version.hpp.in installed"
ok "${#expect[@]} expected files installed"

# A relocatable package: nothing in it points back into the trees it was built from.
if grep -rlF -e "$CAROUSEL_SOURCE_DIR/" -e "$CAROUSEL_BUILD_DIR/" "$prefix/$libdir/cmake"; then
  fail "the installed CMake package names the source or build tree (files above)"
fi
ok "the CMake package names no path of the source or build tree"

# The installed binary.
"$prefix/bin/carousel" --version >"$tmp/version.txt" || fail "installed carousel --version failed"
[[ $(head -n 1 "$tmp/version.txt") == "carousel $CAROUSEL_VERSION" ]] ||
  fail "installed carousel --version says '$(head -n 1 "$tmp/version.txt")'"
ok "installed bin/carousel runs"

# The consumer project: configure, build, run.
generator=()
[[ -n ${CMAKE_GENERATOR:-} ]] && generator=(-G "$CMAKE_GENERATOR")
compiler=()
[[ -n ${CXX_COMPILER:-} ]] && compiler=(-DCMAKE_CXX_COMPILER="$CXX_COMPILER")
run "$tmp/configure.log" "$CMAKE_COMMAND" "${generator[@]}" "${compiler[@]}" \
  -S "$CAROUSEL_SOURCE_DIR/tests/install/consumer" -B "$tmp/consumer-build" \
  -DCMAKE_PREFIX_PATH="$prefix"
grep -qF "Carousel $CAROUSEL_VERSION from $prefix/$libdir/cmake/Carousel" "$tmp/configure.log" ||
  { tail -n 20 "$tmp/configure.log" >&2; fail "find_package(Carousel) did not find the installed package"; }
ok "find_package(Carousel) found the installed package"
run "$tmp/build.log" "$CMAKE_COMMAND" --build "$tmp/consumer-build" -j 2
ok "the consumer builds against Carousel::carousel"

"$tmp/consumer-build/consumer" >"$tmp/consumer.out" 2>&1 ||
  { cat "$tmp/consumer.out" >&2; fail "the consumer exited with an error"; }
expect_line() {
  grep -qx -- "$1" "$tmp/consumer.out" || { cat "$tmp/consumer.out" >&2; fail "consumer output lacks '$1'"; }
}
expect_line "version $CAROUSEL_VERSION"
expect_line "ranks 1"
expect_line "ratings 600"
grep -qE '^mean [1-5]\.[0-9]{4}$' "$tmp/consumer.out" || fail "consumer output lacks the mean rating"
grep -qE '^mpi .+' "$tmp/consumer.out" || fail "consumer output lacks the MPI library version"
ok "the consumer runs: $(tr '\n' ';' <"$tmp/consumer.out")"
