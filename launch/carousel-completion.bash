# shellcheck shell=bash
# Bash completion for carousel: commands, `gen` targets, each command's options, and the
# values of options that list their choices. Everything is read from the binary's own
# --help texts when completing, so it cannot fall behind the binary. Installed as
# share/bash-completion/completions/carousel; for a build tree, source this file.
#
# A model's --help starts MPI (about half a second), so every help text is read once per
# shell and binary, then kept.

declare -gA _carousel_help_cache=()

# _carousel_read_help BIN WORDS... : runs `BIN WORDS... --help` once into the cache. Called
# outside command substitutions, whose subshells would drop what they cache.
_carousel_read_help() {
  local bin=$1
  shift
  local key="$bin|$*"
  [[ -n ${_carousel_help_cache[$key]+set} ]] ||
    _carousel_help_cache[$key]=$(timeout 10 "$bin" "$@" --help </dev/null 2>/dev/null)
}

# _carousel_help BIN WORDS... : the output of `BIN WORDS... --help`.
_carousel_help() {
  _carousel_read_help "$@"
  local bin=$1
  shift
  printf '%s\n' "${_carousel_help_cache["$bin|$*"]}"
}

# The commands of `carousel --help` ("gen mf" gives gen), or with PREFIX ("gen") the words
# that follow it there (mf, lda). Entries are indented names ended by two spaces.
_carousel_commands() {
  local bin=$1 prefix=${2:-} line name
  local re='^  ([a-z][a-z ]*[a-z])  '
  while IFS= read -r line; do
    [[ $line =~ $re ]] || continue
    name=${BASH_REMATCH[1]}
    if [[ -z $prefix ]]; then
      echo "${name%% *}"
    elif [[ $name == "$prefix "* ]]; then
      echo "${name#"$prefix "}"
    fi
  done < <(_carousel_help "$bin") | awk '!seen[$0]++'
}

# The option names of a command's help: lines starting with a few spaces and a dash, as
# CLI11 writes them ("  -h,--help", "  --train TEXT").
_carousel_options() {
  local bin=$1 line names name
  shift
  local re='^ {1,4}(-[^ ]+)'
  while IFS= read -r line; do
    [[ $line =~ $re ]] || continue
    IFS=, read -ra names <<<"${BASH_REMATCH[1]}"
    for name in "${names[@]}"; do echo "$name"; done
  done < <(_carousel_help "$bin" "$@")
}

# _carousel_option_kind BIN OPTION WORDS... : "flag" when OPTION takes no value, else the
# values it lists ("{a,b}" as its type, or "a|b|c" starting its description), one
# per line, or nothing for a free value (a file, a number).
_carousel_option_kind() {
  local bin=$1 option=$2
  shift 2
  local line found='' description='' re_option re_set='\{([^}]*)\}' re_list='^([A-Za-z0-9_.-]+(\|[A-Za-z0-9_.-]+)+);?( |$)'
  re_option="^ {1,4}(-[^ ]*,)?${option}( (.*))?$"
  while IFS= read -r line; do
    if [[ -n $found ]]; then  # the description went on to the next line
      description=${line#"${line%%[! ]*}"}
      break
    fi
    [[ $line =~ $re_option ]] || continue
    found=${BASH_REMATCH[3]}
    # "  --quiet      no progress lines": two spaces at once after the name, no type.
    [[ $line =~ ^\ {1,4}(-[^ ]*,)?${option}(\ \ |$) ]] && {
      echo flag
      return
    }
    if [[ $found =~ $re_set ]]; then
      tr ',' '\n' <<<"${BASH_REMATCH[1]}"
      return
    fi
    # The description, when it shares the line: after the type, two spaces or more.
    if [[ $found == *"  "* ]]; then
      description=${found#*"  "}
      description=${description#"${description%%[! ]*}"}
      break
    fi
  done < <(_carousel_help "$bin" "$@")
  [[ $description =~ $re_list ]] && tr '|' '\n' <<<"${BASH_REMATCH[1]}"
  return 0
}

_carousel() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
  local bin=${COMP_WORDS[0]/#\~/$HOME}
  COMPREPLY=()
  if [[ $bin != */* ]]; then
    bin=$(type -P "$bin") || return 0
  fi
  [[ -x $bin ]] || return 0

  _carousel_read_help "$bin"
  if ((COMP_CWORD == 1)); then
    mapfile -t COMPREPLY < <(compgen -W "$(_carousel_commands "$bin") --help --version" -- "$cur")
    return 0
  fi
  local command=("${COMP_WORDS[1]}")
  if [[ ${COMP_WORDS[1]} == gen ]]; then
    if ((COMP_CWORD == 2)); then
      mapfile -t COMPREPLY < <(compgen -W "$(_carousel_commands "$bin" gen)" -- "$cur")
      return 0
    fi
    command+=("${COMP_WORDS[2]}")
  fi
  ((COMP_CWORD > ${#command[@]} + 1)) || prev=''
  _carousel_read_help "$bin" "${command[@]}"

  if [[ $prev == -* ]]; then
    local kind
    kind=$(_carousel_option_kind "$bin" "$prev" "${command[@]}")
    if [[ $kind != flag ]]; then
      # A listed choice, or (nothing listed) readline's file names (-o default).
      [[ -n $kind ]] && mapfile -t COMPREPLY < <(compgen -W "$kind" -- "$cur")
      return 0
    fi
  fi
  if [[ -z $cur || $cur == -* ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$(_carousel_options "$bin" "${command[@]}")" -- "$cur")
  fi
  return 0
}

complete -o bashdefault -o default -F _carousel carousel
