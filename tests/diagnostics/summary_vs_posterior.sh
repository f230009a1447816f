#!/usr/bin/env bash
# `carousel summary` against the R package posterior (summarise_draws' defaults and
# mcse_mean): every figure of every variable must agree to 3 significant digits.
#
# Draws files in the CmdStan CSV layout (io/draws_csv.hpp) come from a small deterministic
# generator (python3, standard library only: its own LCG and Box-Muller), in three sets:
#   mixed: 4 chains x 1000 draws, with an iid normal, a slowly mixing AR(1) (phi = 0.95),
#          chains with different means, a trend shared by every chain, a skewed variable,
#          a discrete one with many ties, a constant one, and CmdStan's lp__ and a sampler
#          diagnostic column (accept_stat__);
#   odd:   3 chains x 501 draws (the split leaves out each chain's middle draw);
#   one:   1 chain x 200 draws;
#   good:  4 chains x 1000 iid draws, which must be reported as mixed.
# Also checks the warnings and the final line, and a bad draws file's error (file:line).
#
# Needs Rscript with the posterior package (Debian: r-cran-posterior). When either is
# missing it is installed with apt-get if this runs as root; otherwise the test is skipped
# (exit 77, ctest's SKIP_RETURN_CODE).
#
#   CAROUSEL_BIN=build/carousel bash tests/diagnostics/summary_vs_posterior.sh
set -euo pipefail

: "${CAROUSEL_BIN:?set CAROUSEL_BIN to the carousel binary}"
PYTHON=${PYTHON:-python3}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/carousel-summary-vs-posterior.XXXXXX")
trap 'if [[ ${CAROUSEL_KEEP_TMP:-0} == 1 ]]; then echo "kept $TMP" >&2; else rm -rf "$TMP"; fi' EXIT

ok() { echo "ok: $*"; }
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
skip() {
  echo "SKIP: $*"
  exit 77
}

have_posterior() {
  command -v Rscript >/dev/null 2>&1 &&
    Rscript -e 'suppressPackageStartupMessages(library(posterior))' >/dev/null 2>&1
}

if ! have_posterior; then
  if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null 2>&1; then
    echo "installing r-cran-posterior (Debian) for this test" >&2
    export DEBIAN_FRONTEND=noninteractive
    { apt-get update -qq && apt-get install -y -qq r-cran-posterior; } >"$TMP/apt.log" 2>&1 ||
      { tail -n 20 "$TMP/apt.log" >&2; skip "apt-get install r-cran-posterior failed"; }
  fi
  have_posterior || skip "Rscript with the posterior package is not available (Debian: r-cran-posterior)"
fi
command -v "$PYTHON" >/dev/null 2>&1 || skip "$PYTHON not found"
[[ -x $CAROUSEL_BIN ]] || fail "CAROUSEL_BIN=$CAROUSEL_BIN is not executable"
echo "R posterior $(Rscript -e 'cat(as.character(packageVersion("posterior")))')"

# ---------------------------------------------------------------------------------------
# Draws.
"$PYTHON" - "$TMP" <<'EOF'
import math, os, sys

class Rng:
    """A 64-bit LCG (Knuth's MMIX constants); the top 53 bits give uniforms in (0, 1)."""
    def __init__(self, seed):
        self.state = (seed * 0x9E3779B97F4A7C15 + 1) % 2**64
    def uniform(self):
        self.state = (self.state * 6364136223846793005 + 1442695040888963407) % 2**64
        return ((self.state >> 11) + 0.5) / 2**53
    def normal(self):
        u, v = self.uniform(), self.uniform()
        return math.sqrt(-2.0 * math.log(u)) * math.cos(2.0 * math.pi * v)

def write_chain(path, columns, rows):
    with open(path, "w") as f:
        f.write("# carousel draws (test generator)\n# seed: fixed\n")
        f.write(",".join(columns) + "\n")
        for r in rows:
            f.write(",".join(repr(float(v)) for v in r) + "\n")
        f.write("#\n#  Elapsed Time: 0.1 seconds (Total)\n#\n")

def mixed_set(directory, chains, draws, seed):
    os.makedirs(directory, exist_ok=True)
    columns = ["lp__", "accept_stat__", "mu", "ar", "shifted", "trend", "skewed", "discrete",
               "const"]
    for c in range(chains):
        rng = Rng(seed * 1000 + c)
        ar = rng.normal() / math.sqrt(1 - 0.95**2)
        rows = []
        for i in range(draws):
            ar = 0.95 * ar + rng.normal()
            mu = 1.0 + 2.0 * rng.normal()
            shifted = 0.3 * c + rng.normal()
            trend = 2.0 * i / draws + rng.normal()
            skewed = math.exp(rng.normal())
            discrete = float(min(5, int(-math.log(rng.uniform()) * 1.5)))
            lp = -0.5 * (mu - 1.0) ** 2 / 4.0 - 0.5 * ar * ar
            rows.append([lp, rng.uniform(), mu, ar, shifted, trend, skewed, discrete, 3.0])
        write_chain(os.path.join(directory, "chain-%d.csv" % (c + 1)), columns, rows)

def good_set(directory, chains, draws, seed):
    os.makedirs(directory, exist_ok=True)
    for c in range(chains):
        rng = Rng(seed * 1000 + c)
        rows = [[rng.normal(), 5.0 + rng.normal(), math.exp(rng.normal())] for _ in range(draws)]
        write_chain(os.path.join(directory, "chain-%d.csv" % (c + 1)), ["lp__", "a", "b"], rows)

root = sys.argv[1]
mixed_set(os.path.join(root, "mixed", "draws"), 4, 1000, 1)
mixed_set(os.path.join(root, "odd", "draws"), 3, 501, 2)
mixed_set(os.path.join(root, "one", "draws"), 1, 200, 3)
good_set(os.path.join(root, "good", "draws"), 4, 1000, 4)
EOF
ok "draws written"

# ---------------------------------------------------------------------------------------
# Agreement with posterior.
cat >"$TMP/compare.R" <<'EOF'
suppressPackageStartupMessages(library(posterior))
args <- commandArgs(trailingOnly = TRUE)
ours_file <- args[1]
chain_files <- args[-1]
read_chain <- function(f) as.matrix(read.csv(f, comment.char = "#", check.names = FALSE))
chains <- lapply(chain_files, read_chain)
vars <- colnames(chains[[1]])
x <- array(NA_real_, dim = c(nrow(chains[[1]]), length(chains), length(vars)),
           dimnames = list(NULL, NULL, vars))
for (i in seq_along(chains)) x[, i, ] <- chains[[i]]
draws <- as_draws_array(x)
ref <- suppressWarnings(summarise_draws(draws))
mcse <- suppressWarnings(summarise_draws(draws, mcse_mean))
ours <- read.csv(ours_file, comment.char = "#", check.names = FALSE, stringsAsFactors = FALSE)
stopifnot(identical(ours$variable, ref$variable))
pairs <- list(mean = "mean", sd = "sd", q5 = "q5", q50 = "median", q95 = "q95", rhat = "rhat",
              ess_bulk = "ess_bulk", ess_tail = "ess_tail")
bad <- 0
worst <- 0
compare <- function(name, a, b, variable) {
  for (k in seq_along(a)) {
    if (is.na(a[k]) && is.na(b[k])) next
    same <- !is.na(a[k]) && !is.na(b[k]) &&
      abs(a[k] - b[k]) <= 5e-4 * max(abs(a[k]), abs(b[k])) + 1e-300
    if (!is.na(a[k]) && !is.na(b[k]) && max(abs(a[k]), abs(b[k])) > 0)
      worst <<- max(worst, abs(a[k] - b[k]) / max(abs(a[k]), abs(b[k])))
    if (!same) {
      cat(sprintf("MISMATCH %s %s: carousel %.10g, posterior %.10g\n", variable[k], name, a[k],
                  b[k]))
      bad <<- bad + 1
    }
  }
}
for (ours_name in names(pairs)) compare(ours_name, ours[[ours_name]], ref[[pairs[[ours_name]]]],
                                        ref$variable)
compare("mcse_mean", ours$mcse_mean, mcse$mcse_mean, mcse$variable)
cat(sprintf("%d variables x 9 figures; largest relative difference %.2g\n", length(vars), worst))
quit(status = if (bad == 0) 0 else 1)
EOF

for set in mixed odd one good; do
  "$CAROUSEL_BIN" summary "$TMP/$set" --csv "$TMP/$set.csv" >"$TMP/$set.out" 2>"$TMP/$set.err" ||
    { cat "$TMP/$set.out" "$TMP/$set.err" >&2; fail "carousel summary $set failed"; }
  mapfile -t files < <(printf '%s\n' "$TMP/$set/draws"/chain-*.csv | sort -V)
  Rscript "$TMP/compare.R" "$TMP/$set.csv" "${files[@]}" >"$TMP/$set.r.log" 2>&1 ||
    { cat "$TMP/$set.out" "$TMP/$set.r.log" >&2; fail "$set: carousel summary and posterior differ"; }
  ok "$set: carousel summary agrees with posterior to 3 significant digits ($(tail -n 1 "$TMP/$set.r.log"))"
done

# ---------------------------------------------------------------------------------------
# Warnings and the verdict.
out=$TMP/mixed.out
grep -q '^The chains have NOT mixed' "$out" || { cat "$out" >&2; fail "mixed: no 'NOT mixed' verdict"; }
for v in ar shifted trend lp__; do  # lp__ follows ar
  grep -E '^warning: (R-hat|ess_bulk|ess_tail)' "$out" | grep -qE "[:,] $v \(" ||
    { cat "$out" >&2; fail "mixed: no warning for $v"; }
done
grep -E '^warning: R-hat above 1.01' "$out" | grep -qE '[:,] (mu|skewed|discrete) \(' &&
  { cat "$out" >&2; fail "mixed: an R-hat warning for a well-mixing variable"; }
grep '^warning' "$out" | grep -q 'accept_stat__' &&
  { cat "$out" >&2; fail "mixed: a warning for the sampler diagnostic accept_stat__"; }
grep -q '^note: 1 variable constant in every draw.*: const$' "$out" ||
  { cat "$out" >&2; fail "mixed: no note for the constant column"; }
grep -qE '^const +3 +0 +3 +3 +3 +NA +NA +NA +NA$' "$out" ||
  { cat "$out" >&2; fail "mixed: the constant column's row is not 3 0 3 3 3 NA NA NA NA"; }
ok "mixed: warnings for ar, shifted, trend and lp__ (and none for the well-mixing variables), 'NOT mixed'"

grep -q '^The chains mixed' "$TMP/good.out" || { cat "$TMP/good.out" >&2; fail "good: not reported as mixed"; }
grep -q '^warning' "$TMP/good.out" && { cat "$TMP/good.out" >&2; fail "good: warnings"; }
ok "good: no warnings, 'The chains mixed'"

# Explicit files in the order given, as the directory's chains.
"$CAROUSEL_BIN" summary "$TMP"/good/draws/chain-{1,2,3,4}.csv --csv "$TMP/explicit.csv" >/dev/null ||
  fail "carousel summary FILE... failed"
cmp -s <(grep -v '^#' "$TMP/good.csv") <(grep -v '^#' "$TMP/explicit.csv") ||
  fail "summary of the files named one by one differs from that of the directory"
ok "files named on the command line give the directory's table"

# A bad draw: exit 3 with file:line.
cp "$TMP/good/draws/chain-2.csv" "$TMP/bad.csv"
sed -i '10s/^\([^,]*\),/\1,x/' "$TMP/bad.csv"
set +e
"$CAROUSEL_BIN" summary "$TMP/good/draws/chain-1.csv" "$TMP/bad.csv" >/dev/null 2>"$TMP/bad.err"
rc=$?
set -e
[[ $rc == 3 ]] || { cat "$TMP/bad.err" >&2; fail "a non-number in a draw: exit $rc, expected 3"; }
grep -q "bad.csv:10: column 2 (a): 'x.*' is not a number" "$TMP/bad.err" ||
  { cat "$TMP/bad.err" >&2; fail "a non-number in a draw: message without file:line and column"; }
ok "a non-number in a draw: exit 3, $(cat "$TMP/bad.err")"
