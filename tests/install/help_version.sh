#!/usr/bin/env bash
# The texts help2man and the bash completion read, and `carousel version`:
#   carousel --help       exit 0, a "Usage: carousel" synopsis, the commands;
#   carousel --version    exactly "carousel X.Y.Z";
#   carousel version      that line, then commit, compiler, build type, flags, native,
#                         MPI library and huge pages, each present and not empty; no MPI
#                         job needed; huge pages requested unless GLIBC_TUNABLES opts out;
#   carousel version --help / with a stray argument: help (0) / usage error (2);
#   the man page, when the build made one (help2man found): synopsis and commands.
#
# Environment (set by ctest): CAROUSEL_BIN, CAROUSEL_SOURCE_DIR, CAROUSEL_VERSION, and
# CAROUSEL_MAN_PAGE_FILE (empty when no man page was made).
set -euo pipefail
: "${CAROUSEL_BIN:?}" "${CAROUSEL_SOURCE_DIR:?}" "${CAROUSEL_VERSION:?}"

fail() {
  echo "FAIL: $*" >&2
  exit 1
}
ok() { echo "ok: $*"; }

help=$("$CAROUSEL_BIN" --help) || fail "carousel --help exited with an error"
[[ $(head -n 1 <<<"$help") == "Usage: carousel COMMAND [OPTIONS]" ]] ||
  fail "carousel --help does not start with the Usage: line help2man reads: $(head -n 1 <<<"$help")"
for command in mf lda dpmix sam amf corpus "gen mf" "gen lda" predict samplers version; do
  grep -qE "^  $command  " <<<"$help" || fail "carousel --help does not list '$command'"
done
rc=0
"$CAROUSEL_BIN" >/dev/null || rc=$?
((rc == 2)) || fail "carousel without a command exited $rc, expected 2"
ok "carousel --help lists the commands; no command is a usage error"

short=$("$CAROUSEL_BIN" --version) || fail "carousel --version exited with an error"
[[ $short == "carousel $CAROUSEL_VERSION" ]] || fail "carousel --version says '$short'"
ok "carousel --version: $short"

report=$(timeout 20 "$CAROUSEL_BIN" version </dev/null) || fail "carousel version exited with an error"
[[ $(head -n 1 <<<"$report") == "carousel $CAROUSEL_VERSION" ]] ||
  fail "carousel version does not start with 'carousel $CAROUSEL_VERSION'"
# field KEY : the value of the "KEY: value" line, which must be there and not empty.
field() {
  local value
  value=$(sed -n "s/^$1: //p" <<<"$report")
  [[ -n $value ]] || fail "carousel version has no '$1:' line (or it is empty):"$'\n'"$report"
  echo "$value"
}
commit=$(field commit)
field compiler >/dev/null
field "build type" >/dev/null
field flags >/dev/null
native=$(field native)
mpi=$(field "MPI library")
[[ $native == "on (-march=native)" || $native == off ]] || fail "native: '$native'"
[[ $mpi != unknown ]] || fail "the MPI library did not report its version"
# Built from a git checkout, the commit is known (CI builds a clone).
if git -C "$CAROUSEL_SOURCE_DIR" rev-parse --show-toplevel >/dev/null 2>&1; then
  [[ $commit =~ ^[A-Za-z0-9._/+-]+$ && $commit != unknown ]] ||
    fail "commit '$commit' from a git checkout"
fi
ok "carousel version:"$'\n'"$report"

# Huge pages: carousel restarts itself with glibc.malloc.hugetlb=1 added to GLIBC_TUNABLES
# (util/malloc_policy.hpp), keeping the tunables it was given; a given hugetlb is left alone.
# Control: run with the opt-out, the same report says "not requested".
pages=$(field "huge pages")
[[ $pages == "requested (GLIBC_TUNABLES=glibc.malloc.hugetlb=1; "* ]] ||
  fail "huge pages: '$pages', expected requested with glibc.malloc.hugetlb=1"
kept=$(GLIBC_TUNABLES=glibc.malloc.check=0 "$CAROUSEL_BIN" version | sed -n 's/^huge pages: //p')
[[ $kept == "requested (GLIBC_TUNABLES=glibc.malloc.check=0:glibc.malloc.hugetlb=1; "* ]] ||
  fail "with another tunable given, huge pages: '$kept'"
off=$(GLIBC_TUNABLES=glibc.malloc.hugetlb=0 "$CAROUSEL_BIN" version | sed -n 's/^huge pages: //p')
[[ $off == "not requested (GLIBC_TUNABLES=glibc.malloc.hugetlb=0; "* ]] ||
  fail "with glibc.malloc.hugetlb=0 given, huge pages: '$off'"
ok "huge pages: $pages; another tunable kept: $kept; opted out: $off"

# A model command restarts with the tunable unless it declines (ModelCommand::huge_pages):
# mf does, lda does not. Read from the running process's environment; each run is stopped
# once it has been seen.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$CAROUSEL_BIN" gen mf --users 300 --items 200 --ratings 20000 --out "$work/r.txt" >/dev/null
"$CAROUSEL_BIN" gen lda --documents 300 --vocabulary 500 --topics 5 --out "$work/c.txt" >/dev/null
# tunables_of COMMAND...: GLIBC_TUNABLES of the command's process once it has started its
# run (its output directory exists), or "none".
tunables_of() {
  env -u GLIBC_TUNABLES CAROUSEL_RANKS=1 "$CAROUSEL_BIN" "$@" --iterations 1000000 --quiet \
    --out "$work/run" >/dev/null 2>&1 &
  local pid=$! seen=none
  for _ in $(seq 100); do
    [ -d "$work/run" ] && break
    sleep 0.1
  done
  seen=$(tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | sed -n 's/^GLIBC_TUNABLES=//p')
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  rm -rf "$work/run"
  echo "${seen:-none}"
}
mf_tunables=$(tunables_of mf --train "$work/r.txt" --rank 4)
[[ $mf_tunables == glibc.malloc.hugetlb=1 ]] || fail "carousel mf runs with GLIBC_TUNABLES '$mf_tunables'"
lda_tunables=$(tunables_of lda --corpus "$work/c.txt" --topics 5)
[[ $lda_tunables == none ]] || fail "carousel lda runs with GLIBC_TUNABLES '$lda_tunables'"
ok "carousel mf runs with GLIBC_TUNABLES=$mf_tunables; carousel lda with none"

vhelp=$("$CAROUSEL_BIN" version --help) || fail "carousel version --help exited with an error"
grep -qF "Usage: carousel version" <<<"$vhelp" || fail "carousel version --help: $vhelp"
rc=0
"$CAROUSEL_BIN" version extra >/dev/null 2>&1 || rc=$?
((rc == 2)) || fail "carousel version extra exited $rc, expected 2"
ok "carousel version --help, and a stray argument is a usage error"

# Help that reads as a user writes: every command's usage line names it in full, defaults
# show, and none of CLI11's type noise ("UINT:UINT in [1 - 1099511627776]", "0.000000").
for cmd in mf lda sam dpmix amf "gen mf" "gen lda" predict summary corpus; do
  # shellcheck disable=SC2086  # "gen mf" is two words
  h=$("$CAROUSEL_BIN" $cmd --help) || fail "carousel $cmd --help exited with an error"
  grep -qF "Usage: carousel $cmd " <<<"$h" || fail "carousel $cmd --help: no 'Usage: carousel $cmd' line: $(head -3 <<<"$h")"
  if grep -Eq '(INT|FLOAT|TEXT):|\[[0-9.e+-]+ - [0-9.e+-]+\]|[0-9]\.000000|1099511627776' <<<"$h"; then
    fail "carousel $cmd --help shows CLI11's type noise: $(grep -E '(INT|FLOAT|TEXT):|\[[0-9.e+-]+ - |[0-9]\.000000|1099511627776' <<<"$h" | head -2)"
  fi
done
grep -qF -- "--users UINT (default 6040)" <<<"$("$CAROUSEL_BIN" gen mf --help)" ||
  fail "carousel gen mf --help shows no defaults"
rc=0
err=$("$CAROUSEL_BIN" mf --train x --sampler sgd 2>&1) || rc=$?
((rc == 2)) && grep -qF "known: sgld, psgld, sghmc, sgnht, sgrld, sgrhmc, hamcmc, gibbs)" <<<"$err" ||
  fail "--sampler sgd: exit $rc, not every sampler mf takes is listed: $err"
err=$("$CAROUSEL_BIN" mf --train x --test-fraction 2 2>&1) || true
grep -qF "'2' is not a number in [0, 0.99]" <<<"$err" || fail "--test-fraction 2: $err"
grep -qF -- "doubling from the default up to --max-iterations (at least 1)" <<<"$("$CAROUSEL_BIN" mf --help)" ||
  fail "carousel mf --help: --iterations does not read 'at least 1' (the 2^40 guard shows)"
ok "every command's help: its full usage line, defaults, no type noise; --sampler sgd lists gibbs; a value out of range is named with its bounds"

if [[ -n ${CAROUSEL_MAN_PAGE_FILE:-} ]]; then
  man=$CAROUSEL_MAN_PAGE_FILE
  [[ -s $man ]] || fail "$man missing (help2man was found at configure time)"
  grep -qx '.SH SYNOPSIS' "$man" || fail "$man has no SYNOPSIS: help2man did not read the Usage: line"
  grep -qF "\"carousel $CAROUSEL_VERSION\"" "$man" || fail "$man does not name carousel $CAROUSEL_VERSION"
  for section in OPTIONS '"EXIT STATUS"' EXAMPLES; do
    grep -qx ".SH $section" "$man" || fail "$man has no $section section"
  done
  grep -qx 'gen lda' "$man" || fail "$man does not list 'gen lda'"
  ok "man page $man"
else
  echo "note: no man page in this build (help2man not found), not checked"
fi
echo "PASS: help_version"
