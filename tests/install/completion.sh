#!/usr/bin/env bash
# launch/carousel-completion.bash, sourced into this shell and driven as bash drives it on
# TAB (COMP_WORDS, COMP_CWORD, then the function `complete -p` names): commands, `gen`
# targets, each command's options and listed option values, all read from the binary.
#
# Environment (set by ctest): CAROUSEL_BIN, the built binary; CAROUSEL_SOURCE_DIR.
set -euo pipefail
: "${CAROUSEL_BIN:?}" "${CAROUSEL_SOURCE_DIR:?}"

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# shellcheck source=../../launch/carousel-completion.bash
source "$CAROUSEL_SOURCE_DIR/launch/carousel-completion.bash"
spec=$(complete -p carousel) || fail "no completion registered for carousel"
[[ $spec =~ -F\ ([^ ]+)\ carousel$ ]] || fail "unexpected completion spec: $spec"
function=${BASH_REMATCH[1]}
echo "ok: $spec"

# complete_words WORDS... : sets GOT to the completions offered for the last word (which may
# be ""), sorted and space-separated. Not in a subshell, so that the script's cache of help
# texts lasts from one call to the next, as in an interactive shell.
complete_words() {
  COMP_WORDS=("$CAROUSEL_BIN" "$@")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMP_LINE="${COMP_WORDS[*]}"
  COMP_POINT=${#COMP_LINE}
  COMPREPLY=()
  "$function" carousel "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
  GOT=$(printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ' | sed 's/ $//')
}

# expect "WANTED" WORDS... : the completions are exactly WANTED.
expect() {
  local wanted=$1
  shift
  complete_words "$@"
  [[ $GOT == "$wanted" ]] || fail "carousel $* <TAB>: got '$GOT', expected '$wanted'"
  echo "ok: carousel $* <TAB> -> $GOT"
}

# has WORD WORDS... : WORD is among the completions.
has() {
  local word=$1
  shift
  complete_words "$@"
  [[ " $GOT " == *" $word "* ]] || fail "carousel $* <TAB>: '$word' missing from '$GOT'"
  echo "ok: carousel $* <TAB> offers $word"
}

expect "--help --version amf corpus dpmix gen lda mf predict sam samplers summary version" ""
expect "sam samplers summary" s
expect "--max-df --max-vocab" corpus --max-
expect "lda mf" gen ""
expect "--users" gen mf --us
expect "--topics --topics-out" gen lda --topics
has --out gen mf --users 30 ""
has --train mf --
has --resume mf --
has --corpus lda --
has --alpha-shape dpmix --
expect "scir sgrld" dpmix --sampler ""
expect "--overwrite" mf --quiet --ov
expect "psgld" mf --sampler ps
has gibbs mf --sampler ""
expect "auto csv movielens mtx whitespace" mf --format ""
expect "cyclic default random" mf --schedule ""
expect "auto ldac uci" lda --corpus-format ""
expect "gsgnht sggmc" sam --sampler ""
has --kappa1 sam --
expect "" mf --train ""  # a file name: left to readline (-o default)
expect "--help -h" version -
echo "PASS: completion"
