#!/usr/bin/env bash
# Spherical admixture model benchmark (issue #14, part 6; main paper Sec. 5.3, Fig. 5 in
# spirit): held-out log-perplexity against wall time on KOS and Reuters (vocabulary cut to
# moderate document frequency as in supplement F.3, the defaults of `carousel sam`), for
#   gsgnht, sggmc            minibatches of 50 documents (the defaults),
#   gsgnht-full, sggmc-full  every training document each iteration (full batch),
# the full-batch variants standing in for the paper's non-stochastic baselines: they sample
# theta of every document and take the exact gradient each iteration (as GMC-bGibbs does),
# with the same geodesic integrator but without a Metropolis test. Each run gets about the
# same sampling time (iterations per variant below); P = 1 and P = 2 ranks, --tiles 2 on
# both, so the chains are the same and P changes only the seconds. Writes each run's output
# directory and log, sam.png and summary.txt (final log-perplexity averaged over the kept
# samples, and of the last sample with its Monte Carlo error; sampling seconds; documents per
# second) to $CAROUSEL_BENCH_OUT/sam (default bench/results/sam).
# Usage: bash bench/run_sam_bench.sh [seconds-scale]   (1 = the budgets below)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
data=${CAROUSEL_SHARED_DATA:-$root/../shared/data}
out=${CAROUSEL_BENCH_OUT:-$root/bench/results}/sam
scale=${1:-1}
py=python3
[[ -x /usr/bin/python3 ]] && py=/usr/bin/python3
mkdir -p "$out"
export CAROUSEL_BIN=${CAROUSEL_BIN:-$root/build/carousel}
[[ -x $CAROUSEL_BIN ]] || "$root/launch/build.sh"

declare -A corpus_args=(
  [kos]="--corpus $data/kos/docword.kos.txt --vocab $data/kos/vocab.kos.txt"
  [reuters]="--corpus $data/reuters/reuters.ldac --vocab $data/reuters/reuters.tokens"
)
# Iterations giving each variant about a minute (KOS) or half a minute (Reuters) of sampling
# on one idle core, measured beforehand; evaluations every 1/20 of the run.
declare -A iterations=([kos-mb]=3000 [kos-full]=400 [reuters-mb]=3000 [reuters-full]=1500)

summary=$out/summary.txt
printf '%-8s %-12s %2s %8s %9s %12s %12s %10s\n' corpus variant P iters seconds \
  log_perp log_perp_last docs_per_s >"$summary"
traces=()
for corpus in reuters kos; do
  for np in 1 2; do
    for variant in gsgnht sggmc gsgnht-full sggmc-full; do
      sampler=${variant%-full}
      kind=mb minibatch=50
      [[ $variant == *-full ]] && kind=full minibatch=1e9
      n=$(awk -v a="${iterations[$corpus-$kind]}" -v s="$scale" 'BEGIN { printf "%d", a * s }')
      name=$corpus-p$np-$variant
      # shellcheck disable=SC2086
      "$root/launch/mpirun.sh" "$np" sam ${corpus_args[$corpus]} --sampler "$sampler" \
        --minibatch "$minibatch" --tiles 2 --iterations "$n" --eval-every $((n / 20)) \
        --quiet --overwrite --out "$out/$name" >"$out/$name.log"
      traces+=("$out/$name/trace.csv")
      docs=$(sed -n 's/^# train_documents: //p' "$out/$name/trace.csv")
      grep -v '^#' "$out/$name/trace.csv" | tail -n 1 | awk -F, -v c="$corpus" -v v="$variant" \
        -v p="$np" -v mb="$minibatch" -v d="$docs" '{
          per = (mb < d ? mb : d); printf "%-8s %-12s %2s %8d %9.1f %12.2f %8.2f+-%.2f %10.0f\n",
          c, v, p, $1, $2, $3, $4, $5, $1 * per / $2 }' >>"$summary"
      tail -n 1 "$summary"
    done
  done
done
"$py" "$root/bench/plot_sam.py" --out "$out/sam.png" "${traces[@]}"
echo "wrote $summary and $out/sam.png"
