#!/usr/bin/env bash
# The demo path: `carousel gen mf` writes synthetic ratings, and `carousel mf` on 2 ranks
# fits them (with a held-out fraction) and writes every output file. Checked without
# numpy; with /usr/bin/python3 and numpy, W_mean.npy is also loaded and its shape checked.
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

T=$TEST_TMP
USERS=300
ITEMS=200
K=5

timeout -k 5 60 "$CAROUSEL_BIN" gen mf --users $USERS --items $ITEMS --ratings 15000 --rank $K \
  --noise 0.5 --seed 3 --out "$T/demo.txt" >"$T/gen.log" 2>&1 ||
  { show_log "$T/gen.log"; fail "carousel gen mf failed"; }
lines=$(grep -c . "$T/demo.txt")
[[ $lines == 15000 ]] || fail "gen mf wrote $lines rating lines, expected 15000"
ok "carousel gen mf wrote 15000 ratings"

run_ok demo 2 mf --train "$T/demo.txt" --test-fraction 0.1 --rank $K --iterations 200 \
  --burn-in 50 --eval-every 10 --seed 3 --quiet --out "$T/out"
grep -q 'carousel mf: 200 iterations on 2 rank(s)' "$T/demo.log" ||
  { show_log "$T/demo.log"; fail "no summary line on stdout"; }
ok "carousel mf on 2 ranks exits 0"

O=$T/out
for f in trace.csv predictions.csv W_mean.npy W_var.npy H_mean.npy H_var.npy W_sample.npy \
  H_sample.npy user_bias_mean.npy user_bias_var.npy item_bias_mean.npy item_bias_var.npy \
  user_ids.npy item_ids.npy; do
  [[ -s $O/$f ]] || fail "output $f missing or empty"
done
ok "all output files written"

# Every output records the configuration at its top.
for f in trace.csv predictions.csv; do
  for key in 'carousel' 'command' 'ranks: 2' 'seed: 3' 'rank: 5' 'iterations: 200'; do
    grep -q "^# $key" "$O/$f" || fail "$f lacks the '# $key' header line"
  done
done
ok "trace.csv and predictions.csv record version, command, ranks and seed"

users=$(sed -n 's/^# users: //p' "$O/trace.csv")
items=$(sed -n 's/^# items: //p' "$O/trace.csv")
[[ $users == "$USERS" && $items == "$ITEMS" ]] ||
  fail "trace.csv says $users users and $items items, expected $USERS and $ITEMS"

# .npy header, read without numpy: magic, little-endian doubles, C order, shape.
npy_header() { head -c 256 "$1" | tr -d '\0' | head -n 1; }
check_npy() {
  local f=$1 shape=$2 header
  header=$(npy_header "$O/$f")
  cmp -s -n 6 "$O/$f" <(printf '\x93NUMPY') || fail "$f: no .npy magic"
  grep -qF "'descr': '<f8'" <<<"$header" || fail "$f: not little-endian float64: $header"
  grep -qF "'fortran_order': False" <<<"$header" || fail "$f: not C order: $header"
  grep -qF "'shape': $shape" <<<"$header" || fail "$f: shape is not $shape: $header"
}
check_npy W_mean.npy "($USERS, $K)"
check_npy W_var.npy "($USERS, $K)"
check_npy W_sample.npy "($USERS, $K)"
check_npy H_mean.npy "($ITEMS, $K)"
check_npy H_var.npy "($ITEMS, $K)"
check_npy user_bias_mean.npy "($USERS,)"
check_npy item_bias_var.npy "($ITEMS,)"
ok ".npy headers: <f8, C order, W ($USERS, $K), H ($ITEMS, $K), biases ($USERS,), ($ITEMS,)"

# predictions.csv: one row per held-out rating, with finite means and sds.
rows=$(strip_comments "$O/predictions.csv" | tail -n +2 | wc -l)
test_ratings=$(sed -n 's/^# test_ratings: //p' "$O/trace.csv")
[[ $rows == "$test_ratings" && $rows -gt 1000 ]] ||
  fail "predictions.csv has $rows rows, trace.csv says $test_ratings test ratings (expected ~1500)"
bad=$(strip_comments "$O/predictions.csv" | tail -n +2 |
  awk -F, 'NF != 5 || $4 !~ /^-?[0-9]/ || $5 !~ /^[0-9]/ || $5 < 0' | head -n 3)
[[ -z $bad ]] || fail "predictions.csv rows without a finite mean and sd: $bad"
ok "predictions.csv: $rows rows with finite mean and sd"

# The fit is sensible: the posterior-mean test RMSE at the end is finite and well below
# the spread of the ratings (the generator's noise floor is about 0.55).
last=$(trace_body "$O/trace.csv" | tail -n 1)
rmse_mean=$(cut -d, -f3 <<<"$last") # iter,rmse_sample,rmse_mean,... after dropping seconds
awk -v r="$rmse_mean" 'BEGIN { exit !(r == r + 0 && r > 0.3 && r < 1.0) }' ||
  fail "final posterior-mean test RMSE $rmse_mean not in (0.3, 1.0)"
ok "final posterior-mean test RMSE $rmse_mean"

if /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
  /usr/bin/python3 - "$O" "$USERS" "$ITEMS" "$K" <<'EOF' || fail "numpy check of the .npy files failed"
import sys
import numpy as np
out, users, items, k = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
w = np.load(out + "/W_mean.npy", allow_pickle=False)
h = np.load(out + "/H_mean.npy", allow_pickle=False)
v = np.load(out + "/W_var.npy", allow_pickle=False)
ids = np.load(out + "/user_ids.npy", allow_pickle=False)
assert w.shape == (users, k), w.shape
assert h.shape == (items, k), h.shape
assert np.isfinite(w).all() and np.isfinite(h).all(), "non-finite factors"
assert (v >= 0).all(), "negative posterior variance"
assert ids.shape == (users,) and len(set(ids.tolist())) == users, "user ids not unique"
EOF
  ok "numpy: W_mean.npy loads with allow_pickle=False, shape ($USERS, $K), finite; variances >= 0"
else
  note "/usr/bin/python3 has no numpy: skipped loading the .npy files"
fi
