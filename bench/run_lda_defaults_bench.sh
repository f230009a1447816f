#!/usr/bin/env bash
# Defaults of `carousel lda` for time to a perplexity (issue #17, item 4): documents per
# iteration (--minibatch), Gibbs sweeps per document (--sweeps) and the SCIR step h (--step)
# on the validation split of bench/run_lda_mh_bench.sh (KOS without the benchmark's
# held-out documents; 10% of the rest held out by the same rule), K = 50, one process,
# --burn-in 20 --eval-every 5. Seconds to held-out perplexity 1800, 1500 and 1400 on the
# trace's sampling clock (evaluations excluded), and the last perplexity.
#
# Usage: bash bench/run_lda_defaults_bench.sh ITERATIONS REPEATS SETTING...
#   SETTING = minibatch:sweeps:step, e.g. 1000:4:0.5 (the old defaults); minibatch "all"
#   puts every training document in every iteration; SETTING "defaults" gives none of the
#   three options (the binary's defaults).
# Env: CAROUSEL_BIN (default build/carousel), CAROUSEL_BENCH_OUT, CAROUSEL_BENCH_BURN_IN (20),
#   CAROUSEL_BENCH_EVAL_EVERY (5), CAROUSEL_BENCH_CORPUS (another corpus instead of the split),
#   CAROUSEL_BENCH_NP (ranks, through launch/mpirun.sh; default 1, without mpirun).
# Appends one line per run to $CAROUSEL_BENCH_OUT/lda_defaults/runs.txt and prints medians.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
data=${CAROUSEL_SHARED_DATA:-$root/../shared/data}/kos
out=${CAROUSEL_BENCH_OUT:-$root/bench/results}/lda_defaults
bin=${CAROUSEL_BIN:-$root/build/carousel}
iterations=$1 repeats=$2
shift 2
mkdir -p "$out"
# shellcheck source=lda_validation_split.sh
source "$root/bench/lda_validation_split.sh"
corpus=${CAROUSEL_BENCH_CORPUS:-}
[[ -n $corpus ]] || corpus=$(lda_validation_split "$bin" "$data/docword.kos.txt" "$out")

first_below() {  # trace.csv target -> "seconds@iteration" at the first evaluation <= target
  awk -F, -v target="$2" '/^#/ { next } !h { h = 1; next }
    $3 <= target { printf "%.2f@%d\n", $2, $1; found = 1; exit } END { if (!found) print "never" }' "$1"
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR ? v[int((NR + 1) / 2)] : "never") }'; }

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf "%-16s %14s %14s %14s %8s\n" setting "s@it to 1800" "s@it to 1500" "s@it to 1400" final
for setting in "$@"; do
  opts=()
  if [[ $setting != defaults ]]; then
    IFS=: read -r mb sweeps step <<<"$setting"
    [[ $mb == all ]] && mb=1e9
    opts=(--minibatch "$mb" --sweeps "$sweeps" --step "$step")
  fi
  launch=("$bin")
  np=${CAROUSEL_BENCH_NP:-1}
  [[ $np == 1 ]] || launch=(env CAROUSEL_BIN="$bin" bash "$root/launch/mpirun.sh" "$np")
  for rep in $(seq 1 "$repeats"); do
    dir=$out/$setting-$iterations-np$np-$rep
    "${launch[@]}" lda --corpus "$corpus" --topics 50 --seed 1 --test-fraction 0.1 \
      --iterations "$iterations" --burn-in "${CAROUSEL_BENCH_BURN_IN:-20}" \
      --eval-every "${CAROUSEL_BENCH_EVAL_EVERY:-5}" ${opts[@]+"${opts[@]}"} --quiet \
      --overwrite --out "$dir" >"$dir.log" 2>&1
    line="$setting"
    for t in 1800 1500 1400; do line+=" $(first_below "$dir/trace.csv" $t)"; done
    line+=" $(awk -F, '/^#/ { next } { v = $3 } END { printf "%.1f\n", v }' "$dir/trace.csv")"
    echo "$line np $np load $(cut -d' ' -f1 /proc/loadavg)" >>"$out/runs.txt"
    all[rep]=$line
  done
  row=$(printf "%-16s" "$setting")
  for col in 2 3 4; do
    m=$(for rep in $(seq 1 "$repeats"); do echo "${all[$rep]}" | cut -d' ' -f$col; done |
      sed 's/@.*//' | median)
    it=$(echo "${all[1]}" | cut -d' ' -f$col | sed 's/.*@//')
    [[ $m == never ]] && row+=$(printf " %14s" never) || row+=$(printf " %14s" "$m@$it")
  done
  printf "%s %8s\n" "$row" "$(echo "${all[1]}" | cut -d' ' -f5)"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
