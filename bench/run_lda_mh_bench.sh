#!/usr/bin/env bash
# Document sampler of `carousel lda` (issue #17, item 2): exact sparse Gibbs against the
# O(1)-per-token Metropolis-Hastings kernel (--doc-sampler mh, --mh-steps 1, 2, 4) on KOS,
# K = 50, one process, defaults otherwise (the options of run_lda_bench.sh: --burn-in 20
# --eval-every 10). Seconds to held-out perplexity 1800 and 1400 (the trace's sampling
# clock) and the last perplexity, each variant run 3 times: the chains are bitwise the
# same (same seed), so only the seconds vary; their median is reported.
#
#   split=validation (default): the choice is made here. The corpus is KOS without the
#     benchmark's held-out documents (those of --seed 1 --test-fraction 0.1); 10% of what
#     is left is held out by the same rule, so no benchmark test token is ever seen.
#   split=test: the benchmark's split (all of KOS, --seed 1), for the report.
# Usage: bash bench/run_lda_mh_bench.sh [validation|test] [iterations]
# (CAROUSEL_BENCH_REUSE=1: summarise the runs already there instead of running them again.)
# Writes logs, traces and summary-<split>.txt to $CAROUSEL_BENCH_OUT/lda_mh.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
data=${CAROUSEL_SHARED_DATA:-$root/../shared/data}/kos
out=${CAROUSEL_BENCH_OUT:-$root/bench/results}/lda_mh
split=${1:-validation}
iterations=${2:-300}
bin=$root/build/carousel
mkdir -p "$out"

corpus=$data/docword.kos.txt
if [[ $split == validation ]]; then
  # shellcheck source=lda_validation_split.sh
  source "$root/bench/lda_validation_split.sh"
  corpus=$(lda_validation_split "$bin" "$corpus" "$out")
fi

common=(lda --corpus "$corpus" --topics 50 --seed 1 --test-fraction 0.1
  --iterations "$iterations" --burn-in 20 --eval-every 10 --quiet --overwrite)

first_below() {  # trace.csv target -> sampling seconds at the first evaluation <= target
  awk -F, -v target="$2" '/^#/ { next } !h { h = 1; next }
    $3 <= target { print $2; found = 1; exit } END { if (!found) print "never" }' "$1"
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR ? v[int((NR + 1) / 2)] : "never") }'; }

targets=(1800 1500 1400)  # KOS's held-out split reaches 1400; the validation split not in 300
{
  echo "split $split, $iterations iterations, load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "median seconds (sampling clock) to perplexity ${targets[*]}; final; token visits/s"
  for variant in gibbs mh1 mh2 mh4; do
    opts=(--doc-sampler gibbs)
    [[ $variant == mh* ]] && opts=(--doc-sampler mh --mh-steps "${variant#mh}")
    for rep in 1 2 3; do
      dir=$out/$split-$variant-$rep
      [[ ${CAROUSEL_BENCH_REUSE:-0} == 1 && -s $dir/trace.csv ]] ||
        "$bin" "${common[@]}" "${opts[@]}" --out "$dir" >"$dir.log" 2>&1
    done
    line=$(printf "%-6s" "$variant")
    for target in "${targets[@]}"; do
      runs=$(for rep in 1 2 3; do first_below "$out/$split-$variant-$rep/trace.csv" "$target"; done)
      m=$(median <<<"$runs")  # the chains are the same: all reach a target, or none
      if [[ $m == never ]]; then line+=$(printf " %8s" never); else line+=$(printf " %8.2f" "$m"); fi
    done
    final=$(awk -F, '/^#/ { next } { v = $3 } END { print v }' "$out/$split-$variant-1/trace.csv")
    rate=$(for rep in 1 2 3; do grep -o '[0-9.]*M token visits' "$out/$split-$variant-$rep.log" |
      cut -dM -f1; done | median)
    printf "%s %8.1f %6sM\n" "$line" "$final" "$rate"
  done
  echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee "$out/summary-$split.txt"
