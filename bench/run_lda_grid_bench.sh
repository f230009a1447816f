#!/usr/bin/env bash
# `carousel lda` defaults judged by what a run hands its user (issue #17 item 4): on the
# validation split of bench/run_lda_defaults_bench.sh (KOS without the benchmark's held-out
# documents), a fresh run per iteration count N of a grid, at the defaults plus the given
# options, K = 50; the topics it writes (topic_word.npy: the posterior mean of the draws
# kept after burn-in) are scored by `carousel lda infer --perplexity` on the validation
# held-out documents, the estimator bench/run_warplda_bench.sh scores both tools with.
# Prints, per N: the training clock (trace.csv, evaluations excluded), the whole process
# (evaluations included) and the perplexity.
#
# Usage: bash bench/run_lda_grid_bench.sh "N1 N2 ..." [carousel lda options...]
#   e.g.  bash bench/run_lda_grid_bench.sh "50 100 150 300" --eval-every 50
# Env: CAROUSEL_BIN (default build/carousel), CAROUSEL_RANKS (thread ranks, default 1: one
#   rank on the CPUs' worker threads, as `carousel lda` runs by default; 2 for two ranks),
#   CAROUSEL_GRID_CORPUS (a UCI corpus to use instead of the KOS validation split),
#   CAROUSEL_GRID_SEED (another --seed for the chains: repeats of the same comparison; as the
#   split of a run depends on its seed, such runs read the validation training documents
#   alone and hold none out, --test-fraction 0), CAROUSEL_BENCH_OUT. Appends one line per run to $CAROUSEL_BENCH_OUT/lda_grid/runs.txt.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
data=${CAROUSEL_SHARED_DATA:-$root/../shared/data}/kos
out=${CAROUSEL_BENCH_OUT:-$root/bench/results}/lda_grid
bin=${CAROUSEL_BIN:-$root/build/carousel}
ranks=${CAROUSEL_RANKS:-1}
grid=$1
shift
mkdir -p "$out"
py=python3
[[ -x /usr/bin/python3 ]] && py=/usr/bin/python3 # Debian's numpy
# shellcheck source=lda_validation_split.sh
source "$root/bench/lda_validation_split.sh"
# CAROUSEL_GRID_CORPUS: another validation corpus (e.g. `carousel gen lda --documents 75000
# --seed 2`, a generated corpus the benchmarks never score), held out the same way.
if [[ -n ${CAROUSEL_GRID_CORPUS:-} ]]; then
  corpus=$CAROUSEL_GRID_CORPUS
else
  corpus=$(lda_validation_split "$bin" "$data/docword.kos.txt" "$out")
fi
# The validation held-out documents alone (carousel's own split of the validation corpus).
if [[ ! -f $out/heldout_docs.txt ]]; then
  "$bin" lda --corpus "$corpus" --topics 50 --seed 1 --test-fraction 0.1 --iterations 2 \
    --eval-every 1 --quiet --overwrite --out "$out/validation_split" >/dev/null
  "$py" "$root/bench/warplda_bench.py" split --corpus "$corpus" \
    --heldout "$out/validation_split/heldout.txt" --train-out "$out/validation_train.txt" \
    --heldout-out "$out/heldout_docs.txt" >&2
fi

# Chains of another seed: the training documents of the seed-1 split alone, as UCI (the same
# header but NNZ; the held-out documents stay as empty ones, which carousel skips).
run_corpus=$corpus
split_opts=(--seed 1 --test-fraction 0.1)
if [[ -n ${CAROUSEL_GRID_SEED:-} ]]; then
  run_corpus=$out/validation_train_only.txt
  if [[ ! -f $run_corpus ]]; then
    awk 'NR == FNR { if (!/^#/ && NF) held[$1 + 1] = 1; next }
      FNR <= 3 { h[FNR] = $0; next } !($1 in held) { kept[++n] = $0 }
      END { print h[1]; print h[2]; print n; for (i = 1; i <= n; i++) print kept[i] }' \
      "$out/validation_split/heldout.txt" "$corpus" >"$run_corpus.tmp"
    mv "$run_corpus.tmp" "$run_corpus"
  fi
  split_opts=(--seed "$CAROUSEL_GRID_SEED" --test-fraction 0)
fi

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf "%6s %12s %12s %10s   (%d ranks; options: %s)\n" N training_s process_s perplexity \
  "$ranks" "${*:-none}"
for n in $grid; do
  dir=$out/run-$n
  start=$(date +%s.%N)
  if ! CAROUSEL_RANKS=$ranks "$bin" lda --corpus "$run_corpus" --topics 50 "${split_opts[@]}" \
    --iterations "$n" "$@" --quiet --overwrite --out "$dir" >"$dir.log" 2>&1; then
    printf "%6s   carousel failed: %s\n" "$n" "$(grep -m1 error "$dir.log" || tail -1 "$dir.log")"
    continue
  fi
  end=$(date +%s.%N)
  env -u CAROUSEL_RANKS "$bin" lda infer --run "$dir" --corpus "$out/heldout_docs.txt" --out "$dir/infer_theta.npy" \
    --perplexity "$dir/infer_ppl.csv" >"$dir.infer.log"
  training=$(awk -F, '!/^#/ && NR > 1 { s = $2 } END { printf "%.3f", s }' "$dir/trace.csv")
  process=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }')
  ppl=$(sed -n 's/.*document-completion perplexity \([0-9.]*\) over.*/\1/p' "$dir.infer.log")
  printf "%6s %12s %12s %10s\n" "$n" "$training" "$process" "$ppl"
  echo "$n $training $process $ppl ranks $ranks options ${*:-none} load $(cut -d' ' -f1 /proc/loadavg)" \
    >>"$out/runs.txt"
  rm -rf "$dir"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
