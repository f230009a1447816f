#!/usr/bin/env bash
# --chains (issue #13): C chains in one job, concurrently on groups of ranks or one after
# another, each bitwise the single-chain run with its derived seed; their draws in
# OUT/draws/chain-c.csv (CmdStan's CSV layout); --resume OUT goes on with every chain; a
# failing chain is named and sets the exit code. Also: the draws are the same at any rank
# count, and `carousel summary` reads them.
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_ml100k

T=$TEST_TMP
COMMON=(--train "$ML100K/u1.base" --test "$ML100K/u1.test" --rank 5 --burn-in 10 --eval-every 5 --thin 2 --save-draws "users=1,5 items=3" --quiet)

# same_chain A B WHAT : two single-chain output dirs hold the same chain, draws included.
same_chain() {
  same_outputs "$1" "$2" "$3"
  cmp -s <(strip_comments "$1/draws/chain-1.csv") <(strip_comments "$2/draws/chain-1.csv") ||
    fail "$3: draws differ ($1 vs $2)"
}

# Four chains on 2 ranks (two groups of one rank, two chains each) and on 1 rank (one after
# another): the same chains.
run_ok four-p2 2 mf "${COMMON[@]}" --iterations 40 --tiles 2 --chains 4 --out "$T/four-p2"
run_ok four-p1 1 mf "${COMMON[@]}" --iterations 40 --tiles 2 --chains 4 --out "$T/four-p1"
grep -q "4 chains finished (2 at a time)" "$T/four-p2.log" && grep -q "The chains .*mixed" "$T/four-p2.log" ||
  fail "four-p2: no closing lines"
for c in 1 2 3 4; do
  [[ -L $T/four-p2/draws/chain-$c.csv ]] || fail "draws/chain-$c.csv is not there"
  same_chain "$T/four-p1/chain-$c" "$T/four-p2/chain-$c" "chain $c: 1 rank vs 2 ranks"
done
ok "4 chains: concurrently on 2 ranks and one after another on 1 rank give the same chains"

# Chain 3 is the single run with the seed chains.txt gives it and the run's --split-seed
# (its --seed, 1); chain 1 uses --seed itself.
seed3=$(awk '$1 == "chain" && $2 == 3 { print $4 }' "$T/four-p2/chains.txt")
[[ -n $seed3 && $seed3 != 1 ]] || fail "chains.txt gives no seed of its own for chain 3"
run_ok single3 1 mf "${COMMON[@]}" --iterations 40 --tiles 2 --seed "$seed3" --split-seed 1 \
  --out "$T/single3"
same_chain "$T/single3" "$T/four-p2/chain-3" "chain 3 vs the single run with seed $seed3"
# The control: with its own split seed (its own tile grid) the run is another chain.
run_ok own-grid3 1 mf "${COMMON[@]}" --iterations 40 --tiles 2 --seed "$seed3" --out "$T/own-grid3"
files_differ "$T/own-grid3/W_mean.npy" "$T/four-p2/chain-3/W_mean.npy" ||
  fail "chain 3 does not depend on the tile grid's seed"
run_ok single1 1 mf "${COMMON[@]}" --iterations 40 --tiles 2 --out "$T/single1"
same_chain "$T/four-p1/chain-1" "$T/single1" "chain 1 vs the single run with --seed 1"
files_differ "$T/four-p2/chain-1/W_mean.npy" "$T/four-p2/chain-2/W_mean.npy" ||
  fail "chains 1 and 2 are the same chain"
ok "chain 3 is bitwise the single run with seed $seed3, chain 1 the one with --seed; chains differ"

# Without --tiles every chain runs on the tiles of the run without --chains: under mpirun
# one per rank, so chain 1 of 2 chains on 2 ranks (one rank each) is the run on 2 ranks.
run_ok default-chains 2 mf "${COMMON[@]}" --iterations 40 --chains 2 --out "$T/default-chains"
run_ok default-single 2 mf "${COMMON[@]}" --iterations 40 --out "$T/default-single"
same_chain "$T/default-chains/chain-1" "$T/default-single" "chain 1 vs the run without --chains (mpirun -np 2)"
ok "under mpirun, chain 1 of --chains 2 is the run without --chains, on its default tiles"

# Without a launcher the chains run concurrently on the CPUs: --tiles 1 on this machine's
# CPUs runs min(CPUs, 2) at a time, and chain 1 is the run without --chains; so is it at
# the default tiles (one per CPU, as the run without --chains has).
cpus=$(nproc)
((cpus <= 16)) || cpus=16
want=$((cpus < 2 ? 1 : 2))
run_plain() {
  local name=$1 rc=0
  shift
  timeout -k 10 "$CAROUSEL_TEST_TIMEOUT" "${NO_LAUNCHER_ENV[@]}" -u CAROUSEL_RANKS "$CAROUSEL_BIN" "$@" \
    </dev/null >"$T/$name.log" 2>&1 || rc=$?
  [[ $rc == 0 ]] || { show_log "$T/$name.log"; fail "$name: exit $rc: carousel $*"; }
}
run_plain threads-chains mf "${COMMON[@]}" --iterations 40 --tiles 1 --chains 2 --out "$T/threads-chains"
grep -q "2 chains finished ($want at a time)" "$T/threads-chains.log" ||
  { show_log "$T/threads-chains.log"; fail "--chains 2 --tiles 1 without a launcher: not $want at a time"; }
run_plain threads-single mf "${COMMON[@]}" --iterations 40 --tiles 1 --out "$T/threads-single"
same_chain "$T/threads-chains/chain-1" "$T/threads-single" "chain 1 vs the run without --chains (--tiles 1, threads)"
run_plain threads-default-chains mf "${COMMON[@]}" --iterations 40 --chains 2 --out "$T/threads-default-chains"
run_plain threads-default mf "${COMMON[@]}" --iterations 40 --out "$T/threads-default"
grep -q "^tiles = $cpus" "$T/threads-default-chains/chain-1/config.toml" ||
  fail "--chains 2 without a launcher: chain 1 does not run on $cpus tiles"
same_chain "$T/threads-default-chains/chain-1" "$T/threads-default" "chain 1 vs the run without --chains (default tiles, threads)"
ok "without a launcher: --chains 2 --tiles 1 runs $want chains at a time; chain 1 is the run without --chains, at --tiles 1 and at the default tiles ($cpus)"

# The draws file: CmdStan's keys, one row per kept draw (iterations 12, 14, ..., 40), the
# selected factors' columns.
d=$T/four-p2/draws/chain-2.csv
grep -qx "#   num_samples = 15" "$d" || fail "draws: num_samples is not 15: $(grep num_samples "$d")"
grep -qx "#   thin = 2" "$d" && grep -qx "#   num_warmup = 10" "$d" || fail "draws: thin/warmup"
header=$(strip_comments "$d" | head -1)
[[ $header == lp__,log_lik,tau,lambda_w,lambda_h,lambda_b,lambda_c,rmse_train,rmse_test,W_1.1,* ]] ||
  fail "draws header: $header"
[[ $header == *,b_5,H_3.1,*,c_3 ]] || fail "draws header lacks the selected factors: $header"
[[ $(strip_comments "$d" | tail -n +2 | wc -l) == 15 ]] || fail "draws: not 15 rows"
ok "draws/chain-c.csv: CmdStan's header keys, 15 kept draws, the selected factors' columns"

# The draws do not depend on the rank count (--tiles 2 on 1 and 2 ranks).
run_ok tiles2-p1 1 mf "${COMMON[@]}" --iterations 40 --tiles 2 --out "$T/tiles2-p1"
run_ok tiles2-p2 2 mf "${COMMON[@]}" --iterations 40 --tiles 2 --out "$T/tiles2-p2"
same_chain "$T/tiles2-p1" "$T/tiles2-p2" "--tiles 2: P=1 vs P=2"
ok "the draws are bitwise the same on 1 and 2 ranks"

# carousel summary reads the four chains.
"$CAROUSEL_BIN" summary "$T/four-p2" >"$T/summary.out" 2>&1 || {
  show_log "$T/summary.out"
  fail "carousel summary failed"
}
grep -q "^log_lik" "$T/summary.out" && grep -q "W_1.1" "$T/summary.out" ||
  { show_log "$T/summary.out"; fail "summary lacks log_lik or W_1.1"; }
grep -Eq "^calibration on the test set .*: 50/80/90/95% predictive intervals cover [0-9.]+/[0-9.]+/[0-9.]+/[0-9.]+% of 20000 test ratings; mean log predictive density -[0-9.]+$" "$T/summary.out" ||
  { show_log "$T/summary.out"; fail "summary gives no calibration of the test predictions"; }
grep -Eq "^carousel mf: calibration: 50/80/90/95% predictive intervals cover" "$T/single1.log" ||
  { show_log "$T/single1.log"; fail "mf's closing lines give no calibration"; }
ok "carousel summary OUT reads the 4 chains' draws, and gives the calibration on the test set, as mf's closing lines do"

# A draws file whose last line was cut mid-number (a run killed while writing it): summary
# leaves that line out and says so, and its figures are those of the complete lines.
cut=$T/cut.csv
grep -v '^$' "$T/four-p2/draws/chain-1.csv" >"$cut"
printf '%s' "$(tail -n 1 "$cut" | cut -c1-7)" >>"$cut"  # a partial line without a newline
"$CAROUSEL_BIN" summary "$cut" >"$T/cut.out" 2>&1 || { show_log "$T/cut.out"; fail "summary of a cut draws file failed"; }
grep -q "^carousel summary: note: $cut: left out its unfinished last line\$" "$T/cut.out" ||
  { show_log "$T/cut.out"; fail "summary gave no note on the cut last line"; }
"$CAROUSEL_BIN" summary "$T/four-p2/draws/chain-1.csv" >"$T/whole.out" 2>&1
cmp -s <(grep '^log_lik' "$T/cut.out") <(grep '^log_lik' "$T/whole.out") ||
  { show_log "$T/cut.out"; fail "the cut line entered the summary"; }
ok "summary of a draws file cut mid-number: the partial line left out, with a note"

# R's posterior package reads them as a draws array (when R is installed; the diagnostics
# test installs it as root, and compares the figures).
if command -v Rscript >/dev/null && Rscript -e 'library(posterior)' >/dev/null 2>&1; then
  Rscript -e '
    files <- sprintf("%s/draws/chain-%d.csv", commandArgs(TRUE)[1], 1:4)
    chains <- lapply(files, function(f) as.matrix(read.csv(f, comment.char = "#")))
    d <- posterior::as_draws_array(simplify2array(chains) |> aperm(c(1, 3, 2)))
    stopifnot(posterior::niterations(d) == 15, posterior::nchains(d) == 4,
              posterior::nvariables(d) == 27)
    s <- posterior::summarise_draws(d)
    stopifnot(all(is.finite(s$rhat)))
    cat("R: ", posterior::nvariables(d), "variables, 4 chains of 15 draws\n")' "$T/four-p2" \
    >"$T/r.out" 2>&1 || { show_log "$T/r.out"; fail "R posterior could not read the draws"; }
  ok "R's posterior reads the draws: $(cat "$T/r.out")"
else
  note "Rscript with the posterior package is not installed: R reading not checked here"
fi
# rstan's reader needs lp__ (CmdStan's first column); checked where r-cran-rstan is installed.
if command -v Rscript >/dev/null && Rscript -e 'library(rstan)' >/dev/null 2>&1; then
  Rscript -e '
    suppressMessages(library(rstan))
    fit <- suppressWarnings(read_stan_csv(sprintf("%s/draws/chain-%d.csv", commandArgs(TRUE)[1], 1:4)))
    stopifnot(dim(as.array(fit))[1] == 15, dim(as.array(fit))[2] == 4)' "$T/four-p2" \
    >"$T/rstan.out" 2>&1 || { show_log "$T/rstan.out"; fail "rstan::read_stan_csv could not read the draws"; }
  ok "rstan::read_stan_csv reads the 4 chains' draws"
else
  note "r-cran-rstan is not installed: rstan::read_stan_csv not checked here"
fi

# Resume: 2 chains stopped after 20 iterations (checkpoints every 10), continued to 40, are
# the uninterrupted 40-iteration chains. On 1 rank the second chain had not started: it
# starts afresh when resumed.
run_ok two-full 2 mf "${COMMON[@]}" --iterations 40 --chains 2 --out "$T/two-full"
run_ok two-part 2 mf "${COMMON[@]}" --chains 2 --iterations 20 --checkpoint-every 10 \
  --out "$T/two-part"
run_ok two-rest 1 mf --resume "$T/two-part" --iterations 40 --quiet
rm -rf "$T/two-part/chain-2"  # as if stopped before chain 2 began
run_ok two-rest2 1 mf --resume "$T/two-part" --iterations 40 --quiet
for c in 1 2; do
  same_chain "$T/two-full/chain-$c" "$T/two-part/chain-$c" "resumed chain $c"
done
ok "--resume OUT of 2 chains (one never started) equals the uninterrupted chains"

# A chain that fails is named, and its exit code is the job's.
expect_fail_mpi 6 "carousel: error: chain 1: the chain" 1 mf "${COMMON[@]}" --iterations 40 --sampler psgld --step 5 --chains 2 \
  --out "$T/diverged"
ok "a diverging chain: exit 6, '$EXPECT_FAIL_MESSAGE'"
echo "PASS: chains"
