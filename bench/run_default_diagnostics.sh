#!/usr/bin/env bash
# Issue #42, "Defaults that converge": every model at its defaults with --chains 4, and what
# `carousel summary` says of the chains: per data set, how many reported scalars fail its
# checks (R-hat below 1.01, bulk and tail ESS at least 400 in all), the worst R-hat and the
# smallest bulk ESS, and for mf the calibration of the test predictions (coverage of the
# central 50/80/90/95% predictive intervals, mean log predictive density).
#
#   bench/run_default_diagnostics.sh [SETS...]
#
# SETS (default: all of them but 25m): u1 u3 (ml-100k splits, mf), ml-csv (mf on all of
# ml-100k as a CSV file, user,item,rating, with 10% held out by --test-fraction 0.1: a
# ratings set without a prepared split), amf-u1 (amf on u1.base), kos (lda), kos-sam, kos-dpmix, and 25m (mf on the 25M Netflix-shaped generated ratings of
# issue #39, every 100th held out: bench/netflix_shaped.sh; about 5 minutes per 1,000
# iterations of 4 chains on 2 cores). CAROUSEL_BIN (default build/carousel), CAROUSEL_SHARED_DATA
# (default ../shared/data). ITERATIONS (a number, or auto) gives every run that --iterations
# and MAX_ITERATIONS its --max-iterations; by default the chains' own default, auto (until
# the checks pass, at most 8 x the model's default length). ITERATIONS=1000 gives the
# fixed length of a single run. Results go to
# ${CAROUSEL_BENCH_OUT:-bench/results}/diagnostics/: each run, its summary (SET.summary)
# and diagnostics.csv.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${CAROUSEL_BIN:-$root/build/carousel}"
shared="${CAROUSEL_SHARED_DATA:-$root/../shared/data}"
out="${CAROUSEL_BENCH_OUT:-$root/bench/results}/diagnostics"
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
sets=("$@")
[ ${#sets[@]} -gt 0 ] || sets=(u1 u3 ml-csv amf-u1 kos kos-sam kos-dpmix)
ml="$shared/ml-100k" kos="$shared/kos/docword.kos.txt"
# shellcheck source=netflix_shaped.sh
source "$root/bench/netflix_shaped.sh"
length=()
[ -z "${ITERATIONS:-}" ] || length+=(--iterations "$ITERATIONS")
[ -z "${MAX_ITERATIONS:-}" ] || length+=(--max-iterations "$MAX_ITERATIONS")

run_set() {
  case "$1" in
    u1 | u3) "$bin" mf --train "$ml/$1.base" --test "$ml/$1.test" --chains 4 ${length[@]+"${length[@]}"} --out "$out/$1" --overwrite --quiet ;;
    ml-csv)
      awk -v OFS=, '{ print $1, $2, $3 }' "$ml/u.data" >"$out/ml-100k.csv"
      "$bin" mf --train "$out/ml-100k.csv" --test-fraction 0.1 --chains 4 ${length[@]+"${length[@]}"} --out "$out/$1" --overwrite --quiet ;;
    amf-u1) "$bin" amf --train "$ml/u1.base" --chains 4 ${length[@]+"${length[@]}"} --out "$out/$1" --overwrite --quiet ;;
    25m)
      netflix_shaped_split "$bin" 25000000 "$out"
      "$bin" mf --train "$train" --test "$test" --chains 4 ${length[@]+"${length[@]}"} --out "$out/$1" --overwrite --quiet ;;
    kos) "$bin" lda --corpus "$kos" --chains 4 ${length[@]+"${length[@]}"} --out "$out/$1" --overwrite --quiet ;;
    kos-sam) "$bin" sam --corpus "$kos" --chains 4 ${length[@]+"${length[@]}"} --out "$out/$1" --overwrite --quiet ;;
    kos-dpmix) "$bin" dpmix --corpus "$kos" --chains 4 ${length[@]+"${length[@]}"} --out "$out/$1" --overwrite --quiet ;;
    *) echo "unknown set $1" >&2; return 2 ;;
  esac
}

echo "set,seconds,variables,failing,worst_rhat,worst_rhat_variable,min_ess_bulk,calibration" >"$out/diagnostics.csv"
for set in "${sets[@]}"; do
  start=$(date +%s.%N)
  run_set "$set" >"$out/$set.log" 2>&1 || { cat "$out/$set.log"; exit 1; }
  seconds=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  "$bin" summary "$out/$set" >"$out/$set.summary" 2>&1 || true
  # The summary's table: variable, mean, sd, q5, q50, q95, rhat, ess_bulk, ess_tail, mcse.
  awk -F' +' -v set="$set" -v seconds="$seconds" '
    $1 == "variable" { table = 1; next }
    table && NF >= 10 && $7 ~ /^[0-9.]+$/ {
      n++
      if ($7 >= 1.01 || $8 < 400 || $9 < 400) failing++
      if ($7 > worst) { worst = $7; worst_var = $1 }
      if (min_ess == "" || $8 < min_ess) min_ess = $8
    }
    /^calibration/ { sub(/.*: /, ""); calibration = $0 }
    END { printf "%s,%s,%d,%d,%s,%s,%s,\"%s\"\n", set, seconds, n, failing, worst, worst_var, min_ess, calibration }
  ' "$out/$set.summary" | tee -a "$out/diagnostics.csv"
done
