#!/usr/bin/env bash
# LDA benchmark on KOS with K = 50 (issue #4), every method on the same 90/10
# document-completion split (carousel's heldout.txt is handed to gensim):
#   - held-out perplexity vs seconds for carousel's SCIR, SGRLD and SGRHMC on one process
#     (default options), SCIR on two (2000 documents per iteration, see below), and
#     gensim's online-VB LdaModel (alpha = eta = 1/K) on one core;
#   - the time SCIR needs to reach gensim's final perplexity, and the ratio to gensim's time;
#   - Gibbs throughput (token visits per second per process) and the communication share
#     at P = 2, from carousel's closing summary.
# Writes CSVs, logs, lda_perplexity.png and summary.txt to $CAROUSEL_BENCH_OUT/lda
# (default bench/results/lda). Usage: bash bench/run_lda_bench.sh [iterations]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
data=${CAROUSEL_SHARED_DATA:-$root/../shared/data}/kos
out=${CAROUSEL_BENCH_OUT:-$root/bench/results}/lda
iterations=${1:-300}
# Debian's interpreter has python3-gensim and python3-matplotlib, whatever PATH says.
py=python3
[[ -x /usr/bin/python3 ]] && py=/usr/bin/python3
mkdir -p "$out"
[[ -x $root/build/carousel ]] || "$root/launch/build.sh"

# Equal cores: one process per core for carousel, one BLAS thread for gensim.
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
common=(lda --corpus "$data/docword.kos.txt" --vocab "$data/vocab.kos.txt" --topics 50
  --seed 1 --test-fraction 0.1 --iterations "$iterations" --burn-in 20 --eval-every 10 --quiet)

run() {  # name ranks [options...]
  local name=$1 ranks=$2
  shift 2
  echo "carousel $name ..." >&2
  "$root/launch/mpirun.sh" "$ranks" "${common[@]}" --overwrite --out "$out/$name" "$@" >"$out/$name.log"
  cat "$out/$name.log" >&2
}
run scir-p1 1 --sampler scir
run sgrld-p1 1 --sampler sgrld
run sgrhmc-p1 1 --sampler sgrhmc
# A tile holds 1/B of each document's words, so at B = 2 an iteration of 2000 documents
# sweeps as many tokens as one of 1000 documents at B = 1, in half the time per rank.
run scir-p2 2 --sampler scir --tiles 2 --minibatch 2000

echo "gensim ..." >&2
$py "$root/bench/lda_gensim.py" "$data" --heldout "$out/scir-p1/heldout.txt" --topics 50 \
  --out "$out/gensim.csv" --topics-out "$out/gensim_topics.npy" >"$out/gensim.log" 2>&1 ||
  { cat "$out/gensim.log" >&2; exit 1; }

# Every method's final topics scored by one estimator, `carousel lda infer` on the held-out
# documents (each with its own alpha: 1/K for gensim), as bench/run_warplda_bench.sh does:
# the curves above are each tool's own evaluation (carousel's trace, gensim's variational
# theta), which differ from it.
"$py" "$root/bench/warplda_bench.py" split --corpus "$data/docword.kos.txt" \
  --heldout "$out/scir-p1/heldout.txt" --train-out "$out/train_docs.txt" \
  --heldout-out "$out/heldout_docs.txt" >&2
"$py" "$root/bench/warplda_bench.py" oracle --topics-npy "$out/gensim_topics.npy" --alpha 0.02 \
  --out "$out/gensim_run"
infer_score() {  # run directory -> perplexity of its topic_word.npy under lda infer
  "$root/build/carousel" lda infer --run "$1" --corpus "$out/heldout_docs.txt" \
    --out "$1/infer_theta.npy" --perplexity "$1/infer_ppl.csv" |
    sed -n 's/.*document-completion perplexity \([0-9.]*\) over.*/\1/p'
}

$py "$root/bench/plot_lda.py" "$out/gensim.csv" "$out/scir-p1/trace.csv" \
  "$out/sgrld-p1/trace.csv" "$out/sgrhmc-p1/trace.csv" "$out/scir-p2/trace.csv" \
  --label "gensim online VB (1 core)" --label "SCIR, P = 1" --label "SGRLD, P = 1" \
  --label "SGRHMC, P = 1" --label "SCIR, P = 2" --out "$out/lda_perplexity.png"

# Seconds at which a trace (CSV with seconds and perplexity columns) first reaches a target.
first_below() {  # csv target
  awk -F, -v target="$2" '
    /^#/ { next }
    !header { for (i = 1; i <= NF; i++) col[$i] = i; header = 1; next }
    $col["perplexity"] <= target { print $col["seconds"]; found = 1; exit }
    END { if (!found) print "never" }' "$1"
}
last_value() {  # csv column
  awk -F, -v name="$2" '/^#/ { next } !header { for (i = 1; i <= NF; i++) col[$i] = i; header = 1; next }
    { v = $col[name] } END { print v }' "$1"
}

{
  gensim_final=$(last_value "$out/gensim.csv" perplexity)
  gensim_seconds=$(last_value "$out/gensim.csv" seconds)
  echo "gensim LdaModel: final perplexity $gensim_final after $gensim_seconds s"
  for name in scir-p1 sgrld-p1 sgrhmc-p1 scir-p2; do
    t=$(first_below "$out/$name/trace.csv" "$gensim_final")
    final=$(last_value "$out/$name/trace.csv" perplexity)
    seconds=$(last_value "$out/$name/trace.csv" seconds)
    ratio=never
    [[ $t != never ]] && ratio=$(awk -v a="$t" -v b="$gensim_seconds" 'BEGIN { printf "%.3f", a / b }')
    echo "$name: reaches $gensim_final at $t s (ratio to gensim's time: $ratio); final $final after $seconds s"
  done
  echo "final topics scored by carousel lda infer (one estimator for all):"
  echo "  gensim: $(infer_score "$out/gensim_run")"
  for name in scir-p1 sgrld-p1 sgrhmc-p1 scir-p2; do
    echo "  $name: $(infer_score "$out/$name")"
  done
  echo "Gibbs throughput and communication share (closing summaries):"
  grep -h "token visits\|communication" "$out"/scir-p1.log "$out"/scir-p2.log
} | tee "$out/summary.txt"
