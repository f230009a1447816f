#!/usr/bin/env bash
# Rank-count invariance of `carousel lda` (DESIGN.md section 1): with --tiles 4 and a fixed
# seed the chain is the same on 1, 2 and 4 ranks, so topic_word.npy, doc_topic.npy (its rows
# held by the ranks of their row blocks and gathered a slice at a time), topics.txt,
# heldout.txt and trace.csv (without '#' lines and seconds) are bitwise identical, for
# scir, sgrld and sgrhmc on the cyclic schedule and for scir on the random one; the same on
# any number of worker threads per rank (--threads). Also checks
# that the comparison can fail: another seed gives other outputs. A synthetic corpus
# (300 documents, 200 words, 10 topics) keeps each run under a second.
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

T=$TEST_TMP
write_uci_corpus "$T/docword.txt" 300 200 10 60 3
COMMON=(--corpus "$T/docword.txt" --topics 10 --minibatch 40 --iterations 60 --burn-in 20
  --eval-every 20 --eval-sweeps 4 --test-fraction 0.1 --tiles 4 --quiet)

for variant in scir-cyclic sgrld-cyclic sgrhmc-cyclic scir-random; do
  sampler=${variant%-*}
  schedule=${variant#*-}
  for np in 1 2 4; do
    run_ok "$variant-p$np" "$np" lda "${COMMON[@]}" --seed 7 --sampler "$sampler" \
      --schedule "$schedule" --out "$T/$variant-p$np"
    grep -qx "# ranks: $np" "$T/$variant-p$np/trace.csv" ||
      fail "$variant: trace.csv of the $np-rank run does not record '# ranks: $np'"
  done
  # 60 iterations, burn-in 20, a draw every 20 after it: 2 draws, written at the end.
  rows=$(strip_comments "$T/$variant-p1/draws/chain-1.csv" | wc -l)
  [[ $rows == 3 ]] || fail "$variant: draws/chain-1.csv holds $((rows - 1)) draws, expected 2"
  same_lda_outputs "$T/$variant-p1" "$T/$variant-p2" "$variant: P=1 vs P=2"
  same_lda_outputs "$T/$variant-p1" "$T/$variant-p4" "$variant: P=1 vs P=4"
  ok "$variant: P=1, 2, 4 give bitwise-identical topic_word.npy, doc_topic.npy, topics.txt, heldout.txt, trace.csv"
done

# The Metropolis-Hastings document kernel draws from the same keyed streams: the same
# chain on 1, 2 and 4 ranks, and not the Gibbs chain.
for np in 1 2 4; do
  run_ok "mh-p$np" "$np" lda "${COMMON[@]}" --seed 7 --doc-sampler mh --mh-steps 2 \
    --out "$T/mh-p$np"
done
same_lda_outputs "$T/mh-p1" "$T/mh-p2" "doc-sampler mh: P=1 vs P=2"
same_lda_outputs "$T/mh-p1" "$T/mh-p4" "doc-sampler mh: P=1 vs P=4"
files_differ "$T/scir-cyclic-p1/topic_word.npy" "$T/mh-p1/topic_word.npy" ||
  fail "--doc-sampler mh gives the Gibbs chain's topic_word.npy"
cmp -s "$T/mh-p1/model.json" "$T/mh-p4/model.json" || fail "doc-sampler mh: model.json differs"
check_model_json "$T/mh-p1" lda
ok "doc-sampler mh: P=1, 2, 4 give bitwise-identical outputs and model.json, other than Gibbs's"

# Reading by rank (DESIGN.md section 8): each rank parses its byte range and the entries go
# to the rank of their document. The same chain from the corpus with its entry lines in
# reverse order (each document's entries are then spread over the ranges, and are put
# back in file order), and from the same documents in LDA-C, on 1, 2 and 4 ranks.
{
  head -n 3 "$T/docword.txt"
  tail -n +4 "$T/docword.txt" | tac
} >"$T/reversed.txt"
awk 'NR > 3 { line[$1] = line[$1] " " ($2 - 1) ":" $3; n[$1]++ }
  NR == 1 { D = $1 }
  END { for (d = 1; d <= D; d++) print n[d] + 0 line[d] }' "$T/docword.txt" >"$T/corpus.ldac"
for input in reversed.txt corpus.ldac; do
  for np in 1 2 4; do
    run_ok "$input-p$np" "$np" lda "${COMMON[@]/$T\/docword.txt/$T/$input}" --seed 7 \
      --out "$T/$input-p$np"
  done
  same_lda_outputs "$T/$input-p1" "$T/$input-p2" "$input: P=1 vs P=2"
  same_lda_outputs "$T/$input-p1" "$T/$input-p4" "$input: P=1 vs P=4"
  ok "$input read by 1, 2 and 4 ranks: bitwise-identical outputs"
done

# Worker threads within a rank (--threads): the documents of a tile are swept by whichever
# thread is free and the rows of a topic-word block are split among the threads, but every
# document and row draws from streams of its own and the counts are integers, so the chain
# is the same on any number of threads: for each simplex sampler and both document kernels,
# on one rank (more threads than CPUs) and beside other ranks. Every training document in
# every iteration (the default --minibatch 0), so each tile's sweeps are shared out among the threads.
EVERY_DOCUMENT=(--corpus "$T/docword.txt" --topics 10 --iterations 30 --burn-in 10 --eval-every 10
  --eval-sweeps 4 --test-fraction 0.1 --tiles 4 --quiet)
for variant in scir sgrld sgrhmc mh; do
  opts=(--sampler "$variant")
  [[ $variant == mh ]] && opts=(--doc-sampler mh --mh-steps 2)
  for run in p1t1:1:1 p1t3:1:3 p2t2:2:2 p4t2:4:2; do
    IFS=: read -r name np threads <<<"$run"
    run_ok "threads-$variant-$name" "$np" lda "${EVERY_DOCUMENT[@]}" --seed 7 \
      "${opts[@]}" --threads "$threads" --out "$T/threads-$variant-$name"
  done
  for name in p1t3 p2t2 p4t2; do
    same_lda_outputs "$T/threads-$variant-p1t1" "$T/threads-$variant-$name" \
      "$variant: 1 thread vs $name"
  done
  ok "$variant: 1 rank on 1 and 3 threads, 2 and 4 ranks on 2 threads each: bitwise-identical outputs"
done

# The comparison is able to fail: a different seed gives a different chain (and another
# held-out set); the schedule reaches the engine.
run_ok seed8 2 lda "${COMMON[@]}" --seed 8 --out "$T/seed8"
files_differ "$T/scir-cyclic-p2/topic_word.npy" "$T/seed8/topic_word.npy" ||
  fail "--seed 8 gives the same topic_word.npy as --seed 7"
files_differ "$T/scir-cyclic-p2/doc_topic.npy" "$T/seed8/doc_topic.npy" ||
  fail "--seed 8 gives the same doc_topic.npy as --seed 7"
! cmp -s <(trace_body "$T/scir-cyclic-p2/trace.csv") <(trace_body "$T/seed8/trace.csv") ||
  fail "--seed 8 gives the same trace.csv as --seed 7"
! cmp -s <(strip_comments "$T/scir-cyclic-p2/heldout.txt") <(strip_comments "$T/seed8/heldout.txt") ||
  fail "--seed 8 holds out the same documents as --seed 7"
ok "--seed 8 gives a different topic_word.npy, doc_topic.npy, trace.csv and held-out set than --seed 7"
files_differ "$T/scir-cyclic-p1/topic_word.npy" "$T/scir-random-p1/topic_word.npy" ||
  fail "--schedule random gives the same topic_word.npy as --schedule cyclic"
ok "--schedule random gives a different chain than --schedule cyclic"
