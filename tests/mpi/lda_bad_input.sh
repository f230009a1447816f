#!/usr/bin/env bash
# Bad corpora and options for `carousel lda`, each under `mpirun -np 2`: the job ends
# within seconds with the documented exit code (doc/input-formats.md, "Exit codes": 2 options, 3 input)
# and one error message (not one per rank) naming file:line, the file, or the option.
# Empty documents are not an error: they are skipped and counted. The shared KOS (UCI)
# and Reuters (LDA-C) corpora are read and run for a few iterations, and a vocabulary of
# the wrong size for each is refused. (Every parse error of the readers is covered by
# tests/io/corpus_reader_test.cpp; here one or two of each kind, through the whole job.)
# A corpus larger than the model can count or the machine can hold is refused at the line
# that crosses the limit (tests/io/corpus_limits_test.cpp), and gzip corpora read as the
# plain files.
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_lda_data

T=$TEST_TMP
# shellcheck disable=SC2034  # read by expect_fail in lib.sh
EXPECT_FAIL_LIMIT=${EXPECT_FAIL_LIMIT_BAD_INPUT:-15}
SMALL=(--topics 3 --iterations 10 --burn-in 5 --eval-every 5 --quiet)

# expect_message_has WORD... : the last expect_fail message contains every WORD
# (case-insensitive).
expect_message_has() {
  local word
  for word in "$@"; do
    grep -qiF -- "$word" <<<"$EXPECT_FAIL_MESSAGE" ||
      fail "message lacks '$word': $EXPECT_FAIL_MESSAGE"
  done
}

# bad_corpus WHERE WORD FILE [ARGS...] : --corpus FILE exits 3 naming WHERE ("file:line:"
# or "file:") once, with WORD in the message.
bad_corpus() {
  local where=$1 word=$2 file=$3
  shift 3
  expect_fail_mpi 3 "$where" 2 lda --corpus "$file" "$@" "${SMALL[@]}" --out "$T/out"
  expect_message_has "$word"
  ok "$(basename "$file"): exit 3 in ${EXPECT_FAIL_SECONDS}s: $EXPECT_FAIL_MESSAGE"
}

# ---------------------------------------------------------------------------------------
# UCI: D, W, NNZ header lines, then "doc word count" (1-based). Entries start on line 4.
printf '3\n5\n4\n1 1 2\n1 3 1\n2 2 4\n3 5 1\n' >"$T/good.uci"
printf '3\n5\n4\n1 1 2\n1 6 1\n2 2 4\n3 5 1\n' >"$T/word-id.uci"
printf '3\n5\n4\n1 1 2\n1 3 0\n2 2 4\n3 5 1\n' >"$T/count-zero.uci"
printf '3\n5\n4\n1 1 2\n1 3 -1\n2 2 4\n3 5 1\n' >"$T/count-negative.uci"
printf '3\n5\n3\n1 1 2\n1 3 1\n2 2 4\n3 5 1\n' >"$T/nnz-small.uci"
printf '3\n5\n5\n1 1 2\n1 3 1\n2 2 4\n3 5 1\n' >"$T/nnz-large.uci"
printf '3\n5\n4\n1 1 2\n1 3\n2 2 4\n3 5 1\n' >"$T/fields.uci"
printf '3\nfive\n4\n1 1 2\n' >"$T/header.uci"
printf '3\n5\n4\n1 1 2\n4 3 1\n2 2 4\n3 5 1\n' >"$T/doc-id.uci"
printf 'a\nb\nc\nd\ne\n' >"$T/vocab5.txt"
printf 'a\nb\nc\nd\n' >"$T/vocab4.txt"

bad_corpus "$T/word-id.uci:5:" "word id 6" "$T/word-id.uci"
bad_corpus "$T/count-zero.uci:5:" "count 0" "$T/count-zero.uci"
bad_corpus "$T/count-negative.uci:5:" "negative" "$T/count-negative.uci"
bad_corpus "$T/nnz-small.uci:7:" "more entries" "$T/nnz-small.uci"
bad_corpus "$T/nnz-large.uci:" "NNZ" "$T/nnz-large.uci"
bad_corpus "$T/fields.uci:5:" "malformed" "$T/fields.uci"
bad_corpus "$T/header.uci:2:" "header" "$T/header.uci"
bad_corpus "$T/doc-id.uci:5:" "document id 4" "$T/doc-id.uci"
bad_corpus "$T/missing.uci:" "cannot open" "$T/missing.uci"
bad_corpus "$T/vocab4.txt:" "W = 5" "$T/good.uci" --vocab "$T/vocab4.txt"

# ---------------------------------------------------------------------------------------
# LDA-C: "N id:count ..." per document (0-based ids), one document per line.
printf '2 0:1 2:3\n1 4:2\n2 1:1 3:1\n' >"$T/good.ldac"
printf '2 0:1 2:3\n1 5:2\n2 1:1 3:1\n' >"$T/word-id.ldac"
printf '2 0:1 2:3\n3 4:2 1:1\n2 1:1 3:1\n' >"$T/n-mismatch.ldac"
printf '2 0:1 2:3\n1 4:2\n2 1:1 3\n' >"$T/pair.ldac"

bad_corpus "$T/word-id.ldac:2:" "outside the vocabulary" "$T/word-id.ldac" --vocab "$T/vocab5.txt"
bad_corpus "$T/n-mismatch.ldac:2:" "N = 3" "$T/n-mismatch.ldac"
bad_corpus "$T/pair.ldac:3:" "malformed pair" "$T/pair.ldac"

# Nothing to train on: every document empty.
printf '2\n5\n0\n' >"$T/all-empty.uci"
bad_corpus "$T/all-empty.uci:" "no training documents" "$T/all-empty.uci"

# ---------------------------------------------------------------------------------------
# The shared corpora, with a vocabulary one word short: refused, naming the file.
head -n -1 "$KOS/vocab.kos.txt" >"$T/vocab.kos.short"
bad_corpus "$T/vocab.kos.short:" "W = " "$KOS/docword.kos.txt" --vocab "$T/vocab.kos.short"
reuters_words=$(grep -c . "$REUTERS/reuters.tokens")
head -n 100 "$REUTERS/reuters.tokens" >"$T/reuters.short"
# Each rank parses only its byte range: a bad line late in the file and a word listed twice
# for one document, on lines far apart, are named by the same file:line on 1, 3 and 4 ranks.
write_uci_corpus "$T/big.txt" 300 200 10 60 3
awk 'NR == 1500 { print $1, $2; next } { print }' "$T/big.txt" >"$T/late.txt"
awk 'NR == 4 { first = $0 } NR == 1700 { print first; next } { print }' "$T/big.txt" >"$T/dup.txt"
first=$(sed -n 4p "$T/big.txt" | awk '{ print "document " $1 " word " $2 }')
for np in 1 3 4; do
  expect_fail_mpi 3 "$T/late.txt:1500: malformed line" "$np" lda --corpus "$T/late.txt" \
    "${SMALL[@]}" --out "$T/out"
  expect_fail_mpi 3 "$T/dup.txt:1700: duplicate entry for $first (first at line 4)" "$np" lda \
    --corpus "$T/dup.txt" "${SMALL[@]}" --out "$T/out"
done
ok "a bad line and a duplicate entry across ranges: the same file:line on 1, 3 and 4 ranks"

expect_fail_mpi 3 "$REUTERS/reuters.ldac:" 2 lda --corpus "$REUTERS/reuters.ldac" \
  --vocab "$T/reuters.short" "${SMALL[@]}" --out "$T/out"
expect_message_has "outside the vocabulary of 100 words"
ok "reuters.ldac with 100 of its $reuters_words words: exit 3: $EXPECT_FAIL_MESSAGE"

# ---------------------------------------------------------------------------------------
# Limits (issue #12, io/corpus_limits.hpp): what the model counts in its types, and what
# the physical memory holds (every rank of this job is on this machine). Counts are sized
# from the memory, so that each case crosses where it should on any machine.
memory=$(($(getconf _PHYS_PAGES) * $(getconf PAGE_SIZE)))
max_tokens=$((memory / 6))             # 6 bytes a token (word, topic)
max_document=$((memory / 22))          # and 16 more while its document is built
((max_document > 4294967295)) && max_document=4294967295 # 32-bit topic counts
note "physical memory $memory bytes: at most $max_tokens tokens, $max_document in a document"

# Past the 32-bit topic counts of a document, or its memory first: at the pair that crosses.
printf '1 0:5\n2 0:3000000000 1:3000000000\n' >"$T/long.ldac"
bad_corpus "$T/long.ldac:2:" "count 3000000000 takes its document to" "$T/long.ldac"
# The issue's case, one count of 4e9, where it cannot be built (82 GiB).
printf '2 0:1 2:4000000000\n1 1:2\n' >"$T/count4e9.ldac"
if ((4000000001 * 22 > memory)); then
  bad_corpus "$T/count4e9.ldac:1:" "82.0 GiB while the document is built" "$T/count4e9.ldac"
else
  note "count4e9.ldac: skipped, a document of 4e9 tokens fits this machine"
fi

# The corpus: 100 documents of c tokens; the one that takes it past max_tokens is named,
# at any rank count (each rank parses its range apart, and learns the tokens before it).
c=$((max_tokens / 60 + 1))
if ((c <= max_document)); then
  awk -v c="$c" 'BEGIN { for (d = 0; d < 100; d++) print "1 " d % 7 ":" c }' >"$T/tokens.ldac"
  line=$((max_tokens / c + 1))
  for np in 1 2 4; do
    expect_fail_mpi 3 "$T/tokens.ldac:$line: count $c takes the corpus to $((line * c)) tokens" \
      "$np" lda --corpus "$T/tokens.ldac" "${SMALL[@]}" --out "$T/out"
  done
  expect_message_has "physical memory"
  ok "tokens past the memory: the same file:line on 1, 2 and 4 ranks: $EXPECT_FAIL_MESSAGE"
fi

# A UCI document whose two lines, far apart, hold more tokens than a document may have:
# named at the second, at any rank count (the document is put together across ranges).
half=$((max_document / 2 + 1))
{
  printf '50\n10\n100\n1 1 %d\n' "$half"
  for d in $(seq 2 50); do printf '%d 1 1\n%d 2 1\n' "$d" "$d"; done
  printf '1 3 %d\n' "$half"
} >"$T/long.uci"
for np in 1 3 4; do
  expect_fail_mpi 3 "$T/long.uci:103: count $half takes its document to $((2 * half)) tokens" \
    "$np" lda --corpus "$T/long.uci" "${SMALL[@]}" --out "$T/out"
done
ok "a UCI document too long across ranges: the same file:line on 1, 3 and 4 ranks: $EXPECT_FAIL_MESSAGE"

# Word ids: V is the largest LDA-C id + 1 and the topic-word table V x K doubles (two per
# word and topic, for one topic at least). Past the 32-bit ids on any machine.
printf '1 0:1\n2 3:1 4294967295:2\n' >"$T/id-type.ldac"
bad_corpus "$T/id-type.ldac:2:" "remap the word ids" "$T/id-type.ldac"
printf '1 0:1\n2 3:1 4294967290:2\n' >"$T/id-memory.ldac"
printf '2\n4294967295\n2\n1 1 1\n2 4294967295 1\n' >"$T/w-memory.uci"
printf '4000000000\n5\n2\n1 1 2\n2 4 1\n' >"$T/d-memory.uci"
if ((4294967291 * 16 > memory)); then
  bad_corpus "$T/id-memory.ldac:2:" "word id 4294967290 (V = largest id + 1)" "$T/id-memory.ldac"
  expect_message_has "--vocab" "physical memory"
  bad_corpus "$T/w-memory.uci:2:" "vocabulary size W = 4294967295" "$T/w-memory.uci"
else
  note "id-memory.ldac, w-memory.uci: skipped, a table of 2^32 words fits this machine"
fi
if ((4000000000 * 8 * 2 > memory)); then
  bad_corpus "$T/d-memory.uci:1:" "number of documents D = 4000000000" "$T/d-memory.uci"
fi

# ---------------------------------------------------------------------------------------
# gzip corpora and vocabularies (issue #12), known by their first bytes: the same run as
# from the plain files, on 1 and 2 ranks.
gzip -c "$KOS/docword.kos.txt" >"$T/kos.gz"
gzip -c "$KOS/vocab.kos.txt" >"$T/kos-vocab.txt"
gzip -c "$REUTERS/reuters.ldac" >"$T/reuters.ldac.gz"
KOS_RUN=(--topics 10 --tiles 2 --minibatch 100 --iterations 4 --burn-in 2 --eval-every 4
  --eval-sweeps 2 --quiet)
run_ok kos-plain 2 lda --corpus "$KOS/docword.kos.txt" --vocab "$KOS/vocab.kos.txt" \
  "${KOS_RUN[@]}" --out "$T/kos-plain"
for np in 1 2; do
  run_ok "kos-gz-p$np" "$np" lda --corpus "$T/kos.gz" --vocab "$T/kos-vocab.txt" "${KOS_RUN[@]}" \
    --out "$T/kos-gz-p$np"
  same_lda_outputs "$T/kos-plain" "$T/kos-gz-p$np" "KOS gzip on $np rank(s)"
done
run_ok reuters-plain 2 lda --corpus "$REUTERS/reuters.ldac" "${KOS_RUN[@]}" --out "$T/reuters-plain"
run_ok reuters-gz 2 lda --corpus "$T/reuters.ldac.gz" "${KOS_RUN[@]}" --out "$T/reuters-gz"
same_lda_outputs "$T/reuters-plain" "$T/reuters-gz" "Reuters gzip"
ok "gzip corpora (UCI, LDA-C) and vocabulary on 1 and 2 ranks: outputs identical to the plain files"
head -c 100000 "$T/kos.gz" >"$T/kos-cut.gz"
bad_corpus "$T/kos-cut.gz: cannot decompress: unexpected end of file" "gzip" "$T/kos-cut.gz"

# ---------------------------------------------------------------------------------------
# Bad options: exit 2, naming the option.
bad_option() {
  local option=$1
  shift
  expect_fail_mpi 2 "$option" 2 lda "$@"
  ok "$option: exit 2 in ${EXPECT_FAIL_SECONDS}s: $EXPECT_FAIL_MESSAGE"
}
G=(--corpus "$T/good.uci" --out "$T/out" --quiet)
bad_option --topics "${G[@]}" --topics 0
bad_option --tiles "${G[@]}" --tiles 3
bad_option --burn-in "${G[@]}" --iterations 10 --burn-in 10
bad_option --corpus --out "$T/out" --quiet
bad_option --doc-sampler "${G[@]}" --doc-sampler metropolis
bad_option --mh-steps "${G[@]}" --doc-sampler mh --mh-steps 0
bad_option --gibbs-draw "${G[@]}" --gibbs-draw fast
bad_option --first-update "${G[@]}" --first-update never

# ---------------------------------------------------------------------------------------
# Empty documents are skipped and counted, not an error: UCI documents 2 and 5 of 6 have
# no entries; LDA-C lines "0" are empty documents.
printf '6\n5\n5\n1 1 2\n1 3 1\n3 2 4\n4 5 1\n6 4 3\n' >"$T/empty-docs.uci"
printf '2 0:1 2:3\n0\n1 4:2\n0\n2 1:1 3:1\n' >"$T/empty-docs.ldac"
for f in empty-docs.uci empty-docs.ldac; do
  run_ok "$f" 2 lda --corpus "$T/$f" --topics 2 --iterations 10 --burn-in 5 --eval-every 5 \
    --test-fraction 0 --quiet --out "$T/out-$f"
  grep -q ', 2 empty documents skipped;' "$T/$f.log" ||
    { show_log "$T/$f.log"; fail "$f: the summary does not say '2 empty documents skipped'"; }
  grep -qx '# empty_documents_skipped: 2' "$T/out-$f/trace.csv" ||
    fail "$f: trace.csv does not record '# empty_documents_skipped: 2'"
  ok "$f: exit 0, 2 empty documents skipped and counted (summary and trace.csv)"
done

# The shared corpora are read and run (a few iterations, 2 ranks).
run_ok kos 2 lda --corpus "$KOS/docword.kos.txt" --vocab "$KOS/vocab.kos.txt" --topics 10 \
  --minibatch 100 --iterations 4 --burn-in 2 --eval-every 4 --eval-sweeps 2 --quiet --out "$T/kos"
grep -q 'carousel lda: 4 iterations on 2 rank(s)' "$T/kos.log" || { show_log "$T/kos.log"; fail "kos: no summary"; }
grep -qx '# documents: 3430' "$T/kos/trace.csv" || fail "kos: trace.csv does not record 3430 documents"
ok "KOS (UCI, 3430 documents) with its vocabulary: exit 0"
run_ok reuters 2 lda --corpus "$REUTERS/reuters.ldac" --vocab "$REUTERS/reuters.tokens" \
  --topics 10 --iterations 4 --burn-in 2 --eval-every 4 --eval-sweeps 2 --quiet --out "$T/reuters"
grep -q 'carousel lda: 4 iterations on 2 rank(s)' "$T/reuters.log" ||
  { show_log "$T/reuters.log"; fail "reuters: no summary"; }
grep -qx '# documents: 395' "$T/reuters/trace.csv" || fail "reuters: trace.csv does not record 395 documents"
ok "Reuters (LDA-C, 395 documents) with its vocabulary: exit 0"

# A corpus too small to hold out a document: a note at the start and at the end, no "nan".
printf '3\n5\n6\n1 1 2\n1 2 1\n2 3 4\n2 4 1\n3 5 2\n3 1 1\n' >"$T/tiny.txt"
run_ok tiny 1 lda --corpus "$T/tiny.txt" --topics 2 --iterations 20 --out "$T/tiny"
grep -q "^carousel lda: note: no held-out documents (3 training documents" "$T/tiny.log" &&
  grep -q "no held-out perplexity (no held-out test words" "$T/tiny.log" && ! grep -qi "nan" "$T/tiny.log" ||
  { show_log "$T/tiny.log"; fail "a corpus with no held-out document: no note, or a nan shown"; }
ok "a corpus too small to hold out a document: a note instead of 'perplexity nan'"

# carousel summary of an lda run of 2 chains gives each chain's held-out perplexity (its
# trace's last), their mean and the standard error of that mean across the chains.
run_ok kos-chains 2 lda --corpus "$KOS/docword.kos.txt" --topics 5 --iterations 12 --burn-in 6 \
  --eval-every 3 --chains 2 --quiet --out "$T/kos-chains"
"$CAROUSEL_BIN" summary "$T/kos-chains" >"$T/kos-summary.out" 2>&1 ||
  { show_log "$T/kos-summary.out"; fail "summary of the 2 lda chains failed"; }
want=$(for c in 1 2; do grep -v '^#' "$T/kos-chains/chain-$c/trace.csv" | tail -1 | cut -d, -f3; done |
  awk '{ v[NR] = $1; s += $1 } END { m = s / 2; se = sqrt(((v[1] - m)^2 + (v[2] - m)^2) / 2); printf "%.1f, %.1f; mean %.1f, standard error %.1f across the 2 chains", v[1], v[2], m, se }')
grep -qF "held-out perplexity of each chain's posterior mean: $want" "$T/kos-summary.out" ||
  { show_log "$T/kos-summary.out"; fail "summary: no perplexity line '$want'"; }
ok "summary of 2 lda chains: each chain's held-out perplexity, their mean and its standard error ($want)"
