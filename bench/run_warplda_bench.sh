#!/usr/bin/env bash
# Carousel's `lda` against WarpLDA (thu-ml/warplda, Metropolis-Hastings collapsed Gibbs with
# O(1) proposals) on the same document-completion split, equal cores (issue #17 item 5):
#   - KOS, K = 50, the split of `carousel lda --seed 1 --test-fraction 0.1` (heldout.txt), as
#     bench/run_lda_bench.sh uses;
#   - a generated corpus of about 10M tokens (`carousel gen lda --documents 75000`, KOS-shaped).
# Carousel: `carousel lda --threads 2` at its defaults (one process, one rank on 2 worker
# threads, as a 2-core machine runs it by default; --threads pins that on a larger machine.
# LAUNCH="launch/mpirun.sh 2" for 2 MPI ranks, or CAROUSEL_RANKS=2 for 2 thread ranks,
# each on one thread; alpha = beta = 0.1, K = 50), except --iterations. WarpLDA: 2
# OpenMP threads, K = 50, alpha = beta = 0.1 per topic (its -alpha is the SUM over topics:
# 0.1 * K); it cannot dump its model mid-run.
# Both tools run once per iteration count of a grid (fresh chains), and the topics each run
# ends with are scored by the same estimator, `carousel lda infer --perplexity` on the
# held-out documents (bench/warplda_bench.py says why and how). Times to a target are the
# first grid point at or below it: its training clock, and its whole process under
# /usr/bin/time. A longer carousel run gives its own trace (a different estimator, shown
# for reference), its throughput and its memory.
#
# Usage: bash bench/run_warplda_bench.sh [kos|gen|all]        (default all)
# Environment:
#   CAROUSEL_BIN        the carousel binary to measure (default build/carousel)
#   WARPLDA_DIR         WarpLDA's checkout, built in WARPLDA_DIR/release (default ext/warplda next to
#                       the main checkout); cloned from GitHub and built if missing
#   REPEATS             repeats per corpus (default 3); the table gives medians
#   KOS_ITERATIONS      carousel --iterations of the trace run on KOS (default 1000)
#   KOS_GRID            WarpLDA iteration counts on KOS
#   GEN_ITERATIONS, GEN_GRID, GEN_DOCUMENTS   the same for the generated corpus; GEN_TARGETS
#                       its target perplexities (default rel:1.20,1.05: factors of the true
#                       topics' perplexity under the same estimator); defaults 300
#                       iterations and the grid 2 10 25 50 75 100 150 200 300
#   CAROUSEL_GRID       carousel's iteration counts (default: the corpus's WarpLDA grid)
#   CAROUSEL_EVAL_EVERY the long run's --eval-every (default: carousel's), CAROUSEL_EXTRA_ARGS
#                       (appended to every carousel lda run)
# Writes bench/results/warplda/{kos,gen}/ (table.md, perplexity.png, rep*/), or under
# $CAROUSEL_BENCH_OUT/warplda.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
which=${1:-all}
# The directory holding the main checkout (worktrees share its .git): shared/ and ext/ are there.
base=$(cd "$(git -C "$root" rev-parse --path-format=absolute --git-common-dir 2>/dev/null || echo "$root/.git")/../.." && pwd)
data=${CAROUSEL_SHARED_DATA:-$base/shared/data}/kos
out=${CAROUSEL_BENCH_OUT:-$root/bench/results}/warplda
export CAROUSEL_BIN=${CAROUSEL_BIN:-$root/build/carousel}
# How carousel runs: one process with 2 thread ranks, or LAUNCH (e.g. "launch/mpirun.sh 2").
if [[ -n ${LAUNCH:-} ]]; then
  read -r -a launch <<<"$LAUNCH"
  launch[0]=$root/${launch[0]}
else
  launch=(env CAROUSEL_RANKS="${CAROUSEL_RANKS:-1}" "$CAROUSEL_BIN")
fi
warp_dir=${WARPLDA_DIR:-$base/ext/warplda}
repeats=${REPEATS:-3}
trace_opts=() # the long run's --eval-every: its default (5 passes, 10 iterations at 2 tiles)
[[ -z ${CAROUSEL_EVAL_EVERY:-} ]] || trace_opts=(--eval-every "$CAROUSEL_EVAL_EVERY")
read -r -a extra <<<"${CAROUSEL_EXTRA_ARGS:-}"
# Equal cores: one rank on 2 threads (or 2 ranks of one thread each, as LAUNCH or
# CAROUSEL_RANKS=2 run it).
if [[ -z ${LAUNCH:-} && ${CAROUSEL_RANKS:-1} == 1 ]]; then extra+=(--threads 2); fi
py=python3
[[ -x /usr/bin/python3 ]] && py=/usr/bin/python3 # Debian's numpy and matplotlib
helper=$root/bench/warplda_bench.py
[[ -x $CAROUSEL_BIN ]] || { echo "no carousel binary at $CAROUSEL_BIN (set CAROUSEL_BIN)" >&2; exit 1; }

# WarpLDA at the commit measured, with the two build fixes it needs on a current Debian:
# the system gflags (libgflags-dev) instead of its git submodule, and <stdexcept> in lda.cpp;
# and one measuring patch: its initialisation (random topics, count tables) timed and
# printed, so that its training clock counts its set-up as Carousel's counts its own.
warplda_commit=c97265d9b219d43afc95fa05966c0eba075779d6
warp=$warp_dir/release/src/warplda
warp_src=$warp_dir/src/warplda.cpp
if [[ ! -x $warp ]] || ! grep -q 'carousel bench: initialisation' "$warp_src"; then
  echo "building WarpLDA in $warp_dir (needs cmake, libgflags-dev, libnuma-dev) ..." >&2
  if [[ ! -f $warp_dir/CMakeLists.txt ]]; then
    git clone https://github.com/thu-ml/warplda "$warp_dir"
    git -C "$warp_dir" checkout "$warplda_commit"
  fi
  sed -i 's/^add_subdirectory(gflags)/# add_subdirectory(gflags)  # system libgflags-dev/' "$warp_dir/CMakeLists.txt"
  sed -i 's/^add_subdirectory (test)/# add_subdirectory (test)/' "$warp_dir/CMakeLists.txt"
  grep -q '<stdexcept>' "$warp_dir/src/lda.cpp" || sed -i '1i #include <stdexcept>' "$warp_dir/src/lda.cpp"
  if ! grep -q 'carousel bench: initialisation' "$warp_src"; then
    sed -i -e 's|^    shuffle.reset(new Shuffle<TData>(g));|    Clock init_clock;  // carousel bench: initialisation time\n    init_clock.start();\n&|' \
      -e 's|^\tprintf("Initialization finished.\\n");|\tprintf("Initialization finished in %f s.\\n", init_clock.timeElapsed());|' "$warp_src"
    grep -q 'Initialization finished in' "$warp_src" || { echo "could not patch $warp_src" >&2; exit 1; }
  fi
  cmake -S "$warp_dir" -B "$warp_dir/release" -DCMAKE_BUILD_TYPE=Release >/dev/null
  make -C "$warp_dir/release" -j2 warplda format >/dev/null
fi

# Equal cores: 2 carousel threads (one rank, or 2 ranks), 2 WarpLDA threads.
export OMP_NUM_THREADS=2 OPENBLAS_NUM_THREADS=1
K=50
alpha=0.1
beta=0.1
warp_alpha_sum=$(awk -v a="$alpha" -v k="$K" 'BEGIN { print a * k }')

# /usr/bin/time -v fields of a log: wall seconds and peak RSS in MiB.
wall_of() { awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0
  for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' "$1"; }
rss_of() { awk -F': ' '/Maximum resident set size/ { printf "%.1f", $2 / 1024 }' "$1"; }
infer_ppl() { sed -n 's/.*document-completion perplexity \([0-9.]*\) over.*/\1/p' "$1"; }

# One corpus: bench_corpus NAME CORPUS ITERATIONS "GRID" TARGETS ORACLE_NPY TITLE
# (TARGETS: perplexities a,b, or rel:f1,f2 for factors of the true topics' perplexity)
bench_corpus() {
  local name=$1 corpus=$2 iterations=$3 grid=$4 targets=$5 oracle=${6:-}
  local carousel_grid=${CAROUSEL_GRID:-$grid}
  local dir=$out/$name
  mkdir -p "$dir"
  local common=(lda --corpus "$corpus" --topics "$K" --alpha "$alpha" --beta "$beta" --seed 1
    --test-fraction 0.1 --quiet --overwrite "${extra[@]}")
  local V
  V=$(sed -n 2p "$corpus")

  # The split: carousel's keyed held-out draw (independent of P and of the iterations).
  echo "[$name] split ..." >&2
  "$CAROUSEL_BIN" "${common[@]}" --iterations 2 --eval-every 1 --out "$dir/split" >/dev/null
  "$py" "$helper" split --corpus "$corpus" --heldout "$dir/split/heldout.txt" \
    --train-out "$dir/train.txt" --heldout-out "$dir/heldout_docs.txt" >&2
  # WarpLDA's own input format (its `format` tool; not timed with training: a one-off step).
  (cd "$dir" && /usr/bin/time -v "$warp_dir/release/src/format" -input train.txt -prefix train \
    >format.log 2>format.time)
  echo "[$name] WarpLDA format: $(wall_of "$dir/format.time") s" >&2
  local oracle_ppl=""
  if [[ -n $oracle ]]; then
    "$py" "$helper" oracle --topics-npy "$oracle" --alpha $alpha --out "$dir/oracle"
    "$CAROUSEL_BIN" lda infer --run "$dir/oracle" --corpus "$dir/heldout_docs.txt" \
      --out "$dir/oracle/theta.npy" --perplexity "$dir/oracle/ppl.csv" >"$dir/oracle/infer.log"
    oracle_ppl=$(infer_ppl "$dir/oracle/infer.log")
    echo "[$name] true topics: perplexity $oracle_ppl" >&2
  fi
  if [[ $targets == rel:* ]]; then # factors of the true topics' perplexity
    targets=$(awk -v p="$oracle_ppl" -v f="${targets#rel:}" 'BEGIN { n = split(f, x, ",")
      for (i = 1; i <= n; i++) printf "%s%.0f", (i > 1 ? "," : ""), p * x[i] }')
    echo "[$name] targets: $targets" >&2
  fi

  local rep
  for rep in $(seq 1 "$repeats"); do
    local r=$dir/rep$rep
    rm -rf "$r"
    mkdir -p "$r"
    echo "[$name] repeat $rep: carousel lda, 2 cores, $iterations iterations (trace, throughput, memory) ..." >&2
    /usr/bin/time -v "${launch[@]}" "${common[@]}" ${trace_opts[@]+"${trace_opts[@]}"} \
      --iterations "$iterations" --out "$r/carousel" >"$r/carousel.log" 2>"$r/carousel.time"
    grep -v '^#' "$r/carousel/trace.csv" | cut -d, -f1-3 >"$r/carousel_curve.csv"
    "$CAROUSEL_BIN" lda infer --run "$r/carousel" --corpus "$dir/heldout_docs.txt" \
      --out "$r/carousel/infer_theta.npy" --perplexity "$r/carousel/infer_ppl.csv" >"$r/carousel_infer.log"
    {
      echo key,value
      echo "carousel_infer_final,$(infer_ppl "$r/carousel_infer.log")"
      awk '/token visits per second/ { s += $3; n++ } END { if (n) printf "carousel_mtok_per_s,%.2f\n", s / n }' \
        "$r/carousel.log"
      awk '/of the sampling time in communication, peak memory/ { for (i = 1; i <= NF; i++)
        if ($i == "MiB,") { v = $(i - 1) + 0; if (v > m) m = v } } END { printf "carousel_peak_mib,%.1f\n", m }' \
        "$r/carousel.log"
      if [[ -n $oracle_ppl ]]; then echo "oracle_perplexity,$oracle_ppl"; fi
    } >"$r/facts.csv"

    # Carousel on the same grid as WarpLDA and scored the same way: for each iteration count
    # N a fresh run at the defaults but --iterations N, whose topic_word.npy (what such a run
    # hands a user: the posterior mean of the samples kept after burn-in, one every
    # --eval-every = 50 iterations and one at N) `carousel lda infer` scores on the held-out
    # documents. Its trace's perplexity is not used for the targets: that comes from 10
    # sweeps per evaluation warm-started from the last evaluation's (doc/lda.md,
    # "Perplexity"), a different estimator, which scores the same topics higher early on.
    echo "[$name] repeat $rep: carousel lda, 2 cores, iterations $carousel_grid ..." >&2
    echo "iter,seconds,wall,perplexity" >"$r/carousel_grid_curve.csv"
    mkdir -p "$r/carousel_grid"
    local n
    for n in $carousel_grid; do
      local cd=$r/carousel_grid/$n
      /usr/bin/time -v "${launch[@]}" "${common[@]}" --iterations "$n" --out "$cd" \
        >"$cd.log" 2>"$cd.time"
      "$CAROUSEL_BIN" lda infer --run "$cd" --corpus "$dir/heldout_docs.txt" \
        --out "$cd/infer_theta.npy" --perplexity "$cd/infer_ppl.csv" >"$cd.infer.log"
      local secs wall ppl
      secs=$(awk -F, '!/^#/ && NR > 1 { s = $2 } END { printf "%.6f", s }' "$cd/trace.csv")
      wall=$(wall_of "$cd.time")
      ppl=$(infer_ppl "$cd.infer.log")
      echo "$n,$secs,$wall,$ppl" >>"$r/carousel_grid_curve.csv"
      echo "[$name]   carousel $n iterations: $secs s training, $wall s process, perplexity $ppl" >&2
      rm -f "$cd/topic_word.npy" "$cd/doc_topic.npy" "$cd/infer_theta.npy"
    done
    echo "carousel_wall_final,$(tail -1 "$r/carousel_grid_curve.csv" | cut -d, -f3)" >>"$r/facts.csv"
    for t in ${targets//,/ }; do
      awk -F, -v t="$t" 'NR > 1 && $4 <= t { print "carousel_wall_" t "," $3; f = 1; exit }
        END { if (!f) print "carousel_wall_" t ",never" }' "$r/carousel_grid_curve.csv" >>"$r/facts.csv"
    done

    echo "[$name] repeat $rep: WarpLDA, 2 threads, iterations $grid ..." >&2
    echo "iter,seconds,wall,perplexity" >"$r/warplda_curve.csv"
    local n peak=0 mtok=""
    for n in $grid; do
      local wd=$r/warplda/$n
      mkdir -p "$wd"
      /usr/bin/time -v "$warp" -bin "$dir/train.bin" -vocab "$dir/train.vocab" -prefix "$wd/model" \
        -k $K -alpha "$warp_alpha_sum" -beta $beta -niter "$n" -dumpz=false -writeinfo=false \
        >"$wd/warplda.log" 2>"$wd/warplda.time"
      "$py" "$helper" topics --model "$wd/model.model" --vocab "$dir/train.vocab" --words "$V" \
        --alpha $alpha --out "$wd/run"
      "$CAROUSEL_BIN" lda infer --run "$wd/run" --corpus "$dir/heldout_docs.txt" \
        --out "$wd/run/theta.npy" --perplexity "$wd/run/ppl.csv" >"$wd/infer.log"
      local secs wall ppl rss
      # Its training clock: the initialisation and every iteration (its log's per-iteration
      # times exclude the initialisation).
      secs=$(awk '/^Initialization finished in/ { s += $4 } /^Iteration/ { s += $3 }
        END { printf "%.6f", s }' "$wd/warplda.log")
      wall=$(wall_of "$wd/warplda.time")
      ppl=$(infer_ppl "$wd/infer.log")
      rss=$(rss_of "$wd/warplda.time")
      peak=$(awk -v a="$peak" -v b="$rss" 'BEGIN { print (b > a ? b : a) }')
      # Token visits per second of the longest run: tokens x iterations / the iterations' time.
      mtok=$(awk -v n="$n" '/total words/ { t = $(NF - 2) } /^Iteration/ { s += $3 }
        END { printf "%.2f", t * n / s / 1e6 }' "$wd/warplda.log")
      echo "$n,$secs,$wall,$ppl" >>"$r/warplda_curve.csv"
      echo "[$name]   WarpLDA $n iterations: $secs s training, $wall s process, perplexity $ppl" >&2
      rm -f "$wd/model.model"
    done
    {
      echo "warplda_peak_mib,$peak"
      echo "warplda_mtok_per_s,$mtok"
      echo "warplda_wall_final,$(tail -1 "$r/warplda_curve.csv" | cut -d, -f3)"
      echo "warplda_infer_final,$(tail -1 "$r/warplda_curve.csv" | cut -d, -f4)"
      for t in ${targets//,/ }; do
        awk -F, -v t="$t" 'NR > 1 && $4 <= t { print "warplda_wall_" t "," $3; f = 1; exit }
          END { if (!f) print "warplda_wall_" t ",never" }' "$r/warplda_curve.csv"
      done
    } >>"$r/facts.csv"
  done

  local load
  load=$(cut -d' ' -f1-3 /proc/loadavg)
  "$py" "$helper" table --dir "$dir" --targets "$targets" --title "$7" \
    --note "Machine: $(nproc) cores shared with other jobs, load average at the end $load (numbers are noisy)." \
    --footer "carousel: $CAROUSEL_BIN; WarpLDA $warplda_commit; $(date -u +%Y-%m-%dT%H:%MZ)"
}

if [[ $which == kos || $which == all ]]; then
  bench_corpus kos "$data/docword.kos.txt" "${KOS_ITERATIONS:-1000}" \
    "${KOS_GRID:-2 4 6 8 10 12 14 16 20 25 30 40 50 70 100 120 150 200 300 500 1000}" 1800,1400 "" \
    "KOS, K = 50"
fi
if [[ $which == gen || $which == all ]]; then
  gen=$out/gen/corpus.txt
  if [[ ! -f $gen ]]; then
    mkdir -p "$out/gen"
    "$CAROUSEL_BIN" gen lda --documents "${GEN_DOCUMENTS:-75000}" --seed 1 --out "$gen" \
      --topics-out "$out/gen/true_topics.npy" >&2
  fi
  # Targets on the generated corpus: 20% and 5% above the perplexity of the true topics.
  # WarpLDA's topics after 2 iterations (close to the word frequencies) score about 1.24x,
  # so a target above that says nothing; both tools passed 1.05x within 300 iterations
  # (bench/README.md, "LDA against WarpLDA").
  bench_corpus gen "$gen" "${GEN_ITERATIONS:-300}" "${GEN_GRID:-2 10 25 50 75 100 150 200 300}" \
    "${GEN_TARGETS:-rel:1.20,1.05}" \
    "$out/gen/true_topics.npy" \
    "generated corpus (${GEN_DOCUMENTS:-75000} documents, $(awk 'NR > 3 { s += $3 } END { print s }' "$gen") tokens), K = 50"
fi
