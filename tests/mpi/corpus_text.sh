#!/usr/bin/env bash
# `carousel corpus`: raw text (one document per line, UTF-8) to the UCI files `carousel lda`
# reads. A small text of three themes, with punctuation, capitals, digits, Latin-1 letters,
# a line of stop words only and a blank line, is converted; docword.txt and vocab.txt are
# compared byte for byte with an independent tokenisation in python3 (split on what is not
# a letter, lower-case, drop short words and stop words, document-frequency cuts,
# alphabetical vocabulary); `carousel lda` then runs on the result under mpirun -np 1 and 2.
# Invalid UTF-8, a missing or empty file, no vocabulary left and bad options fail with exit
# codes 3 and 2 and a message naming file:line or the option.
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

T=$TEST_TMP
corpus() { timeout -k 5 60 "$CAROUSEL_BIN" corpus "$@" </dev/null; }

# 40 documents over three themes; words of a document drawn by a fixed LCG. Line 7 holds
# only stop words and line 13 is blank: both stay documents without entries.
awk 'BEGIN {
  split("Apple banana cherry grape lemon mango melon peach pear plum", fruit, " ")
  split("engine wheel brake clutch gear piston diesel motor tyre axle", car, " ")
  split("café crème Ärger straße naïve façade rôle été garçon déjà", misc, " ")
  split("the and of to a in is it that which", stop, " ")
  stop[11] = "don" sprintf("%c", 39) "t"
  seed = 7
  for (d = 1; d <= 40; d++) {
    if (d == 7) { print "The, and OF -- to it; that is which..."; continue }
    if (d == 13) { print ""; continue }
    line = ""
    for (t = 0; t < 12; t++) {
      seed = (seed * 1103515245 + 12345) % 2147483648
      r = int(seed / 65536) % 100
      k = int(seed / 256) % 10 + 1
      if (r < 25) w = stop[int(seed / 4096) % 11 + 1]
      else if (d % 3 == 0) w = fruit[k]
      else if (d % 3 == 1) w = car[k]
      else w = misc[k]
      if (r % 7 == 0) w = toupper(w)
      sep = (r % 5 == 0) ? ", " : (r % 5 == 1) ? " — " : (r % 5 == 2) ? " 42" : " "
      line = line sep w
    }
    print line "."
  }
}' >"$T/text.txt"
printf 'the\nand\nof\nto\na\nin\nis\nit\nthat\nwhich\ndon\nt\n' >"$T/stop.txt"

# expected.py TEXT STOP MIN_LENGTH MIN_DF MAX_DF OUT: the UCI files by the documented rule.
cat >"$T/expected.py" <<'PY'
import sys
text, stop_path, min_length, min_df, max_df, out = sys.argv[1:]
min_length, min_df, max_df = int(min_length), int(min_df), float(max_df)
stop = {w.strip().lower() for w in open(stop_path, encoding="utf-8") if w.strip()}
docs = []
for line in open(text, encoding="utf-8", newline="\n"):
    line = line.rstrip("\n")
    words, cur = [], ""
    for ch in line + " ":
        if ch.isalpha():
            cur += ch.lower()
        else:
            if len(cur) >= min_length and cur not in stop:
                words.append(cur)
            cur = ""
    docs.append(words)
df = {}
for words in docs:
    for w in set(words):
        df[w] = df.get(w, 0) + 1
vocab = sorted(w for w, n in df.items() if n >= min_df and n <= max_df * len(docs))
ids = {w: i + 1 for i, w in enumerate(vocab)}
entries = []
for d, words in enumerate(docs, 1):
    counts = {}
    for w in words:
        if w in ids:
            counts[ids[w]] = counts.get(ids[w], 0) + 1
    entries += [f"{d} {i} {counts[i]}" for i in sorted(counts)]
with open(out + "/docword.txt", "w", encoding="utf-8") as f:
    f.write(f"{len(docs)}\n{len(vocab)}\n{len(entries)}\n" + "".join(e + "\n" for e in entries))
with open(out + "/vocab.txt", "w", encoding="utf-8") as f:
    f.write("".join(w + "\n" for w in vocab))
PY

mkdir -p "$T/expected"
python3 "$T/expected.py" "$T/text.txt" "$T/stop.txt" 3 2 0.5 "$T/expected"
corpus --text "$T/text.txt" --out "$T/c" --stop-words "$T/stop.txt" >"$T/corpus.log" 2>&1 ||
  { show_log "$T/corpus.log"; fail "carousel corpus failed"; }
for f in docword.txt vocab.txt; do
  cmp -s "$T/c/$f" "$T/expected/$f" || {
    diff "$T/c/$f" "$T/expected/$f" | head -20 >&2
    fail "$f differs from the independent computation"
  }
done
grep -qx 'min_df = 2' "$T/c/corpus.txt" || fail "corpus.txt does not record min_df"
grep -qx 'empty_documents = 2' "$T/c/corpus.txt" || fail "corpus.txt: expected 2 empty documents"
grep -q '40 documents (2 empty' "$T/corpus.log" || fail "summary line: $(cat "$T/corpus.log")"
grep -qx 'café' "$T/c/vocab.txt" || fail "café not in the vocabulary"
grep -qx 'ärger' "$T/c/vocab.txt" || fail "Ärger not lower-cased to ärger"
ok "docword.txt and vocab.txt match python3 ($(sed -n 2p "$T/c/docword.txt") words, $(sed -n 3p "$T/c/docword.txt") entries)"

# The built-in list drops the same function words; --max-vocab keeps the N in most documents.
corpus --text "$T/text.txt" --out "$T/builtin" --max-vocab 5 >"$T/builtin.log" 2>&1 ||
  { show_log "$T/builtin.log"; fail "carousel corpus (builtin stop words) failed"; }
[[ $(wc -l <"$T/builtin/vocab.txt") == 5 ]] || fail "--max-vocab 5 kept $(wc -l <"$T/builtin/vocab.txt") words"
! grep -qxE 'the|and|which|that' "$T/builtin/vocab.txt" || fail "built-in stop words left in"
corpus --text "$T/text.txt" --out "$T/nostop" --stop-words none --min-length 1 --max-df 1 \
  >"$T/nostop.log" 2>&1 || { show_log "$T/nostop.log"; fail "--stop-words none failed"; }
grep -qx 'the' "$T/nostop/vocab.txt" || fail "--stop-words none still dropped 'the'"
ok "built-in stop words, --max-vocab, --stop-words none"

# carousel lda runs on the result.
for np in 1 2; do
  run_ok "lda$np" "$np" lda --corpus "$T/c/docword.txt" --vocab "$T/c/vocab.txt" --topics 3 \
    --iterations 10 --burn-in 5 --eval-every 5 --minibatch 20 --quiet --out "$T/lda$np"
  [[ -s $T/lda$np/topics.txt && -s $T/lda$np/topic_word.npy ]] || fail "lda -np $np: no outputs"
  ok "carousel lda -np $np on the converted corpus"
done

# Errors.
printf 'good words here\nmore w\xe9rds here\n' >"$T/latin1.txt"
expect_fail 3 "$T/latin1.txt:2: invalid UTF-8: byte 0xE9 at byte offset 6" \
  "$CAROUSEL_BIN" corpus --text "$T/latin1.txt" --out "$T/bad"
ok "invalid UTF-8: exit 3: $EXPECT_FAIL_MESSAGE"
expect_fail 3 "$T/missing.txt: cannot open" "$CAROUSEL_BIN" corpus --text "$T/missing.txt" --out "$T/bad"
ok "missing file: exit 3"
: >"$T/empty.txt"
expect_fail 3 "$T/empty.txt: empty file" "$CAROUSEL_BIN" corpus --text "$T/empty.txt" --out "$T/bad"
ok "empty file: exit 3"
printf 'the and of\nunique words only\n' >"$T/novocab.txt"
expect_fail 3 "no vocabulary left" "$CAROUSEL_BIN" corpus --text "$T/novocab.txt" --out "$T/bad"
ok "no vocabulary: exit 3: $EXPECT_FAIL_MESSAGE"
[[ ! -e $T/bad/docword.txt ]] || fail "a failed run left $T/bad/docword.txt"
expect_fail 2 "--max-df" "$CAROUSEL_BIN" corpus --text "$T/text.txt" --out "$T/bad" --max-df 1.5
expect_fail 2 "--min-df" "$CAROUSEL_BIN" corpus --text "$T/text.txt" --out "$T/bad" --min-df 0
expect_fail 3 "$T/nostop.txt: cannot open" "$CAROUSEL_BIN" corpus --text "$T/text.txt" \
  --out "$T/bad" --stop-words "$T/nostop.txt"
ok "bad options: exit 2; missing stop-word file: exit 3"
