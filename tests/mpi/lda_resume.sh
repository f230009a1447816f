#!/usr/bin/env bash
# Killed and resumed `carousel lda` runs (DESIGN.md section 4): a run killed with SIGKILL
# mid-run, or stopped with SIGTERM (exit 7 after a checkpoint), and resumed on another rank
# count dividing --tiles ends with outputs bitwise identical to an uninterrupted run
# (topic_word.npy, doc_topic.npy, and trace.csv, topics.txt, heldout.txt without '#' lines
# and seconds).
# A checkpoint of another corpus is refused with exit 5.
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

T=$TEST_TMP
ITERATIONS=1500
# A synthetic corpus and enough iterations for a run of a few seconds (about 2 s on 2 idle
# cores), so it can be interrupted with a wide margin even on a loaded machine; the
# interruptions come after the burn-in, so the posterior sums (phi, the documents' topic
# proportions, held-out predictions) are part of the restored state. RUN leaves
# --topic-word-mean to its default, which a fresh run records for its resumes (without
# the record a resume would average the draws of phi, and topic_word.npy would differ).
# --update-every 3: every checkpoint (every 100 iterations) falls between two updates of
# the topic-word blocks, whose gathered counts it must carry.
write_uci_corpus "$T/docword.txt" 2000 500 20 100 5
RUN=(--corpus "$T/docword.txt" --topics 20 --minibatch 300 --tiles 4 --seed 7
  --iterations "$ITERATIONS" --burn-in 40 --eval-every 20 --eval-sweeps 4 --update-every 3
  --checkpoint-every 100 --quiet)

# ---------------------------------------------------------------------------------------
# The uninterrupted reference run.
run_ok ref 2 lda "${RUN[@]}" --out "$T/ref"
ok "uninterrupted reference run on 2 ranks"

# ---------------------------------------------------------------------------------------
# (a) kill -9 of mpirun and every rank mid-run, then --resume on 4 ranks.
start_mpi "$T/killed.log" 2 lda "${RUN[@]}" --out "$T/killed"
wait_for_iteration "$T/killed" 300 "$BG_PID"
sleep 0.1 # land between two checkpoints
kill9_run "$T/killed" "$BG_PID"
[[ $BG_RC != 0 ]] || fail "the run to be killed had already finished; lengthen it"
[[ ! -e $T/killed/topic_word.npy && ! -e $T/killed/doc_topic.npy ]] || fail "the killed run wrote its final outputs"
[[ -z $(rank_pids "$T/killed") ]] || fail "ranks of the killed run still alive"
ckpt=$(latest_checkpoint "$T/killed")
it=$(checkpoint_iteration "$ckpt")
((it > 40 && it < ITERATIONS)) || fail "the killed run's last checkpoint is at iteration $it"
ok "killed with SIGKILL (exit $BG_RC) after the checkpoint of iteration $it"

run_ok resume-killed-p4 4 lda --resume "$T/killed"
same_lda_outputs "$T/ref" "$T/killed" "resume after kill -9 on 4 ranks"
ok "resume (checkpoint of 2 ranks) on 4 ranks: outputs identical to the uninterrupted run"

# ---------------------------------------------------------------------------------------
# (b) SIGTERM to the ranks: a checkpoint and exit 7; --resume on 1 rank finishes the chain.
start_mpi "$T/term.log" 2 lda "${RUN[@]}" --out "$T/term"
wait_for_iteration "$T/term" 200 "$BG_PID"
mapfile -t ranks < <(rank_pids "$T/term")
[[ ${#ranks[@]} == 2 ]] || fail "expected 2 ranks of the SIGTERM run, found: ${ranks[*]}"
kill -TERM "${ranks[@]}"
wait_bg "$BG_PID"
[[ $BG_RC == 7 ]] || { show_log "$T/term.log"; fail "SIGTERM to the ranks: exit $BG_RC, expected 7"; }
count=$(grep -c 'stopped by SIGTERM' "$T/term.log" || true)
[[ $count == 1 ]] || { show_log "$T/term.log"; fail "SIGTERM: $count 'stopped by SIGTERM' messages, expected 1"; }
stopped=$(sed -n 's/.*stopped by SIGTERM at iteration \([0-9]*\).*/\1/p' "$T/term.log")
ckpt=$(latest_checkpoint "$T/term")
[[ -n $stopped && $(checkpoint_iteration "$ckpt") == "$stopped" ]] ||
  fail "SIGTERM: stopped at iteration '$stopped' but the latest checkpoint is $ckpt"
((stopped > 40 && stopped < ITERATIONS)) || fail "SIGTERM: stopped at iteration $stopped"
[[ ! -e $T/term/topic_word.npy ]] || fail "SIGTERM: the stopped run wrote final outputs"
ok "SIGTERM to the ranks: exit 7 after a checkpoint at iteration $stopped, one message"
cp -a "$T/term" "$T/term3"
run_ok resume-term-p1 1 lda --resume "$T/term"
same_lda_outputs "$T/ref" "$T/term" "resume after SIGTERM on 1 rank"
ok "resume after SIGTERM on 1 rank: outputs identical to the uninterrupted run"

# ---------------------------------------------------------------------------------------
# (d) --doc-sampler mh: its state is the topics too. A run of 160 iterations (a multiple of
# --eval-every: a run that ends evaluates at its last iteration, and that evaluation's
# sample is kept) resumed to 300 on another rank count ends as the run of 300.
MH=(--corpus "$T/docword.txt" --topics 20 --minibatch 300 --tiles 4 --seed 7 --burn-in 40
  --eval-every 20 --eval-sweeps 4 --checkpoint-every 50 --doc-sampler mh --mh-steps 2 --quiet)
run_ok mh-ref 2 lda "${MH[@]}" --iterations 300 --out "$T/mh-ref"
run_ok mh-first 2 lda "${MH[@]}" --iterations 160 --out "$T/mh-split"
run_ok mh-resume-p4 4 lda --resume "$T/mh-split" --iterations 300
same_lda_outputs "$T/mh-ref" "$T/mh-split" "--doc-sampler mh: resumed on 4 ranks"
ok "--doc-sampler mh: 160 iterations, resumed to 300 on 4 ranks, identical to the run of 300"

# ---------------------------------------------------------------------------------------
# default_kept_by_resume NAME OPTION VALUE ARGS...: a 4-rank run of ARGS (200 iterations)
# resolves OPTION to VALUE by default, says so in its trace header and config.toml, and a
# resume to 300 on 2 ranks, which parses a command line that names no tiles, keeps it: it
# equals the 300-iteration run of ARGS with --tiles 4 OPTION VALUE.
default_kept_by_resume() {
  local name=$1 option=$2 value=$3
  shift 3
  local key=${option#--}
  run_ok "$name-first" 4 lda "$@" --iterations 200 --out "$T/$name"
  grep -q "^# ${key//-/_}: $value\$" "$T/$name/trace.csv" ||
    fail "4 tiles: the default $option is not $value"
  grep -q "^$key = $value  # resolved" "$T/$name/config.toml" ||
    fail "4 tiles: config.toml does not record the resolved $option $value"
  run_ok "$name-resume-p2" 2 lda --resume "$T/$name" --iterations 300
  run_ok "$name-ref" 2 lda "$@" --tiles 4 --iterations 300 "$option" "$value" --out "$T/$name-ref"
  same_lda_outputs "$T/$name-ref" "$T/$name" "default $option of a 4-tile run, resumed on 2 ranks"
}

# (e) The default burn-in follows the tiles and the run: 20 passes (20 x 4 = 80 at 4 tiles),
# at least half of the 200 iterations: 100, which the resume to 300 keeps.
default_kept_by_resume burn --burn-in 100 --corpus "$T/docword.txt" --topics 20 --minibatch 300 \
  --seed 7 --eval-every 20 --eval-sweeps 4 --checkpoint-every 100 --quiet
ok "default burn-in (half of 200 iterations at 4 tiles), kept by a resume on 2 ranks"

# (f) So does the default --eval-every, 5 passes (20 at 4 tiles), and --thin with it (a
# resume that parsed the old default 50 would keep other draws).
default_kept_by_resume eval --eval-every 20 --corpus "$T/docword.txt" --topics 20 \
  --minibatch 300 --seed 7 --burn-in 40 --eval-sweeps 4 --checkpoint-every 100 --quiet
grep -q '^thin = 20  # resolved' "$T/eval/config.toml" ||
  fail "4 tiles: config.toml does not record --thin 20, following --eval-every"
ok "default --eval-every of 5 passes (20 at 4 tiles), kept by a resume on 2 ranks"

# (g) A corpus whose commonest word holds 39% of the tokens: at 4 tiles it is split among 2
# columns (WordColumns, DESIGN.md section 9), which the trace header says. The chain of 2
# ranks, stopped at 160 iterations on 4 ranks and resumed to 300 on 1 rank, is the same.
"$CAROUSEL_BIN" gen lda --documents 600 --vocabulary 300 --topics 5 --mean-length 40 --zipf 1.6 \
  --seed 3 --out "$T/common.txt" >/dev/null
SPLIT=(--corpus "$T/common.txt" --topics 10 --tiles 4 --seed 7 --burn-in 40 --eval-every 20
  --eval-sweeps 4 --checkpoint-every 50 --quiet)
run_ok split-ref 2 lda "${SPLIT[@]}" --iterations 300 --out "$T/split-ref"
grep -q '^# split_words: 1 (2 columns)$' "$T/split-ref/trace.csv" ||
  fail "the common word was not split: $(grep split "$T/split-ref/trace.csv")"
run_ok split-first 4 lda "${SPLIT[@]}" --iterations 160 --out "$T/split"
run_ok split-resume-p1 1 lda --resume "$T/split" --iterations 300
same_lda_outputs "$T/split-ref" "$T/split" "a split word: 4 ranks resumed on 1"
ok "a common word split among 2 columns: 160 iterations on 4 ranks, resumed to 300 on 1, identical to 2 ranks"

# ---------------------------------------------------------------------------------------
# (c) Refusals: 3 ranks do not divide --tiles 4 (exit 2); a checkpoint of another corpus
# (exit 5, naming what differs).
expect_fail_mpi 2 "--tiles" 3 lda --resume "$T/term3"
ok "resume on 3 ranks of a --tiles 4 run is refused with exit 2: $EXPECT_FAIL_MESSAGE"
# The fingerprint holds the corpus's sizes and a checksum of its contents: first the same
# sizes with two counts swapped between documents, then a corpus of other sizes.
awk 'NR <= 3 { print; next }
  !a { a = NR; ca = $3; print; next }
  !b && $3 != ca { b = NR; $3 = ca; print; next }
  { print }' "$T/docword.txt" >"$T/swapped.txt"
count_b=$(awk -v ca="$(awk 'NR == 4 { print $3 }' "$T/docword.txt")" 'NR > 4 && $3 != ca { print $3; exit }' "$T/docword.txt")
awk -v cb="$count_b" 'NR == 4 { $3 = cb } { print }' "$T/swapped.txt" >"$T/docword.txt"
expect_fail_mpi 5 "does not match" 2 lda --resume "$T/term3"
ok "resume with the same-size corpus, two counts swapped, is refused with exit 5: $EXPECT_FAIL_MESSAGE"
write_uci_corpus "$T/docword.txt" 2100 500 20 100 5
expect_fail_mpi 5 "does not match" 2 lda --resume "$T/term3"
ok "resume with a changed corpus is refused with exit 5: $EXPECT_FAIL_MESSAGE"
