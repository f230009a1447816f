#!/usr/bin/env bash
# Prediction later (issue #13 part 4): `carousel mf --keep-samples S` saves S kept draws of
# W and H whole (samples/) and model.json; `carousel predict` turns them into predictive
# means, sds and intervals for any (user, item) pairs.
#
# - The samples are bitwise the same at P = 1 and P = 2 (same --tiles), and after a resume
#   from a checkpoint before some of them (those are written again, a stale one removed).
# - They are the chain's kept draws, spread evenly: a run keeping every kept draw holds
#   them too, at the same iterations, and then predict's means and sds are predictions.csv's
#   to the last digit. A run extended with a larger --iterations keeps what it had taken.
# - predict's means, sds and intervals agree with numpy's on the .npy files (float rounding);
#   pairs of unseen users or items get the global mean plus the known bias.
# - Its test RMSE is within a margin of the run's posterior-mean RMSE derived from the
#   predictive sds (see below).
# - Errors: a run without samples, missing or damaged files, a bad pairs line, bad options.
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_ml100k
PY=/usr/bin/python3
$PY -c 'import numpy' 2>/dev/null || fail "$PY with numpy is needed"

T=$TEST_TMP
# 100 kept draws after burn-in would be slow to predict from; 20 here: iterations 105, 110,
# ..., 200. Eight samples of them: kept draws floor(20 (s + 1) / 8) - 1.
BASE=(--train "$ML100K/u1.base" --test "$ML100K/u1.test" --rank 8 --tiles 2 --seed 3 --thin 5
  --eval-every 25 --quiet)
RUN=("${BASE[@]}" --iterations 200 --burn-in 100)
SHORT=("${BASE[@]}" --iterations 40 --burn-in 20) # no samples needed
EXPECTED_ITERATIONS="110 125 135 150 160 175 185 200"

# sample_iterations DIR : the iterations of DIR/model.json's samples, space-separated.
sample_iterations() {
  $PY -c 'import json, sys; print(" ".join(str(s["iteration"]) for s in json.load(open(sys.argv[1]))["samples"]))' "$1/model.json"
}

# files_in DIR : the names of the files in DIR, sorted, one a line.
files_in() { find "$1" -maxdepth 1 -type f -printf '%f\n' | sort; }

# same_samples A B WHAT : the two runs' model.json and samples/ are bitwise identical.
same_samples() {
  local a=$1 b=$2 what=$3 f
  cmp -s "$a/model.json" "$b/model.json" || fail "$what: model.json differs ($a vs $b)"
  diff <(files_in "$a/samples") <(files_in "$b/samples") >/dev/null ||
    fail "$what: samples/ holds other files ($(files_in "$a/samples" | tr '\n' ' ') vs $(files_in "$b/samples" | tr '\n' ' '))"
  for f in "$a"/samples/*; do
    cmp -s "$f" "$b/samples/${f##*/}" || fail "$what: samples/${f##*/} differs"
  done
}

# ---------------------------------------------------------------------------------------
# The same chain on 1 and 2 ranks.
run_ok p1 1 mf "${RUN[@]}" --keep-samples 8 --out "$T/p1"
run_ok p2 2 mf "${RUN[@]}" --keep-samples 8 --out "$T/p2"
[[ $(sample_iterations "$T/p1") == "$EXPECTED_ITERATIONS" ]] ||
  fail "samples at iterations $(sample_iterations "$T/p1"), expected $EXPECTED_ITERATIONS"
[[ $(files_in "$T/p1/samples" | wc -l) == 16 ]] ||
  fail "samples/ holds $(files_in "$T/p1/samples" | wc -l) files, expected 16"
same_samples "$T/p1" "$T/p2" "P=1 vs P=2"
same_outputs "$T/p1" "$T/p2" "P=1 vs P=2"
ok "8 samples at iterations $EXPECTED_ITERATIONS; samples/ and model.json bitwise equal at P=1 and P=2"

# The shapes and the layout: W_sample.npy (the last iteration's factors) is the last sample's
# first K columns, user_bias_mean.npy's size the users.
$PY - "$T/p1" <<'EOF' || fail "layout of the samples"
import json, sys
import numpy as np
d = sys.argv[1]
m = json.load(open(f"{d}/model.json"))
users, items, K = m["users"], m["items"], m["rank"]
assert m["bias"] and m["sample_columns"] == K + 1 and m["sample_dtype"] == "float32", m
assert users == len(np.load(f"{d}/user_ids.npy")) == 943 and m["train_ratings"] == 80000, m
assert items == len(np.load(f"{d}/item_ids.npy")), m
assert m["clip"] == {"lo": 1, "hi": 5}, m["clip"]
assert m["posterior_draws"] == 20, m["posterior_draws"]
for s in m["samples"]:
    W, H = np.load(f"{d}/{s['W']}"), np.load(f"{d}/{s['H']}")
    assert W.dtype == np.float32 and W.shape == (users, K + 1), W.shape
    assert H.dtype == np.float32 and H.shape == (items, K + 1), H.shape
last = m["samples"][-1]
assert np.array_equal(np.load(f"{d}/{last['W']}")[:, :K].astype(np.float64), np.load(f"{d}/W_sample.npy"))
assert np.array_equal(np.load(f"{d}/{last['H']}")[:, :K].astype(np.float64), np.load(f"{d}/H_sample.npy"))
# The hyperparameters' posterior means: those of the trace's kept-draw rows.
rows = [l.split(",") for l in open(f"{d}/trace.csv") if not l.startswith("#")]
head, rows = rows[0], rows[1:]
col = {name.strip(): i for i, name in enumerate(head)}
kept, seen = [], 0
for r in rows:
    if int(float(r[col["samples"]])) > seen:
        seen = int(float(r[col["samples"]]))
        kept.append(r)
for name in ("tau", "lambda_w", "lambda_h", "lambda_b", "lambda_c"):
    mean = np.mean([float(r[col[name]]) for r in kept])
    assert abs(mean - m["hyper_mean"][name]) <= 1e-12 * abs(mean), (name, mean, m["hyper_mean"])
print("layout ok")
EOF
ok "samples: float32 users x (K+1) and items x (K+1); the last is W_sample/H_sample; hyper_mean from the kept draws"

# samples_among A B : every sample of run A is, bitwise, B's sample of the same iteration.
samples_among() {
  $PY - "$1" "$2" <<'EOF'
import json, sys, filecmp
a, b = sys.argv[1:]
ma, mb = (json.load(open(f"{d}/model.json")) for d in (a, b))
at = {s["iteration"]: s for s in mb["samples"]}
for s in ma["samples"]:
    for f in ("W", "H"):
        assert filecmp.cmp(f"{a}/{s[f]}", f"{b}/{at[s['iteration']][f]}", shallow=False), s
EOF
}

# ---------------------------------------------------------------------------------------
# Every kept draw (20 <= 30): the thinned samples are among them, at the same iterations, and
# predict's mean and sd over them are predictions.csv's, digit for digit.
run_ok all 2 mf "${RUN[@]}" --keep-samples 30 --out "$T/all"
[[ $(sample_iterations "$T/all") == "$(seq -s ' ' 105 5 200)" ]] ||
  fail "--keep-samples 30 of 20 kept draws: samples at $(sample_iterations "$T/all")"
samples_among "$T/p1" "$T/all" || fail "the thinned samples are not the kept draws of the same iterations"
grep -v '^#' "$ML100K/u1.test" | cut -f1,2 >"$T/u1.pairs"
"$CAROUSEL_BIN" predict --run "$T/all" --pairs "$T/u1.pairs" --out "$T/all.csv" >"$T/all.log" ||
  fail "predict on the run keeping every kept draw failed"
diff <(grep -v '^#' "$T/all/predictions.csv" | cut -d, -f1,2,4,5) \
  <(grep -v '^#' "$T/all.csv" | cut -d, -f1-4) \
  >"$T/all.diff" || {
  head -5 "$T/all.diff" >&2
  fail "predict over every kept draw differs from predictions.csv (user,item,mean,sd)"
}
ok "every kept draw saved: the 8 thinned samples are among them; predict's mean and sd = predictions.csv's"

# The factors' moments take kept draws 1, 1 + M, 1 + 2M, ... (--moments-every M; its default
# here: ceil(6 x 2,593 x 9 / 80,000) = 2): W_mean, H_mean and the biases' means are those
# draws' means to the last digit, the variances to rounding (mean^2 may be subtracted fused); the
# mean of every kept draw (the control) is not W_mean.
$PY - "$T/all" <<'EOF' || fail "the factors' moments are not those of every --moments-every-th kept draw"
import json, sys
import numpy as np
d = sys.argv[1]
m = json.load(open(f"{d}/model.json"))
M, D, K = m["moments_every"], m["posterior_draws"], m["rank"]
assert M == 2 and D == 20 and m["moment_draws"] == 10 == (D - 1) // M + 1, m
assert len(m["samples"]) == D, m["samples"]
def moments(draws, factor):
    s = s2 = 0.0
    for draw in draws:
        x = np.load(f"{d}/{draw[factor]}").astype(np.float64)
        s, s2 = s + x, s2 + x * x
    mean = s / len(draws)
    return mean, np.maximum(s2 / len(draws) - mean * mean, 0.0), s2 / len(draws)
for factor, arrays in (("W", ("W", "user_bias")), ("H", ("H", "item_bias"))):
    mean, var, square = moments(m["samples"][::M], factor)
    w_mean, b_mean = (np.load(f"{d}/{a}_mean.npy") for a in arrays)
    w_var, b_var = (np.load(f"{d}/{a}_var.npy") for a in arrays)
    assert np.array_equal(mean[:, :K], w_mean) and np.array_equal(mean[:, K], b_mean), factor
    assert np.all(np.abs(var[:, :K] - w_var) <= 1e-12 * square[:, :K]), factor
    assert np.all(np.abs(var[:, K] - b_var) <= 1e-12 * square[:, K]), factor
    every, _, _ = moments(m["samples"], factor)
    assert np.max(np.abs(every[:, :K] - w_mean)) > 1e-4, ("the control matched", factor)
print("moments ok")
EOF
ok "W_mean, H_mean and the biases' means and variances are those of kept draws 1, 3, ..., 19 (--moments-every 2 from the data); every kept draw's mean is not"

# ---------------------------------------------------------------------------------------
# Resume: the run of p2 with checkpoints every 50, its newest (iteration 200) removed, the
# samples after 150 damaged and a stale one added; resumed on 1 rank, it writes the same.
run_ok ckpt 2 mf "${RUN[@]}" --keep-samples 8 --checkpoint-every 50 --out "$T/resumed"
same_samples "$T/p1" "$T/resumed" "with checkpoints"
rm -f "$T/resumed/checkpoints/checkpoint-"*200.ckpt
[[ $(checkpoint_iteration "$(checkpoints_of "$T/resumed" | tail -n 1)") == 150 ]] ||
  fail "expected the newest checkpoint left at iteration 150"
rm -f "$T/resumed/model.json" "$T/resumed/samples/W-7.npy"
echo "damaged" >"$T/resumed/samples/H-6.npy"
cp "$T/resumed/samples/W-0.npy" "$T/resumed/samples/W-8.npy"
cp "$T/resumed/samples/H-0.npy" "$T/resumed/samples/H-8.npy"
run_ok resume 1 mf --resume "$T/resumed"
same_samples "$T/p1" "$T/resumed" "resumed from iteration 150 on 1 rank"
same_outputs "$T/p1" "$T/resumed" "resumed from iteration 150 on 1 rank"
ok "resumed from the checkpoint of iteration 150 (P=2 -> P=1): samples after it rewritten bitwise, a stale one removed"

# Extended: a finished 150-iteration run (plan: 8 of its 10 kept draws) given --iterations 200
# keeps those and adds the new plan's samples after 150; each is the chain's draw.
run_ok short 2 mf "${BASE[@]}" --iterations 150 --burn-in 100 --keep-samples 8 --checkpoint-every 50 --out "$T/extended"
[[ $(sample_iterations "$T/extended") == "105 110 115 125 130 135 140 150" ]] ||
  fail "the 150-iteration run's samples are at $(sample_iterations "$T/extended")"
run_ok extend 1 mf --resume "$T/extended" --iterations 200
[[ $(sample_iterations "$T/extended") == "105 110 115 125 130 135 140 150 160 175 185 200" ]] ||
  fail "the extended run's samples are at $(sample_iterations "$T/extended")"
samples_among "$T/extended" "$T/all" || fail "the extended run's samples are not the chain's draws"
ok "a run extended from 150 to 200 iterations keeps its 8 samples and adds 4, each the chain's draw"

# ---------------------------------------------------------------------------------------
# predict against numpy, with cold pairs: a user and an item training never saw.
{
  cat "$T/u1.pairs"
  printf '999999\t1\n1\t999999\n999999\t999999\n'
} >"$T/pairs.txt"
"$CAROUSEL_BIN" predict --run "$T/p1" --pairs "$T/pairs.txt" --out "$T/p1.csv" --level 0.8 \
  >"$T/p1.log" || fail "predict failed"
grep -q '^carousel predict: 20003 pairs' "$T/p1.log" || fail "predict's summary line: $(cat "$T/p1.log")"
$PY - "$T/p1" "$T/p1.csv" "$T/pairs.txt" <<'EOF' || fail "predict disagrees with numpy"
import json, sys
import numpy as np
def read_csv(path):  # '#' lines are comments; the first other line names the columns
    return np.genfromtxt((l for l in open(path) if not l.startswith("#")), delimiter=",", names=True)
d, csv, pairs_file = sys.argv[1:]
m = json.load(open(f"{d}/model.json"))
K, mu, lo, hi = m["rank"], m["mu"], m["clip"]["lo"], m["clip"]["hi"]
users = {int(u): i for i, u in enumerate(np.load(f"{d}/user_ids.npy"))}
items = {int(v): j for j, v in enumerate(np.load(f"{d}/item_ids.npy"))}
pairs = np.loadtxt(pairs_file, dtype=np.int64, usecols=(0, 1))
rows = np.array([users.get(int(u), -1) for u in pairs[:, 0]])
cols = np.array([items.get(int(v), -1) for v in pairs[:, 1]])
preds = []
for s in m["samples"]:
    W = np.load(f"{d}/{s['W']}").astype(np.float64)
    H = np.load(f"{d}/{s['H']}").astype(np.float64)
    W = np.vstack([W, np.zeros(K + 1)])  # row -1: an unseen user or item, all zeros
    H = np.vstack([H, np.zeros(K + 1)])
    w, h = W[rows], H[cols]
    p = mu + w[:, K] + h[:, K] + np.einsum("ij,ij->i", w[:, :K], h[:, :K])
    preds.append(np.clip(p, lo, hi))
preds = np.array(preds)  # samples x pairs
got = read_csv(csv)
assert len(got) == len(pairs) and (got["user"] == pairs[:, 0]).all() and (got["item"] == pairs[:, 1]).all()
# Float rounding: carousel sums K products and two biases in float32, |terms| < 10 here, so
# each prediction is off by at most (K + 3) * 10 * 2^-24 ~ 7e-6 from numpy's float64 sum.
tol = (K + 3) * 10 * 2.0**-24
assert np.abs(got["mean"] - preds.mean(axis=0)).max() <= tol
assert np.abs(got["sd"] - preds.std(axis=0)).max() <= 2 * tol + 1e-9
assert np.abs(got["lower"] - np.quantile(preds, 0.1, axis=0)).max() <= tol
assert np.abs(got["upper"] - np.quantile(preds, 0.9, axis=0)).max() <= tol
assert (got["lower"] <= got["mean"] + tol).all() and (got["mean"] <= got["upper"] + tol).all()
# A new rating: the noise 1/tau (tau the posterior mean in model.json) added to each sample's
# prediction; the interval's ends are where the mixture's distribution function is 0.1, 0.9.
from math import erfc, sqrt
noise = 1.0 / m["hyper_mean"]["tau"]
assert np.abs(got["sd_rating"] - np.sqrt(preds.std(axis=0) ** 2 + noise)).max() <= 2 * tol + 1e-9
mixture_cdf = np.frompyfunc(lambda x, j: np.mean([0.5 * erfc((p - x) / sqrt(2 * noise)) for p in preds[:, j]]), 2, 1)
j = np.arange(0, len(pairs), 997)
assert np.abs(mixture_cdf(got["lower_rating"][j], j).astype(float) - 0.1).max() <= 1e-6
assert np.abs(mixture_cdf(got["upper_rating"][j], j).astype(float) - 0.9).max() <= 1e-6
assert (got["lower_rating"] < got["lower"]).all() and (got["upper"] < got["upper_rating"]).all()
# Cold pairs: the global mean plus the known bias, no factor term.
bu = np.array([np.load(f"{d}/{s['W']}")[users[1], K] for s in m["samples"]], dtype=np.float64)
ci = np.array([np.load(f"{d}/{s['H']}")[items[1], K] for s in m["samples"]], dtype=np.float64)
assert abs(got["mean"][-3] - np.clip(mu + ci, lo, hi).mean()) <= tol
assert abs(got["mean"][-2] - np.clip(mu + bu, lo, hi).mean()) <= tol
assert got["mean"][-1] == np.float32(mu) and got["sd"][-1] == 0 and got["lower"][-1] == got["upper"][-1]
print(f"numpy agrees on {len(pairs)} pairs (largest mean difference "
      f"{np.abs(got['mean'] - preds.mean(axis=0)).max():.2g}, tolerance {tol:.2g})")
EOF
ok "predict = numpy on the samples (mean, sd, 80% interval, and those of a new rating with the noise); cold user, item and both as in training"

# ---------------------------------------------------------------------------------------
# Quality. Let m_D be the posterior mean over the run's D = 20 kept draws (predictions.csv,
# whose RMSE is the trace's last rmse_mean) and m_S the mean over the S = 8 saved ones; then
# RMSE_S^2 - RMSE_D^2 = mean(delta^2) + 2 mean(delta (m_D - r)), delta = m_S - m_D. Were the
# S draws a random subset of the D, E[delta^2] = sd_D^2 (1/S - 1/D) D/(D - 1) for each pair
# (sd_D: predictions.csv's sd), so mean(delta^2) is about e = mean(sd_D^2) (1/S - 1/D)
# D/(D - 1). Our S draws are evenly spaced, not random: for a positively correlated chain
# that tracks the full mean at least as well, but not provably, so the test allows 3e.
# The cross term averages n = 20000 products of a delta of sd sqrt(e) and a residual of sd
# RMSE_D, so it is within c = 4 * 2 sqrt(e) RMSE_D / sqrt(n) (4 sd). Hence
#   RMSE_D^2 - c <= RMSE_S^2 <= RMSE_D^2 + 3e + c.
# quality DIR CSV : predict's CSV for DIR's test pairs (first) is within the margin.
quality() {
  $PY - "$1" "$2" <<'EOF'
import sys
import numpy as np
def read_csv(path):  # '#' lines are comments; the first other line names the columns
    return np.genfromtxt((l for l in open(path) if not l.startswith("#")), delimiter=",", names=True)
d, csv = sys.argv[1:]
run = read_csv(f"{d}/predictions.csv")
got = read_csv(csv)[: len(run)]
assert (got["user"] == run["user"]).all() and (got["item"] == run["item"]).all()
trace = read_csv(f"{d}/trace.csv")
D, S, n = 20, 8, len(run)
rmse_d = np.sqrt(np.mean((run["mean"] - run["rating"]) ** 2))
assert abs(rmse_d - trace["rmse_mean"][-1]) < 1e-12, (rmse_d, trace["rmse_mean"][-1])
rmse_s = np.sqrt(np.mean((got["mean"] - run["rating"]) ** 2))
e = np.mean(run["sd"] ** 2) * (1 / S - 1 / D) * D / (D - 1)
c = 4 * 2 * np.sqrt(e) * rmse_d / np.sqrt(n)
low, high = np.sqrt(rmse_d**2 - c), np.sqrt(rmse_d**2 + 3 * e + c)
print(f"test RMSE: posterior mean of {D} draws {rmse_d:.5f}, of the {S} samples {rmse_s:.5f}; "
      f"margin [{low:.5f}, {high:.5f}]")
assert low <= rmse_s <= high
EOF
}
quality "$T/p1" "$T/p1.csv" || fail "predict's test RMSE is out of its margin"
# The check can fail: a model.json whose training mean is off by 0.3 gives predictions whose
# RMSE is out of the margin.
cp -a "$T/p1" "$T/shifted"
$PY - "$T/shifted/model.json" <<'EOF'
import json, sys
m = json.load(open(sys.argv[1]))
m["mu"] += 0.3
json.dump(m, open(sys.argv[1], "w"))
EOF
"$CAROUSEL_BIN" predict --run "$T/shifted" --pairs "$T/u1.pairs" --out "$T/shifted.csv" >/dev/null ||
  fail "predict on the shifted model failed"
! quality "$T/shifted" "$T/shifted.csv" 2>/dev/null || fail "the RMSE margin accepts a mean off by 0.3"
ok "predict's test RMSE is within the margin of the run's posterior-mean RMSE; a mean off by 0.3 is not"

# ---------------------------------------------------------------------------------------
# At the default options a run keeps samples (20 on ml-100k: they fit in 256 MiB), and
# predict reads a run of several chains, pooling them: the mean of 2 chains of 20 samples
# each is the mean of the two chains' means.
run_ok default-chains 2 mf --train "$ML100K/u1.base" --test "$ML100K/u1.test" --iterations 200 \
  --chains 2 --quiet --out "$T/default-chains"
grep -q '^keep-samples = 20  # resolved' "$T/default-chains/chain-1/config.toml" ||
  fail "a default run does not keep 20 samples: $(grep keep-samples "$T/default-chains/chain-1/config.toml")"
head -n 500 "$T/u1.pairs" >"$T/u1.head"
"$CAROUSEL_BIN" predict --run "$T/default-chains" --pairs "$T/u1.head" --out "$T/pooled.csv" \
  >"$T/pooled.log" || { show_log "$T/pooled.log"; fail "predict on a run of 2 chains failed"; }
grep -q "from 40 samples of 2 chain(s)" "$T/pooled.log" || fail "predict did not pool 2 chains: $(cat "$T/pooled.log")"
for c in 1 2; do
  "$CAROUSEL_BIN" predict --run "$T/default-chains/chain-$c" --pairs "$T/u1.head" \
    --out "$T/chain$c.csv" >/dev/null || fail "predict on chain $c failed"
done
paste -d, <(grep -v '^#' "$T/pooled.csv" | cut -d, -f3) <(grep -v '^#' "$T/chain1.csv" | cut -d, -f3) \
  <(grep -v '^#' "$T/chain2.csv" | cut -d, -f3) | awk -F, 'NR > 1 {
    d = $1 - ($2 + $3) / 2; if (d < 0) d = -d; if (d > worst) worst = d }
    END { if (worst > 1e-6) { print "largest difference " worst; exit 1 } }' ||
  fail "the pooled mean is not the mean of the chains' means"
ok "a default run keeps 20 samples; predict pools a run's 2 chains (40 samples, the mean of their means)"

# ---------------------------------------------------------------------------------------
# amf keeps samples too (20 at the defaults on u1.base), bitwise the same at P = 1 and 2,
# and predict pools its chains: per pair the mean, sd and interval of v = (W H)_ij over
# the samples (checked with numpy on samples/), then a new entry's median and interval,
# ordered and the same on a second call; a pair of an unseen row is NaN throughout.
AMF=(amf --train "$ML100K/u1.base" --rank 3 --iterations 300 --burn-in 100 --seed 2 --tiles 2 --quiet)
run_ok amf-p1 1 "${AMF[@]}" --out "$T/amf-p1"
run_ok amf-p2 2 "${AMF[@]}" --out "$T/amf-p2"
grep -q '^keep-samples = 20  # resolved' "$T/amf-p1/config.toml" ||
  fail "amf does not keep 20 samples by default: $(grep keep-samples "$T/amf-p1/config.toml")"
for f in W-0.npy H-0.npy W-19.npy H-19.npy; do
  cmp -s "$T/amf-p1/samples/$f" "$T/amf-p2/samples/$f" || fail "amf's samples/$f differs between P = 1 and 2"
done
run_ok amf-chains 2 "${AMF[@]}" --chains 2 --out "$T/amf-chains"
{ head -n 200 "$T/u1.pairs"; printf '99999\t1\n'; } >"$T/amf.pairs"
"$CAROUSEL_BIN" predict --run "$T/amf-chains" --pairs "$T/amf.pairs" --out "$T/amf.csv" \
  >"$T/amf.log" || { show_log "$T/amf.log"; fail "predict on an amf run of 2 chains failed"; }
grep -q "from 40 samples of 2 chain(s)" "$T/amf.log" || fail "predict did not pool amf's 2 chains: $(cat "$T/amf.log")"
"$CAROUSEL_BIN" predict --run "$T/amf-chains" --pairs "$T/amf.pairs" --out "$T/amf2.csv" >/dev/null
cmp -s <(grep -v '^#' "$T/amf.csv") <(grep -v '^#' "$T/amf2.csv") ||
  fail "predict on amf gives other numbers on a second call"
$PY - "$T/amf-chains" "$T/amf.csv" <<'EOF2' || fail "amf predictions disagree with numpy on the samples"
import json, sys
import numpy as np
run, csv = sys.argv[1], sys.argv[2]
W, H = [], []
for c in (1, 2):
    m = json.load(open(f"{run}/chain-{c}/model.json"))
    assert m["format"] == "carousel amf model" and len(m["samples"]) == 20, m["format"]
    rows = {int(i): k for k, i in enumerate(np.load(f"{run}/chain-{c}/row_ids.npy"))}
    cols = {int(i): k for k, i in enumerate(np.load(f"{run}/chain-{c}/col_ids.npy"))}
    for s in m["samples"]:
        W.append(np.load(f"{run}/chain-{c}/{s['W']}").astype(np.float64))
        H.append(np.load(f"{run}/chain-{c}/{s['H']}").astype(np.float64))
lines = [l for l in open(csv) if not l.startswith("#")]
assert lines[0].strip() == "row,col,mean,sd,lower,upper,median_entry,lower_entry,upper_entry", lines[0]
for line in lines[1:]:
    f = line.strip().split(",")
    r, c, x = int(f[0]), int(f[1]), [float(v) for v in f[2:]]
    if r not in rows:
        assert all(np.isnan(x)), line
        continue
    v = np.array([max(w[rows[r]] @ h[cols[c]], 1e-12) for w, h in zip(W, H)])
    want = [v.mean(), v.std(), np.quantile(v, 0.05), np.quantile(v, 0.95)]
    assert np.allclose(x[:4], want, rtol=1e-5, atol=1e-6), (line, want)
    assert 0 < x[5] < x[4] < x[6], line
print("ok")
EOF2
ok "amf keeps 20 samples (the same at P = 1 and 2); predict pools its chains, as numpy computes v = (WH)_ij"

# ---------------------------------------------------------------------------------------
# Errors: exit codes and messages (doc/input-formats.md, "Exit codes").
run_ok nosamples 1 mf "${SHORT[@]}" --keep-samples 0 --out "$T/nosamples"
[[ -f $T/nosamples/model.json && ! -e $T/nosamples/samples ]] || fail "a run without --keep-samples: model.json without samples/ expected"
[[ -z $(sample_iterations "$T/nosamples") ]] || fail "a run without --keep-samples lists samples"
expect_fail 3 "the run kept no samples" \
  "$CAROUSEL_BIN" predict --run "$T/nosamples" --pairs "$T/u1.pairs" --out "$T/x.csv"
grep -q -- "--keep-samples" "$T/last.err" || fail "no hint to rerun with --keep-samples: $EXPECT_FAIL_MESSAGE"
ok "predict on a run without samples: exit 3: $EXPECT_FAIL_MESSAGE"
expect_fail 3 "$T/none: not a directory" \
  "$CAROUSEL_BIN" predict --run "$T/none" --pairs "$T/u1.pairs" --out "$T/x.csv"
mkdir -p "$T/none"
expect_fail 3 "$T/none/model.json: not found; --run must be the --out directory of a finished carousel mf or amf run" \
  "$CAROUSEL_BIN" predict --run "$T/none" --pairs "$T/u1.pairs" --out "$T/x.csv"
ok "predict on a directory without model.json: exit 3"
printf '1\t2\n3\n' >"$T/bad.pairs"
expect_fail 3 "$T/bad.pairs:2: malformed line: expected 2 to 4 whitespace-separated fields" \
  "$CAROUSEL_BIN" predict --run "$T/p1" --pairs "$T/bad.pairs" --out "$T/x.csv"
printf '1\t2\nuser7\t3\n' >"$T/bad2.pairs"
expect_fail 3 "$T/bad2.pairs:2: non-numeric user id 'user7'" \
  "$CAROUSEL_BIN" predict --run "$T/p1" --pairs "$T/bad2.pairs" --out "$T/x.csv"
expect_fail 3 "$T/missing.pairs" \
  "$CAROUSEL_BIN" predict --run "$T/p1" --pairs "$T/missing.pairs" --out "$T/x.csv"
ok "bad or missing pairs file: exit 3 with file:line: $EXPECT_FAIL_MESSAGE"
cp -a "$T/p1" "$T/damaged"
head -c 100 "$T/p1/samples/W-3.npy" >"$T/damaged/samples/W-3.npy"
expect_fail 3 "$T/damaged/samples/W-3.npy" \
  "$CAROUSEL_BIN" predict --run "$T/damaged" --pairs "$T/u1.pairs" --out "$T/x.csv"
rm "$T/damaged/samples/H-5.npy"
cp "$T/p1/samples/W-3.npy" "$T/damaged/samples/W-3.npy"
expect_fail 3 "$T/damaged/samples/H-5.npy: cannot open" \
  "$CAROUSEL_BIN" predict --run "$T/damaged" --pairs "$T/u1.pairs" --out "$T/x.csv"
sed 's/"rank": 8/"rank": 9/' "$T/p1/model.json" >"$T/damaged/model.json"
expect_fail 3 "$T/damaged/samples/W-0.npy: expected a 943 x 10 float32 matrix" \
  "$CAROUSEL_BIN" predict --run "$T/damaged" --pairs "$T/u1.pairs" --out "$T/x.csv"
sed 's/"mu": /"mu" /' "$T/p1/model.json" >"$T/damaged/model.json"
expect_fail 3 "$T/damaged/model.json:" \
  "$CAROUSEL_BIN" predict --run "$T/damaged" --pairs "$T/u1.pairs" --out "$T/x.csv"
ok "a damaged sample file or model.json: exit 3 naming it: $EXPECT_FAIL_MESSAGE"
expect_fail 2 "--pairs is required" "$CAROUSEL_BIN" predict --run "$T/p1"
expect_fail 2 "option --level: must lie strictly between 0 and 1" \
  "$CAROUSEL_BIN" predict --run "$T/p1" --pairs "$T/u1.pairs" --level 1
expect_fail 4 "$T/no/such/dir/x.csv: cannot create" \
  "$CAROUSEL_BIN" predict --run "$T/p1" --pairs "$T/u1.pairs" --out "$T/no/such/dir/x.csv"
ok "bad options: exit 2; an unwritable --out: exit 4"
expect_fail_mpi 2 "option --keep-samples: is not available with --sampler gibbs" \
  1 mf "${SHORT[@]}" --sampler gibbs --keep-samples 3 --out "$T/gibbs"
expect_fail_mpi 2 "--keep-samples" 2 mf --resume "$T/p2" --keep-samples 3
ok "--keep-samples with gibbs, or changed on --resume: exit 2"

# A fresh run refuses an --out whose samples/ holds another run's samples, and --overwrite
# removes them.
mkdir -p "$T/stale/samples"
cp "$T/p1/samples/W-0.npy" "$T/stale/samples/W-5.npy"
expect_fail_mpi 2 "holds another run's W-5.npy" 1 mf "${SHORT[@]}" --out "$T/stale"
run_ok overwrite 1 mf "${SHORT[@]}" --keep-samples 0 --overwrite --out "$T/stale"
[[ ! -e $T/stale/samples ]] || fail "--overwrite left the old run's samples/"
ok "another run's samples keep a fresh run out; --overwrite removes them"
