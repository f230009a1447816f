#!/usr/bin/env bash
# Issue #41, "Interruption is safe": what the default timed checkpoint (--checkpoint-minutes,
# every 15 minutes of wall time) costs at Netflix's size. `carousel mf` at its defaults on 2
# thread ranks, 25M generated ratings (as run_tile_work.sh makes them), K = 32, writes a
# checkpoint every CHECKPOINT_EVERY (default 8) iterations of ITERATIONS (default 40). Rank 0's
# "checkpoints" phase in the closing lines (packing, gathering and writing them) over their
# number is the seconds one checkpoint costs; over 15 minutes it is the default's share of a
# run's time. The size of one checkpoint is printed too.
#
#   bench/run_checkpoint_cost.sh
#
# MF_RATINGS overrides 25000000. Results go to
# ${CAROUSEL_BENCH_OUT:-bench/results}/checkpoint_cost/: the run's log and summary.txt. One
# benchmark at a time: nothing else should run beside it.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${CAROUSEL_BIN:-$root/build/carousel}"
ratings="${MF_RATINGS:-25000000}"
iterations="${ITERATIONS:-40}"
every="${CHECKPOINT_EVERY:-8}"
out="${CAROUSEL_BENCH_OUT:-$root/bench/results}/checkpoint_cost"
data="$out/data"
mkdir -p "$data"
export CAROUSEL_RANKS=2 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# shellcheck source=netflix_shaped.sh
source "$root/bench/netflix_shaped.sh"
netflix_shaped_split "$bin" "$ratings" "$data"

run="$out/run"
"$bin" mf --train "$train" --test "$test" --rank 32 --iterations "$iterations" \
  --checkpoint-every "$every" --quiet --out "$run" --overwrite >"$out/run.log" 2>&1
written=$((iterations / every))
checkpoint_bytes=$(du -sb "$run/checkpoints" | awk '{ print $1 }')
kept=$(find "$run/checkpoints" -type f | wc -l)
# rank 0's sampling wall time and its checkpoints phase (a share of it)
awk -v n="$written" -v bytes="$checkpoint_bytes" -v kept="$kept" '
  / iterations on .* rank\(s\) in / && wall == "" {
    for (i = 1; i <= NF && wall == ""; ++i) if ($i == "in") wall = $(i + 1)
  }
  /rank 0: sampling time by phase/ { for (i = 1; i <= NF; ++i) if ($i == "checkpoints") share = $(i + 1) }
  END {
    sub("s", "", wall); sub("%", "", share)
    each = wall * share / 100 / n
    printf "checkpoints written: %d in %.1f s of sampling (rank 0: %.1f%%)\n", n, wall, share
    printf "seconds per checkpoint: %.2f\n", each
    printf "checkpoint files kept: %d, %.1f MiB each\n", kept, bytes / 1048576 / kept
    printf "share of a run at the default --checkpoint-minutes 15: %.3f%%\n", 100 * each / 900
  }' "$out/run.log" | tee "$out/summary.txt"
