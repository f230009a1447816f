# shellcheck shell=bash
# Sourced by the LDA benchmarks: lda_validation_split BIN KOS_DOCWORD OUTDIR writes
# OUTDIR/docword.kos-train.txt, KOS without the benchmark's held-out documents (those of
# --seed 1 --test-fraction 0.1, a keyed draw), and prints its path. Held out again by the
# same rule (--seed 1 --test-fraction 0.1), it is the validation split: no benchmark test
# token is ever seen when choosing settings on it.
lda_validation_split() {
  local bin=$1 docword=$2 out=$3
  "$bin" lda --corpus "$docword" --topics 50 --seed 1 --test-fraction 0.1 --iterations 1 \
    --burn-in 0 --eval-every 1 --eval-sweeps 1 --quiet --overwrite --out "$out/split" >/dev/null
  # heldout.txt holds 0-based ids; the docword file's are 1-based.
  awk 'NR == FNR { if ($0 !~ /^#/ && $0 != "") held[$1 + 1] = 1; next }
    FNR <= 3 { head[FNR] = $0; next }
    !($1 in held) { if (!($1 in id)) id[$1] = ++D; line[++n] = id[$1] " " $2 " " $3 }
    END { print D; print head[2]; print n; for (i = 1; i <= n; i++) print line[i] }' \
    "$out/split/heldout.txt" "$docword" >"$out/docword.kos-train.txt"
  echo "$out/docword.kos-train.txt"
}
