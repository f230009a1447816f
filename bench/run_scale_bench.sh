#!/usr/bin/env bash
# Issue #9: Carousel at default options against LIBMF on 25M generated ratings (a quarter of
# Netflix, K = 32, P = 2), measured in the same run on the same 99/1 split.
#
#   LIBMF_TRAIN=/path/to/libmf/mf-train bench/run_scale_bench.sh [RATINGS] [ITERATIONS]
#
# RATINGS defaults to 25000000 (480,189 users, 17,770 items, as the issue's generator call);
# ITERATIONS (default 1000) is Carousel's --iterations, everything else is its default.
# LIBMF (github.com/cjlin1/libmf, built with its Makefile) is built outside this tree; it
# runs with 2 threads, K = 32, over a grid of -l2, and its best test RMSE over the grid is
# the target. Carousel's posterior-mean RMSE is read from its trace; "seconds" counts the
# whole process (loading included) for both tools. Writes to bench/results/scale_RATINGS/
# (or under $CAROUSEL_BENCH_OUT): libmf.csv, carousel_trace.csv, summary.txt, scale.png.
# LIBMF_L2 (default "0.03 0.05 0.07 0.1") is its -l2 grid.
# A second part runs every SG-MCMC sampler of `carousel mf` at its defaults for
# SAMPLER_ITERATIONS (default 300; 0 skips it) iterations: samplers.csv and samplers.png.
# Netflix's shape: bench/run_scale_bench.sh 100480507.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ratings="${1:-25000000}"
out="${CAROUSEL_BENCH_OUT:-$root/bench/results}/scale_$ratings"
iterations="${2:-1000}"
sampler_iterations="${SAMPLER_ITERATIONS:-300}"
libmf="${LIBMF_TRAIN:?set LIBMF_TRAIN to the mf-train binary of LIBMF}"
python=/usr/bin/python3
[ -x "$python" ] || python=python3
bin="$root/build/carousel"
mkdir -p "$out"
data="$out/data"
mkdir -p "$data"

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }

if [ ! -s "$data/train.txt" ]; then
  "$bin" gen mf --users 480189 --items 17770 --ratings "$ratings" --rank 10 --seed 5 \
    --out "$data/all.txt"
  "$python" "$root/bench/split_ratings.py" "$data/all.txt" 0.01 1 "$data/train.txt" "$data/test.txt"
  rm -f "$data/all.txt"
fi

echo "== LIBMF, 2 threads, K = 32, 40 iterations per -l2"
echo "l2,iteration,va_rmse,seconds_to_iteration" >"$out/libmf.csv"
for l2 in ${LIBMF_L2:-0.03 0.05 0.07 0.1}; do
  start=$(now)
  "$libmf" -k 32 -s 2 -t 40 -l2 "$l2" -p "$data/test.txt" "$data/train.txt" "$out/libmf.model" \
    >"$out/libmf_$l2.log"
  wall=$(since "$start")
  # LIBMF prints no clock: the time to iteration i is its whole wall time times (i + 1) / 40
  # after the loading time, measured as the wall time of a 1-iteration run.
  start=$(now)
  "$libmf" -k 32 -s 2 -t 1 -l2 "$l2" "$data/train.txt" "$out/libmf.model" >/dev/null
  one=$(since "$start")
  awk -v l2="$l2" -v wall="$wall" -v one="$one" '$1 ~ /^[0-9]+$/ {
      printf "%s,%d,%s,%.2f\n", l2, $1, $3, (one + (wall - one) * $1 / 39) }' \
    "$out/libmf_$l2.log" >>"$out/libmf.csv"
done
rm -f "$out/libmf.model"

echo "== Carousel mf, defaults, K = 32, mpirun -np 2, $iterations iterations"
start=$(now)
"$root/launch/mpirun.sh" 2 mf --train "$data/train.txt" --test "$data/test.txt" --rank 32 \
  --iterations "$iterations" --quiet --overwrite --out "$out/carousel" | tee "$out/carousel.log"
wall=$(since "$start")
sampling=$(grep -v '^#' "$out/carousel/trace.csv" | tail -1 | cut -d, -f2)
# Start-up and loading: the whole wall time less the sampling clock of the last trace row.
echo "$wall $sampling" >"$out/carousel_wall.txt"
grep -v '^#' "$out/carousel/trace.csv" >"$out/carousel_trace.csv"

"$python" - "$out" <<'PY'
import csv, sys
out = sys.argv[1]
libmf = list(csv.DictReader(open(f"{out}/libmf.csv")))
best = min(libmf, key=lambda r: float(r["va_rmse"]))
wall, sampling = map(float, open(f"{out}/carousel_wall.txt").read().split())
startup = wall - sampling
rows = list(csv.DictReader(open(f"{out}/carousel_trace.csv")))
target = float(best["va_rmse"])
reach = next((r for r in rows if r["rmse_mean"] != "nan" and float(r["rmse_mean"]) <= target), None)
final = rows[-1]
lines = [
    f"LIBMF best test RMSE {target:.4f} (-l2 {best['l2']}, iteration {best['iteration']}, "
    f"{float(best['seconds_to_iteration']):.1f} s)",
    f"Carousel final posterior-mean test RMSE {float(final['rmse_mean']):.4f} after "
    f"{final['iter']} iterations, {float(final['seconds']) + startup:.1f} s "
    f"(start-up and loading {startup:.1f} s)",
]
if reach:
    t = float(reach["seconds"]) + startup
    lines.append(f"Carousel reaches {target:.4f} at iteration {reach['iter']}, {t:.1f} s: "
                 f"{t / float(best['seconds_to_iteration']):.2f}x LIBMF's time to it")
else:
    lines.append(f"Carousel does not reach {target:.4f}")
open(f"{out}/summary.txt", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY

if [ "$sampler_iterations" -eq 0 ]; then
  "$python" "$root/bench/plot_scale.py" "$out" || echo "(plots need python3-matplotlib)"
  exit 0
fi
echo "== every SG-MCMC sampler at its defaults, $sampler_iterations iterations"
echo "sampler,iter,seconds,rmse_sample,rmse_mean,exit_code" >"$out/samplers.csv"
for sampler in psgld sgld sghmc sgnht sgrld sgrhmc hamcmc; do
  rc=0
  "$root/launch/mpirun.sh" 2 mf --train "$data/train.txt" --test "$data/test.txt" --rank 32 \
    --sampler "$sampler" --iterations "$sampler_iterations" \
    --burn-in $((sampler_iterations / 5)) --quiet --overwrite --out "$out/s_$sampler" \
    >"$out/s_$sampler.log" 2>&1 || rc=$?
  echo "$sampler: exit $rc; $(tail -3 "$out/s_$sampler.log" | head -1)"
  if [ -f "$out/s_$sampler/trace.csv" ]; then
    grep -v '^#' "$out/s_$sampler/trace.csv" | tail -n +2 |
      awk -F, -v s="$sampler" -v rc="$rc" '{ print s "," $1 "," $2 "," $3 "," $4 "," rc }' \
        >>"$out/samplers.csv"
  fi
done

"$python" "$root/bench/plot_scale.py" "$out" || echo "(plots need python3-matplotlib)"
