#!/usr/bin/env bash
# Configuration files (issue #13): every fresh run writes config.toml into its --out, with
# every option and the value the run used, and `carousel <model> --config OUT/config.toml
# --out NEW` replays the run: the sha256 of every output is that of the original run's, for
# mf and lda, replayed at 2 ranks and at 1 (the file holds the run's tiles, resolved from
# the rank count). The replay's config.toml holds the same values. Options on the command
# line override the file's. A run started from a file resumes without it. A bad key or
# value in a file, and --config with --resume, are usage errors (exit 2) naming the file.
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_ml100k
require_lda_data

T=$TEST_TMP

# output_hashes DIR : "sha256  file" for each output file in DIR, of the file without its
# '#' header lines (they record the command line and the rank count) and, for trace.csv,
# without the timing column. config.toml is the replay's input: config_values compares it.
output_hashes() {
  local f base
  for f in "$1"/*; do
    [[ -f $f ]] || continue
    base=$(basename "$f")
    [[ $base == config.toml ]] && continue
    case $base in
      trace.csv) trace_body "$f" ;;
      *.csv | *.txt) strip_comments "$f" ;;
      *) cat "$f" ;;
    esac | sha256sum | awk -v n="$base" '{ print $1 "  " n }'
  done
}

# same_hashes A B WHAT : A and B hold the same output files, with the same sha256.
same_hashes() {
  local a=$1 b=$2 what=$3
  output_hashes "$a" >"$T/hashes.a"
  output_hashes "$b" >"$T/hashes.b"
  [[ $(wc -l <"$T/hashes.a") -ge 3 ]] || fail "$what: $a holds only $(wc -l <"$T/hashes.a") outputs"
  diff "$T/hashes.a" "$T/hashes.b" >&2 || fail "$what: the outputs' sha256 differ ($a vs $b)"
}

# config_values FILE : the key = value lines of a config.toml, without the "resolved" notes.
config_values() { grep -v -e '^#' -e '^$' "$1" | sed 's/  # resolved: .*//'; }

# replays NAME NP ARGS... : a fresh run on NP ranks into $T/NAME, then replays of its
# config.toml on 2 ranks (when NP is 2) and on 1, each with the original's outputs.
replays() {
  local name=$1 np=$2 p
  shift 2
  run_ok "$name" "$np" "$@" --out "$T/$name"
  [[ -s $T/$name/config.toml ]] || fail "$name: no config.toml in --out"
  for p in 2 1; do
    ((p <= np)) || continue
    run_ok "$name-replay-$p" "$p" "$1" --config "$T/$name/config.toml" --out "$T/$name-replay-$p"
    same_hashes "$T/$name" "$T/$name-replay-$p" "$name (on $np ranks) replayed on $p"
    diff <(config_values "$T/$name/config.toml") <(config_values "$T/$name-replay-$p/config.toml") >&2 ||
      fail "$name replayed on $p: its config.toml holds other values"
  done
  ok "$name on $np rank(s): replayed from its config.toml $( ((np == 2)) && echo "on 2 and 1 ranks" || echo "on 1 rank"), outputs bitwise the same ($(wc -l <"$T/hashes.a") files)"
}

# No --tiles, --burn-in, --step, --step-warmup or --schedule: the run resolves them, and the file holds
# what it chose.
MF=(mf --train "$ML100K/u1.base" --test "$ML100K/u1.test" --rank 4 --iterations 40
  --eval-every 10 --seed 5 --quiet)
LDA=(lda --corpus "$KOS/docword.kos.txt" --vocab "$KOS/vocab.kos.txt" --topics 8 --iterations 12
  --eval-every 4 --eval-sweeps 4 --minibatch 300 --seed 5 --quiet)

replays mf 2 "${MF[@]}"
cfg=$T/mf/config.toml
for line in 'tiles = 2  # resolved: one tile per rank' \
  'burn-in = 20  # resolved: the default: 30 x --tiles, at most half of --iterations' \
  'sampler = "sgrld"' 'schedule = "cyclic"  # resolved: the default' 'no-bias = false' \
  "step-warmup = 20  # resolved: the sampler's default, at most --burn-in" \
  "train = \"$ML100K/u1.base\"" 'rank = 4' 'quiet = true'; do
  grep -q -x -F -- "$line" "$cfg" || fail "config.toml has no line '$line'"
done
grep -q -E '^step = [0-9.e-]+  # resolved: ' "$cfg" || fail "config.toml has no resolved step"
grep -q -E '^rmsprop-lambda = [0-9.e-]+  # resolved: ' "$cfg" ||
  fail "config.toml has no resolved rmsprop-lambda"
grep -q -E '^(out|resume|overwrite|config) ' "$cfg" && fail "config.toml records --out, --resume, --overwrite or --config"
# shellcheck disable=SC2016  # the backquotes are the header's own
head -n 1 "$cfg" | grep -q -F '# config.toml of a `carousel mf` run (carousel ' ||
  fail "config.toml's header does not name the command and version"
replays mf-sgrld 1 "${MF[@]}" --sampler sgrld
grep -q -x -F 'metric = "fisher"  # resolved: the sampler'"'"'s default' "$T/mf-sgrld/config.toml" ||
  fail "sgrld's config.toml does not hold the metric it used"

replays lda 2 "${LDA[@]}"
grep -q -x -F 'tiles = 2  # resolved: one tile per rank' "$T/lda/config.toml" ||
  fail "lda's config.toml does not hold its tiles"
grep -q -x -F 'step = 2  # resolved: the sampler'"'"'s default' "$T/lda/config.toml" ||
  fail "lda's config.toml does not hold scir's step"
SWEEPS_RULE="the default: 1 from 2 training tokens per topic-word entry of an update's tiles, else 2"
UPDATE_RULE='the default: the fewest tiles, at most --tiles, with 3 training tokens per topic-word entry'
grep -q -x -F "update-every = 2  # resolved: $UPDATE_RULE" "$T/lda/config.toml" ||
  fail "lda's config.toml does not hold the update every 2 tiles it resolved (0.37 tokens per entry)"
grep -q -x -F "sweeps = 2  # resolved: $SWEEPS_RULE" "$T/lda/config.toml" ||
  fail "lda's config.toml does not hold the 2 sweeps it resolved (0.74 tokens per entry of an update)"
replays lda-sgrld 1 "${LDA[@]}" --sampler sgrld

# --update-every and --sweeps follow the corpus: a generated corpus of 200 words and about
# 49,000 training tokens, at 5 topics, gives a tile of 2 tiles 24 tokens per entry, so an
# update every tile and one sweep; on 1 rank 10 documents per iteration (1.4 tokens per
# entry) resolve two sweeps; on 2 tiles 40 documents per iteration (2.7 per entry of a tile)
# an update every 2 tiles and one sweep.
"$CAROUSEL_BIN" gen lda --documents 400 --vocabulary 200 --topics 5 --seed 3 \
  --out "$T/small-vocab.txt" >/dev/null || fail "carousel gen lda failed"
DENSE=(lda --corpus "$T/small-vocab.txt" --topics 5 --iterations 4 --eval-every 2 --eval-sweeps 2
  --seed 5 --quiet)
replays lda-dense 2 "${DENSE[@]}"
grep -q -x -F "sweeps = 1  # resolved: $SWEEPS_RULE" "$T/lda-dense/config.toml" ||
  fail "24 tokens per entry: config.toml does not hold 1 sweep"
grep -q -x -F "update-every = 1  # resolved: $UPDATE_RULE" "$T/lda-dense/config.toml" ||
  fail "24 tokens per entry: config.toml does not hold an update every tile"
grep -q -x -F '# sweeps: 1' "$T/lda-dense/trace.csv" || fail "24 tokens per entry: the trace does not say 1 sweep"
run_ok lda-dense-minibatch 1 "${DENSE[@]}" --minibatch 10 --out "$T/lda-dense-minibatch"
grep -q -E '^sweeps = 2  # resolved: ' "$T/lda-dense-minibatch/config.toml" ||
  fail "1.4 tokens per entry (--minibatch 10): config.toml does not hold 2 sweeps"
run_ok lda-dense-update 2 "${DENSE[@]}" --minibatch 40 --out "$T/lda-dense-update"
grep -q -E '^update-every = 2  # resolved: ' "$T/lda-dense-update/config.toml" ||
  fail "2.7 tokens per entry of a tile (--minibatch 40): config.toml does not hold an update every 2 tiles"
grep -q -E '^sweeps = 1  # resolved: ' "$T/lda-dense-update/config.toml" ||
  fail "5.4 tokens per entry of an update (--minibatch 40): config.toml does not hold 1 sweep"
ok "--update-every and --sweeps resolve from the training tokens per topic-word entry: 2 tiles and 2 sweeps at 0.37, 1 and 2 at 1.4, 1 and 1 at 24, 2 and 1 at 2.7"

# ---------------------------------------------------------------------------------------
# The command line overrides the file.
run_ok mf-seed6 2 mf --config "$cfg" --seed 6 --out "$T/mf-seed6"
grep -q -x -F 'seed = 6' "$T/mf-seed6/config.toml" || fail "--seed 6 over the file: config.toml does not say seed = 6"
files_differ "$T/mf/W_sample.npy" "$T/mf-seed6/W_sample.npy" ||
  fail "--seed 6 over the file's seed 5 gave the same samples"
ok "--seed 6 on the command line overrides the file's seed = 5"

# A run started from a file keeps the file's options in its checkpoints: it resumes (and
# writes the same outputs) after the file is gone, and its trace records them, not the file.
cp "$cfg" "$T/gone.toml"
run_ok from-file 2 mf --config "$T/gone.toml" --checkpoint-every 20 --out "$T/from-file"
rm "$T/gone.toml"
run_ok from-file-resume 1 mf --resume "$T/from-file" --iterations 40
same_hashes "$T/mf" "$T/from-file" "a run started from a config file, resumed without it"
grep -q -E '^# command: carousel mf .*--train[= ].* --seed[= ]5 ' "$T/from-file/trace.csv" ||
  fail "the trace of a run from a config file does not record the file's options"
grep -q -F -- '--config' "$T/from-file/trace.csv" && fail "the trace records --config"
ok "a run started with --config resumes after the file is deleted; outputs unchanged"

# ---------------------------------------------------------------------------------------
# Errors: exit 2, one message for the job, naming the file.
printf 'rank = 4\niteratons = 5\n' >"$T/bad-key.toml"
expect_fail_mpi 2 "carousel mf: config file $T/bad-key.toml:2: unknown option 'iteratons'; did you mean 'iterations'?" \
  2 mf --config "$T/bad-key.toml" --out "$T/bad"
printf 'iterations = 5\nrnak = 4\n' >"$T/bad-short-key.toml"
expect_fail_mpi 2 "carousel mf: config file $T/bad-short-key.toml:2: unknown option 'rnak'; did you mean 'rank'?" \
  2 mf --config "$T/bad-short-key.toml" --out "$T/bad"
ok "an unknown key: exit 2, with its line and the option meant: $EXPECT_FAIL_MESSAGE"
# A key given twice, far apart (TOML forbids it; CLI11 would take the first silently).
printf 'topics = 5\nrank = 4\niterations = 5\nrank = 7\n' | sed 's/^topics = 5/seed = 3/' >"$T/twice.toml"
expect_fail_mpi 2 "carousel mf: config file $T/twice.toml:4: 'rank' is set again (first on line 2); a key may be given once" \
  2 mf --train "$ML100K/u1.base" --config "$T/twice.toml" --out "$T/bad"
printf 'seed = 3\nrank = 4\nrank = 7\n' >"$T/twice-adjacent.toml"
expect_fail_mpi 2 "carousel mf: config file $T/twice-adjacent.toml:3: 'rank' is set again (first on line 2); a key may be given once" \
  2 mf --train "$ML100K/u1.base" --config "$T/twice-adjacent.toml" --out "$T/bad"
ok "a key given twice, far apart or adjacent: exit 2: $EXPECT_FAIL_MESSAGE"
sed 's/^iterations = .*/iterations = 0/' "$cfg" >"$T/bad-value.toml"
expect_fail_mpi 2 "--iterations: '0' is not a number in [1, 1099511627776]" 2 mf --config "$T/bad-value.toml" --out "$T/bad"
grep -q -F "(iterations is set in config file $T/bad-value.toml)" "$T/last.err" ||
  { show_log "$T/last.err"; fail "a bad value in the file: the message does not name the file"; }
ok "a bad value: exit 2: $EXPECT_FAIL_MESSAGE"
sed 's/^sampler = .*/sampler = "sgdl"/' "$cfg" >"$T/bad-sampler.toml"
expect_fail_mpi 2 "(sampler is set in config file $T/bad-sampler.toml)" \
  2 mf --config "$T/bad-sampler.toml" --out "$T/bad"
ok "an unknown sampler: exit 2: $EXPECT_FAIL_MESSAGE"
printf 'resume = "%s"\n' "$T/mf" >"$T/resume.toml"
expect_fail_mpi 2 "config file $T/resume.toml:1: 'resume' cannot be set in a config file" \
  2 mf --config "$T/resume.toml" --out "$T/bad"
expect_fail_mpi 2 "option --config: cannot be given with --resume" \
  2 mf --resume "$T/from-file" --config "$cfg"
ok "--resume in a file, --config with --resume: exit 2: $EXPECT_FAIL_MESSAGE"
expect_fail_mpi 2 "option --config: cannot read the config file $T/none.toml" \
  2 lda --config "$T/none.toml" --out "$T/bad"
[[ ! -e $T/bad ]] || fail "a refused run created its --out"
ok "a missing config file: exit 2: $EXPECT_FAIL_MESSAGE"
