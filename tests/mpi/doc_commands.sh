#!/usr/bin/env bash
# Every `carousel` command that README.md and doc/*.md show in ```sh blocks runs (issue #41):
# each page's commands in order (a later one may read an earlier one's run), in a scratch
# directory where the shared data sets are at hand under the names the pages use (u1.base,
# ml-100k/u1.base, docword.kos.txt, kos/docword.kos.txt, ...). An lda, sam, dpmix or amf
# command that does not say how long to run gets --iterations $DOC_ITERATIONS (20), so the
# test stays short; mf runs as written (about a second on ml-100k), as does any command
# that says how long. Commands that need a cluster or data not shipped belong in
# ```text blocks, which are not run. `launch/mpirun.sh` commands run from the source tree;
# the README's two commands (launch/demo.sh, launch/test.sh) are CI's own.
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_ml100k
require_lda_data

T=$TEST_TMP
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
DOC_ITERATIONS=${DOC_ITERATIONS:-20}

# commands_of FILE : the commands of FILE's ```sh blocks that start with `carousel` or
# `launch/mpirun.sh`, continuation lines joined, comments after the command dropped.
commands_of() {
  awk '
    /^```sh[[:space:]]*$/ { inside = 1; next }
    /^```/ { inside = 0; next }
    !inside { next }
    {
      line = $0
      if (pending != "") { line = pending " " line; pending = "" }
      if (line ~ /\\[[:space:]]*$/) { sub(/\\[[:space:]]*$/, "", line); pending = line; next }
      sub(/^[[:space:]]+/, "", line)
      sub(/[[:space:]]+#.*$/, "", line)
      if (line ~ /^(carousel |(\.\/)?launch\/mpirun\.sh )/) print line
    }' "$1"
}

# The data under the names the pages use: copies (16 MB), not links, so that no command
# can write into the shared data through them (a page's `--out kos` would).
stage_data() {
  local dir=$1 set
  mkdir -p "$dir"
  for set in ml-100k kos reuters; do
    [[ -d $CAROUSEL_SHARED_DATA/$set ]] || continue
    cp -r "$CAROUSEL_SHARED_DATA/$set" "$dir/$set"
  done
  cp "$ML100K"/* "$KOS"/* "$dir/"
}

pages=("$root/README.md")
for f in "$root"/doc/*.md; do [[ -e $f ]] && pages+=("$f"); done
ran=0
for page in "${pages[@]}"; do
  name=${page#"$root"/}
  name=${name//\//-}
  work=$T/${name%.md}
  stage_data "$work"
  n=0
  while IFS= read -r command; do
    n=$((n + 1))
    read -ra words <<<"$command"
    case ${words[0]} in
      carousel) words[0]=$CAROUSEL_BIN ;;
      launch/mpirun.sh | ./launch/mpirun.sh) words[0]=$root/launch/mpirun.sh ;;
    esac
    # A model command without --iterations (and not a --resume) runs $DOC_ITERATIONS.
    subcommand=${words[1]:-}
    [[ ${words[0]} == */mpirun.sh ]] && subcommand=${words[2]:-}
    if [[ $subcommand =~ ^(lda|sam|dpmix|amf)$ && ${words[*]} != *" infer "* &&
      ! " ${words[*]} " =~ \ --(iterations|resume|help)[\ =] ]]; then
      words+=(--iterations "$DOC_ITERATIONS")
    fi
    log=$T/$name.$n.log
    rc=0
    (cd "$work" && timeout -k 10 "$CAROUSEL_TEST_TIMEOUT" env "${NO_LAUNCHER_ENV[@]:1}" \
      CAROUSEL_BIN="$CAROUSEL_BIN" "${words[@]}") </dev/null >"$log" 2>&1 || rc=$?
    if [[ $rc != 0 ]]; then
      show_log "$log"
      fail "${page#"$root"/}: command $n exited $rc: $command"
    fi
    ran=$((ran + 1))
  done < <(commands_of "$page")
done
((ran > 0)) || fail "no carousel command found in README.md and doc/"
ok "$ran commands of README.md and doc/*.md ran"
echo "PASS: doc_commands"
