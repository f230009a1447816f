#!/usr/bin/env bash
# `carousel amf` end to end (issue #16): alpha-stable NMF with mirroring (HAMCMC Sec. 4.2).
#  - rank-count invariance: 1, 2 and 4 ranks (--tiles 4) give bitwise-identical W_mean.npy,
#    H_mean.npy and trace.csv (without '#' lines and seconds), for psgld and sgld;
#  - the means are non-negative (mirroring) and the Phi acceptance rate is a rate;
#  - a run killed with SIGKILL and resumed on another rank count, and one stopped by SIGTERM
#    and resumed, end bitwise-identical to the uninterrupted run;
#  - a negative entry exits 3 naming file:line; a coupled sampler (hamcmc) is refused.
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

T=$TEST_TMP
# 80 x 60 non-negative entries, about 30% observed, from a rank-1 pattern times noise.
awk 'BEGIN { srand(7); for (i = 1; i <= 80; i++) { a[i] = rand(); b[i] = rand() }
  for (i = 1; i <= 80; i++) for (j = 1; j <= 60; j++) if (rand() < 0.3)
    printf "%d %d %.3f\n", i, j, (1 + 3 * a[i] * b[j]) * (0.5 + rand()) }' >"$T/x.txt"
BASE=(--train "$T/x.txt" --rank 3 --alpha 1.5 --tiles 4 --seed 5 --quiet)

# same_amf_outputs A B WHAT : bitwise-identical results of two `carousel amf` runs.
same_amf_outputs() {
  local a=$1 b=$2 what=$3 f
  for f in W_mean.npy H_mean.npy; do
    [[ -s $a/$f && -s $b/$f ]] || fail "$what: $f missing"
    cmp -s "$a/$f" "$b/$f" || fail "$what: $f differs ($a vs $b)"
  done
  [[ $(trace_body "$a/trace.csv" | wc -l) -gt 2 ]] || fail "$what: $a/trace.csv has no rows"
  cmp -s <(trace_body "$a/trace.csv") <(trace_body "$b/trace.csv") ||
    fail "$what: trace.csv differs (ignoring '#' lines and seconds) ($a vs $b)"
}

# ---------------------------------------------------------------------------------------
# Invariance.
for sampler in psgld sgld; do
  for np in 1 2 4; do
    run_ok "$sampler-p$np" "$np" amf "${BASE[@]}" --sampler "$sampler" --step 1e-4 \
      --iterations 200 --eval-every 20 --out "$T/$sampler-p$np"
  done
  same_amf_outputs "$T/$sampler-p1" "$T/$sampler-p2" "$sampler: 1 vs 2 ranks"
  same_amf_outputs "$T/$sampler-p1" "$T/$sampler-p4" "$sampler: 1 vs 4 ranks"
  ok "$sampler: 1, 2 and 4 ranks give bitwise-identical outputs"
done
files_differ "$T/psgld-p1/W_mean.npy" "$T/sgld-p1/W_mean.npy" || fail "psgld and sgld agree"
# The header of a 2-d <f8 .npy is 128 bytes; the data are doubles, none negative (mirroring).
for f in W_mean H_mean; do
  negatives=$(od -A n -t f8 -v -j 128 "$T/psgld-p1/$f.npy" | tr -s ' ' '\n' |
    awk 'NF && $1 < 0 { n++ } END { print n + 0 }')
  [[ $negatives == 0 ]] || fail "$f.npy holds $negatives negative values"
done
trace_body "$T/psgld-p1/trace.csv" | awk -F, 'NR > 1 && !($3 > 0 && $3 <= 1) { bad = 1 }
  END { exit bad }' || fail "a Phi acceptance rate outside (0, 1]"
ok "the posterior means are non-negative; the Phi acceptance rates lie in (0, 1]"

# ---------------------------------------------------------------------------------------
# Resume after SIGKILL (on 4 ranks) and after SIGTERM (on 1 rank).
ITERATIONS=40000
RUN=("${BASE[@]}" --step 1e-4 --iterations "$ITERATIONS" --burn-in 50 --eval-every 500
  --checkpoint-every 200)
run_ok ref 2 amf "${RUN[@]}" --out "$T/ref"

start_mpi "$T/killed.log" 2 amf "${RUN[@]}" --out "$T/killed"
wait_for_iteration "$T/killed" 600 "$BG_PID"
sleep 0.1
kill9_run "$T/killed" "$BG_PID"
[[ $BG_RC != 0 ]] || fail "the run to be killed had already finished; lengthen it"
[[ ! -e $T/killed/W_mean.npy ]] || fail "the killed run wrote its final outputs"
it=$(checkpoint_iteration "$(latest_checkpoint "$T/killed")")
((it > 50 && it < ITERATIONS)) || fail "the killed run's last checkpoint is at iteration $it"
run_ok resume-killed 4 amf --resume "$T/killed"
same_amf_outputs "$T/ref" "$T/killed" "resume after kill -9 on 4 ranks"
ok "killed with SIGKILL after iteration $it, resumed on 4 ranks: identical to the uninterrupted run"

start_mpi "$T/term.log" 2 amf "${RUN[@]}" --out "$T/term"
wait_for_iteration "$T/term" 600 "$BG_PID"
mapfile -t ranks < <(rank_pids "$T/term")
kill -TERM "${ranks[@]}"
wait_bg "$BG_PID"
[[ $BG_RC == 7 ]] || { show_log "$T/term.log"; fail "SIGTERM: exit $BG_RC, expected 7"; }
run_ok resume-term 1 amf --resume "$T/term"
same_amf_outputs "$T/ref" "$T/term" "resume after SIGTERM on 1 rank"
ok "stopped by SIGTERM (exit 7), resumed on 1 rank: identical to the uninterrupted run"

# ---------------------------------------------------------------------------------------
# Bad input and options.
awk 'NR == 9 { $3 = -$3 } { print }' "$T/x.txt" >"$T/negative.txt"
expect_fail_mpi 3 "negative.txt:9" 2 amf --train "$T/negative.txt" --tiles 2 --out "$T/bad"
ok "a negative entry is named: $EXPECT_FAIL_MESSAGE"
expect_fail_mpi 2 "--sampler" 2 amf "${BASE[@]}" --sampler hamcmc --out "$T/bad"
ok "a coupled sampler is refused: $EXPECT_FAIL_MESSAGE"
