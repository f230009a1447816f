#!/usr/bin/env bash
# Issue #39, "Strong scaling": `carousel mf` on P thread ranks (CAROUSEL_RANKS=P, --tiles P)
# for each P in RANKS (default "1 2 4 8 16"), 25M generated ratings at K = 32: seconds per
# pass (the mean of the last two passes after SGRLD's 30-iteration warm-up, as in
# run_tile_work.sh), the largest share of its sampling time a rank waited for communication,
# and the peak memory of the process. Then `carousel lda` on P thread ranks for each P in
# LDA_RANKS (default "1 4 16"; empty skips it), the 10M-token generated corpus at K = 50, one
# worker thread per rank. Then `carousel mf` at its defaults on the largest P against LIBMF
# on as many threads (its best test RMSE over -l2 in L2, default "0.03 0.05 0.07 0.1", 40
# iterations): Carousel's time to LIBMF's best RMSE, reading included for both. Each run's
# log holds its ranks' sampling time by phase.
#
#   LIBMF_TRAIN=/path/to/mf-train bench/run_strong_scaling.sh
#
# MF_RATINGS overrides 25000000, LDA_DOCUMENTS 75000. CAROUSEL_BIN (default build/carousel)
# and BASELINE_BIN (an earlier build, optional: its mf seconds per pass at the smallest and
# largest P, same data) name the binaries. The split holds out every 100th line. Results go
# to ${CAROUSEL_BENCH_OUT:-bench/results}/strong_scaling/: scaling.csv, scaling_lda.csv,
# libmf.csv, summary.txt and each run's log.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${CAROUSEL_BIN:-$root/build/carousel}"
ranks_list=(${RANKS:-1 2 4 8 16})
ratings="${MF_RATINGS:-25000000}"
out="${CAROUSEL_BENCH_OUT:-$root/bench/results}/strong_scaling"
data="$out/data"
mkdir -p "$data"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# shellcheck source=pass_clock.sh
source "$root/bench/pass_clock.sh"

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }

# shellcheck source=netflix_shaped.sh
source "$root/bench/netflix_shaped.sh"
netflix_shaped_split "$bin" "$ratings" "$data"

# rank_wait LOG: the largest share of its sampling time any rank spent waiting, in %.
rank_wait() {
  grep -o '[0-9.]*% of the sampling time in communication' "$1" |
    awk '{ v = $1 + 0; if (v > m) m = v } END { printf "%.1f", m }'
}
peak_memory() { grep -o 'peak memory [0-9.]* MiB,' "$1" | head -1 | awk '{ print $3 }'; }

scaling_run() {  # scaling_run BIN LABEL P
  local b=$3 p; p=$(passes_for "$3")
  CAROUSEL_RANKS=$3 "$1" mf --train "$train" --test "$test" --rank 32 --tiles "$b" \
    --iterations $((p * b)) --eval-every "$b" --keep-samples 0 --overwrite --out "$out/$2_$3" \
    >"$out/$2_$3.log" 2>&1
  echo "$2,$3,$(per_pass "$out/$2_$3/trace.csv"),$(rank_wait "$out/$2_$3.log"),$(peak_memory "$out/$2_$3.log")"
}

echo "build,ranks,seconds_per_pass,max_rank_wait_percent,peak_memory_mib" >"$out/scaling.csv"
for p in "${ranks_list[@]}"; do scaling_run "$bin" carousel "$p" | tee -a "$out/scaling.csv"; done
if [ -n "${BASELINE_BIN:-}" ]; then
  for p in "${ranks_list[0]}" "${ranks_list[-1]}"; do
    scaling_run "$BASELINE_BIN" baseline "$p" | tee -a "$out/scaling.csv"
  done
fi

largest=${ranks_list[-1]}
{
  echo "== mf: speed-up over the smallest rank count"
  awk -F, '$1 == "carousel" { s[$2] = $3; if (first == "") first = $2 }
    END { for (p in s) printf "P = %s: %.2fx\n", p, s[first] / s[p] }' "$out/scaling.csv" | sort -t= -k2 -n
} | tee "$out/summary.txt"

# lda: the 10M-token generated corpus (`carousel gen lda --documents 75000`), K = 50, one
# worker thread per rank, at the defaults otherwise (--sweeps follows the tile count).
if [ -n "${LDA_RANKS-1 4 16}" ]; then
  documents="${LDA_DOCUMENTS:-75000}"
  corpus="$data/lda_$documents.txt"
  [ -s "$corpus" ] || "$bin" gen lda --documents "$documents" --out "$corpus" >/dev/null
  echo "build,ranks,seconds_per_pass,max_rank_wait_percent,peak_memory_mib" >"$out/scaling_lda.csv"
  for p in ${LDA_RANKS-1 4 16}; do
    passes=$(passes_for "$p")
    CAROUSEL_RANKS=$p "$bin" lda --corpus "$corpus" --topics 50 --tiles "$p" --threads 1 \
      --iterations $((passes * p)) --eval-every "$p" --overwrite --out "$out/lda_$p" \
      >"$out/lda_$p.log" 2>&1
    echo "carousel,$p,$(per_pass "$out/lda_$p/trace.csv"),$(rank_wait "$out/lda_$p.log"),$(peak_memory "$out/lda_$p.log")" |
      tee -a "$out/scaling_lda.csv"
  done
  {
    echo "== lda: speed-up over the smallest rank count"
    awk -F, 'NR > 1 { s[$2] = $3; if (first == "") first = $2 }
      END { for (p in s) printf "P = %s: %.2fx\n", p, s[first] / s[p] }' "$out/scaling_lda.csv" | sort -t= -k2 -n
  } | tee -a "$out/summary.txt"
fi

if [ -n "${LIBMF_TRAIN:-}" ]; then
  echo "l2,iteration,va_rmse,seconds_to_iteration" >"$out/libmf.csv"
  # A 1-iteration run's time (reading included); the reading does not depend on -l2.
  start=$(now)
  "$LIBMF_TRAIN" -k 32 -s "$largest" -t 1 "$train" "$out/libmf.model" >/dev/null
  one=$(since "$start")
  for l2 in ${L2:-0.03 0.05 0.07 0.1}; do
    start=$(now)
    "$LIBMF_TRAIN" -k 32 -s "$largest" -t 40 -l2 "$l2" -p "$test" "$train" "$out/libmf.model" \
      >"$out/libmf_$l2.log"
    wall=$(since "$start")
    # LIBMF prints no clock: iteration i's time is its 1-iteration run's (reading included)
    # plus the rest of the 40-iteration run shared evenly.
    awk -v l2="$l2" -v wall="$wall" -v one="$one" '$1 ~ /^[0-9]+$/ {
      printf "%s,%d,%s,%.2f\n", l2, $1, $3, one + (wall - one) * $1 / 39 }' \
      "$out/libmf_$l2.log" >>"$out/libmf.csv"
  done
  rm -f "$out/libmf.model"
  best=$(awk -F, 'NR > 1 && (b == "" || $3 < b) { b = $3 } END { print b }' "$out/libmf.csv")
  libmf_time=$(awk -F, -v b="$best" 'NR > 1 && $3 == b { print $4; exit }' "$out/libmf.csv")
  start=$(now)
  CAROUSEL_RANKS=$largest "$bin" mf --train "$train" --test "$test" --rank 32 \
    --overwrite --out "$out/defaults_$largest" >"$out/defaults_$largest.log" 2>&1
  total=$(since "$start")
  # Carousel's time to LIBMF's best: its sampling clock at the first posterior-mean RMSE at or
  # below it, plus the set-up (the whole wall time less the sampling clock at the end).
  awk -F, -v best="$best" -v total="$total" -v lt="$libmf_time" -v p="$largest" '
    !/^#/ && $1 ~ /^[0-9]+$/ { last = $2; if (hit == "" && $4 != "nan" && $4 <= best) hit = $2 }
    END { setup = total - last
      if (hit == "") printf "defaults on P = %d: never reached LIBMF best %s (LIBMF %.2f s)\n", p, best, lt
      else printf "defaults on P = %d: LIBMF best test RMSE %s in %.2f s; carousel reached it in %.2f s (%.2fx)\n",
        p, best, lt, hit + setup, (hit + setup) / lt }' "$out/defaults_$largest/trace.csv" |
    tee -a "$out/summary.txt"
fi
