#!/usr/bin/env bash
# Issue #9 on ml-100k: Carousel `mf` at default options (K = 10; one process started without
# a launcher, whose 2 ranks are threads, CAROUSEL_RANKS=2 so that it uses bpmf's cores on any
# machine, as the default does on a 2-core one; and mpirun -np 2) against bpmf
# (ExaScience's Gibbs sampler for the same model, K = 10, 2 OpenMP threads), on the u1 and
# u3 splits: the final posterior-mean test RMSE, and the whole-process wall time to reach a
# posterior-mean RMSE of 0.94, median of REPEATS (default 5) runs.
#
#   BPMF_BIN=/path/to/bpmf bench/run_ml100k_bpmf.sh
#
# bpmf (github.com/ExaScience/bpmf, CMake with -DBPMF_COMM=NO_COMM -DBPMF_NUMLATENT=10) is
# built outside this tree. It reads Matrix Market files, written here with the same
# id mapping for train and test (test pairs with an unseen user or item are left out for
# bpmf; Carousel predicts them from the mean and the known bias). bpmf's burn-in is the
# best of 5, 10 and 20 sweeps for it; its time to 0.94 is measured by rerunning it with as
# many sweeps as its first sweep at or below 0.94. Carousel's is its start-up (wall time
# less the sampling clock) plus the sampling clock at its first evaluation at or below 0.94.
# Writes bench/results/ml100k_bpmf.csv (or under $CAROUSEL_BENCH_OUT).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${CAROUSEL_BENCH_OUT:-$root/bench/results}"
data="${CAROUSEL_SHARED_DATA:-$root/../shared/data}/ml-100k"
bpmf="${BPMF_BIN:?set BPMF_BIN to the bpmf binary (K = 10)}"
export CAROUSEL_BIN="${CAROUSEL_BIN:-$root/build/carousel}"
carousel="$CAROUSEL_BIN"
repeats="${REPEATS:-5}"
mkdir -p "$out"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }'; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# to_mtx TRAIN TEST OUT_TRAIN OUT_TEST: 1-based dense ids in ascending order of training ids.
to_mtx() {
  awk -v train_out="$3" -v test_out="$4" '
    FNR == 1 { file++ }
    file == 1 { u[$1]; i[$2]; tr[++n] = $1 " " $2 " " $3; next }
    ($1 in u) && ($2 in i) { te[++m] = $1 " " $2 " " $3 }
    END {
      nu = asorti_num(u, uid); ni = asorti_num(i, iid)
      hdr = "%%MatrixMarket matrix coordinate real general"
      print hdr > train_out; print nu, ni, n > train_out
      for (k = 1; k <= n; k++) { split(tr[k], f, " "); print uid[f[1]], iid[f[2]], f[3] > train_out }
      print hdr > test_out; print nu, ni, m > test_out
      for (k = 1; k <= m; k++) { split(te[k], f, " "); print uid[f[1]], iid[f[2]], f[3] > test_out }
    }
    function asorti_num(set, index_of,   k, c, ids, j, t) {
      c = 0; for (k in set) ids[++c] = k + 0
      for (j = 2; j <= c; j++) { t = ids[j]; k = j - 1; while (k > 0 && ids[k] > t) { ids[k + 1] = ids[k]; k-- } ids[k + 1] = t }
      for (j = 1; j <= c; j++) index_of[ids[j]] = j
      return c
    }' "$1" "$2"
}

echo "split,tool,final_rmse,seconds_to_0.94" >"$out/ml100k_bpmf.csv"
for k in 1 3; do
  to_mtx "$data/u$k.base" "$data/u$k.test" "$tmp/train.mtx" "$tmp/test.mtx"
  # bpmf: the burn-in that reaches 0.94 in the fewest sweeps.
  best_b="" best_sweep=999999 final=""
  for b in 5 10 20; do
    "$bpmf" -n "$tmp/train.mtx" -p "$tmp/test.mtx" -i 100 -b "$b" -t 2 >"$tmp/bpmf.log" 2>&1
    sweep=$(awk '/Sampling iteration/ { split($0, a, "avg RMSE: "); if (a[2] + 0 <= 0.94) { sub(":", "", $4); print $4; exit } }' "$tmp/bpmf.log")
    if [ -n "$sweep" ] && [ "$sweep" -lt "$best_sweep" ]; then
      best_sweep=$sweep best_b=$b final=$(awk '/Final Avg RMSE/ { print $4 }' "$tmp/bpmf.log")
    fi
  done
  times=()
  for _ in $(seq "$repeats"); do
    start=$(now)
    "$bpmf" -n "$tmp/train.mtx" -p "$tmp/test.mtx" -i $((best_sweep + 1)) -b "$best_b" -t 2 >/dev/null 2>&1
    times+=("$(since "$start")")
  done
  bpmf_t=$(printf '%s\n' "${times[@]}" | median)
  echo "u$k,bpmf (-b $best_b; 0.94 at sweep $best_sweep),$final,$bpmf_t" | tee -a "$out/ml100k_bpmf.csv"

  # Carousel as one process (no launcher, so no MPI start-up) and on 2 ranks under mpirun.
  for ranks in threads 2; do
    rmses=() times=()
    for _ in $(seq "$repeats"); do
      start=$(now)
      if [ "$ranks" = threads ]; then
        CAROUSEL_RANKS=2 "$carousel" mf --train "$data/u$k.base" --test "$data/u$k.test" --quiet \
          --overwrite --out "$tmp/carousel" >/dev/null
      else
        "$root/launch/mpirun.sh" "$ranks" mf --train "$data/u$k.base" --test "$data/u$k.test" \
          --quiet --overwrite --out "$tmp/carousel" >/dev/null
      fi
      wall=$(since "$start")
      rows=$(grep -v '^#' "$tmp/carousel/trace.csv" | tail -n +2)
      sampling=$(tail -1 <<<"$rows" | cut -d, -f2)
      rmses+=("$(tail -1 <<<"$rows" | cut -d, -f4)")
      times+=("$(awk -F, -v wall="$wall" -v sampling="$sampling" \
        '$4 != "nan" && $4 <= 0.94 { printf "%.3f", wall - sampling + $2; found = 1; exit } END { if (!found) print "inf" }' <<<"$rows")")
    done
    how="launch/mpirun.sh 2"
    [ "$ranks" = threads ] && how="one process, 2 thread ranks"
    echo "u$k,carousel $how (defaults),$(printf '%s\n' "${rmses[@]}" | median),$(printf '%s\n' "${times[@]}" | median)" |
      tee -a "$out/ml100k_bpmf.csv"
  done
done
