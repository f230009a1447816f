#!/usr/bin/env bash
# Issue #39, "Work": the seconds per pass over the data of ONE rank at --tiles 1, 4, 16 and 64,
# at the defaults otherwise, as ratios to the best of --tiles 1 and 4. A pass is --tiles
# iterations; by default `carousel mf` evaluates once per pass, so a pass is the time between
# two trace rows. The first passes hold SGRLD's step warm-up (30 iterations, where every row
# steps every iteration), so the mean of the last two passes of a run of
# max(4, 2 + ceil(30 / B)) passes is taken.
#
#   bench/run_tile_work.sh [mf|lda|amf|all] [TILES...]
#
# mf : 25M generated ratings (`carousel gen mf --users 480189 --items 17770 --ratings 25000000
#      --rank 10 --seed 5`, every 100th line held out by bench/split_ratings.py), K = 32.
# lda: the 10M-token generated corpus of issue #39 (`carousel gen lda --documents 75000`, its
#      other options at their defaults), K = 50, one worker thread. LDA_SWEEPS=N passes
#      --sweeps N (the default is 1 at 1 and 4 tiles and 2 from 16 on this corpus).
#      CSVs work_lda.csv, or work_lda_sweeps1.csv with LDA_SWEEPS=1.
# amf: the same ratings as mf (MF_RATINGS, MF_USERS apply), K = 16, at its defaults: a run of
#      max(40, 6 B) iterations, its seconds per pass taken from the trace rows from iteration
#      (run / 3) on, evaluations and kept draws included (per_pass_since). AMF_EVAL_EVERY=N
#      passes --eval-every N (10 was the default before evaluations were counted in passes).
#      After the runs, build/bench/mf_row_touch_floor (FLOOR_BIN) gives the memory floor of
#      the passes' row touches on the same ratings: work_mf_floor.csv.
# MF_RATINGS overrides 25000000 and MF_USERS 480189 (a quicker look; MF_RATINGS=5000000
# MF_USERS=96000 keeps the 25M set's 52 ratings a user with a fifth of its W). Data and results go to
# ${CAROUSEL_BENCH_OUT:-bench/results}/tile_work/: work_mf.csv, work_lda.csv (tiles, passes,
# seconds per pass, ratio to the best of tiles 1 and 4). One benchmark at a time: nothing
# else should run beside it.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
which="${1:-all}"
shift || true
tiles_list=("$@")
[ ${#tiles_list[@]} -gt 0 ] || tiles_list=(1 4 16 64)
bin="${CAROUSEL_BIN:-$root/build/carousel}"
python=/usr/bin/python3
[ -x "$python" ] || python=python3
out="${CAROUSEL_BENCH_OUT:-$root/bench/results}/tile_work"
data="$out/data"
mkdir -p "$data"
# shellcheck source=pass_clock.sh
source "$root/bench/pass_clock.sh"
export CAROUSEL_RANKS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1


report() {  # report CSV: ratios to the best of tiles 1 and 4
  awk -F, 'NR == 1 { print $0 ",ratio"; next } { row[NR] = $0; b[NR] = $1; s[NR] = $3 }
    ($1 == 1 || $1 == 4) && (best == "" || $3 < best) { best = $3 }
    END { for (i = 2; i <= NR; ++i) printf "%s,%.2f\n", row[i], s[i] / best }' "$1"
}

run_mf() {
  local ratings="${MF_RATINGS:-25000000}" users="${MF_USERS:-480189}"
  local train="$data/mf_${ratings}_${users}.train"
  if [ ! -s "$train" ]; then
    "$bin" gen mf --users "$users" --items 17770 --ratings "$ratings" --rank 10 --seed 5 \
      --out "$data/mf.all" >/dev/null
    "$python" "$root/bench/split_ratings.py" "$data/mf.all" 0.01 1 "$train" "${train%.train}.test"
    rm -f "$data/mf.all"
  fi
  echo "tiles,passes,seconds_per_pass" >"$out/work_mf.raw"
  for b in "${tiles_list[@]}"; do
    local p; p=$(passes_for "$b")
    # --keep-samples 0: a run keeps its samples (66 MB each here) over its kept draws, which
    # fall in the measured passes of a 4-pass run but not of a 32-pass one; writing them is a
    # cost of the run's outputs, not of a pass.
    "$bin" mf --train "$train" --test "${train%.train}.test" --rank 32 --tiles "$b" \
      --iterations $((p * b)) --keep-samples 0 --quiet --overwrite --out "$out/mf_$b" >/dev/null
    echo "$b,$p,$(per_pass "$out/mf_$b/trace.csv")" >>"$out/work_mf.raw"
  done
  report "$out/work_mf.raw" | tee "$out/work_mf.csv"
  # The memory floor of the passes' row touches (bench/mf_row_touch_floor.cpp), after the runs.
  local floor="${FLOOR_BIN:-$root/build/bench/mf_row_touch_floor}"
  if [ -x "$floor" ]; then
    "$floor" "$train" "${tiles_list[@]}" | tee "$out/work_mf_floor.csv"
  else
    echo "run_mf: $floor missing (make mf_row_touch_floor): no floor measured" >&2
  fi
}

run_lda() {
  local corpus="$data/lda_10m.txt"
  [ -s "$corpus" ] || "$bin" gen lda --documents 75000 --out "$corpus" >/dev/null
  local sweeps=() name=lda
  if [ -n "${LDA_SWEEPS:-}" ]; then
    sweeps=(--sweeps "$LDA_SWEEPS"); name="lda_sweeps${LDA_SWEEPS}"
  fi
  echo "tiles,passes,seconds_per_pass" >"$out/work_$name.raw"
  for b in "${tiles_list[@]}"; do
    local p; p=$(passes_for "$b")
    "$bin" lda --corpus "$corpus" --topics 50 --tiles "$b" --threads 1 --iterations $((p * b)) \
      --eval-every "$b" "${sweeps[@]}" --quiet --overwrite --out "$out/${name}_$b" >/dev/null
    echo "$b,$p,$(per_pass "$out/${name}_$b/trace.csv")" >>"$out/work_$name.raw"
  done
  report "$out/work_$name.raw" | tee "$out/work_$name.csv"
}

run_amf() {
  local ratings="${MF_RATINGS:-25000000}" users="${MF_USERS:-480189}"
  local train="$data/mf_${ratings}_${users}.train"
  [ -s "$train" ] || { echo "run_amf: $train missing (run the mf benchmark first)" >&2; exit 2; }
  local cadence=() name=amf
  if [ -n "${AMF_EVAL_EVERY:-}" ]; then
    cadence=(--eval-every "$AMF_EVAL_EVERY"); name="amf_eval${AMF_EVAL_EVERY}"
  fi
  echo "tiles,iterations,seconds_per_pass" >"$out/work_$name.raw"
  for b in "${tiles_list[@]}"; do
    local n=$((6 * b > 40 ? 6 * b : 40))
    "$bin" amf --train "$train" --rank 16 --tiles "$b" --iterations "$n" "${cadence[@]}" \
      --keep-samples 0 --quiet --overwrite --out "$out/${name}_$b" >/dev/null
    echo "$b,$n,$(per_pass_since "$out/${name}_$b/trace.csv" "$b" $((n / 3)))" >>"$out/work_$name.raw"
  done
  report "$out/work_$name.raw" | tee "$out/work_$name.csv"
}

case "$which" in
  mf) run_mf ;;
  lda) run_lda ;;
  amf) run_amf ;;
  all) run_mf; run_lda ;;
  *) echo "usage: $0 [mf|lda|amf|all] [TILES...]" >&2; exit 2 ;;
esac
