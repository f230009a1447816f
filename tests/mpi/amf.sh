#!/usr/bin/env bash
# `carousel amf` end to end (issue #16): alpha-stable NMF with mirroring (HAMCMC Sec. 4.2).
#  - rank-count invariance: 1, 2 and 4 ranks (--tiles 4) give bitwise-identical W_mean.npy,
#    H_mean.npy and trace.csv (without '#' lines and seconds), for psgld, sgld and the coupled
#    hamcmc and sgnht (ordered sums across ranks, model/coupled_step.hpp);
#  - the means are non-negative (mirroring) and the Phi acceptance rate is a rate;
#  - at alpha = 2 (Phi = 2: X ~ N(0, 2 v)) psgld, sgld, hamcmc and sgnht at their default
#    steps recover v = (WH)_ij of rank-1 truth: correlation of the posterior means' product
#    with it > 0.8;
#  - a run killed with SIGKILL and resumed on another rank count, and one stopped by SIGTERM
#    and resumed, end bitwise-identical to the uninterrupted run, for psgld and for hamcmc
#    (whose L-BFGS history and step count are in the checkpoint);
#  - a negative entry exits 3 naming file:line; a sampler needing a metric (sgrld) and
#    HAMCMC's Fisher H^0 are refused (the model supplies no metric); hamcmc with --tiles
#    sharing a divisor with --memory defaults to random strata and refuses cyclic ones.
#  - dense .npy input, real (signed) and complex, with --fix-rows: 1, 2 and 4 ranks give
#    bitwise-identical W/H means and variances, reconstruction.npy and traces; the fixed
#    columns come out exactly as given (variance 0); the reconstruction lies in [0, |x|];
#    the trace names the likelihood;
#  - denoising at alpha = 2 (the Wiener case): the reconstruction is near the oracle Wiener
#    estimate, and not with a wrong fixed dictionary;
#  - the resume checks run on the dense input with --fix-rows (every output compared);
#  - a NaN element, a wrong --fix-rows shape and a negative --fix-rows value exit 3 naming
#    the file (and the element).
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

T=$TEST_TMP
# 80 x 60 non-negative entries, about 30% observed, from a rank-1 pattern times noise.
awk 'BEGIN { srand(7); for (i = 1; i <= 80; i++) { a[i] = rand(); b[i] = rand() }
  for (i = 1; i <= 80; i++) for (j = 1; j <= 60; j++) if (rand() < 0.3)
    printf "%d %d %.3f\n", i, j, (1 + 3 * a[i] * b[j]) * (0.5 + rand()) }' >"$T/x.txt"
BASE=(--train "$T/x.txt" --rank 3 --alpha 1.5 --tiles 4 --seed 5 --quiet)

# same_amf_outputs A B WHAT : bitwise-identical results of two `carousel amf` runs.
same_amf_outputs() {
  local a=$1 b=$2 what=$3 f
  for f in W_mean.npy H_mean.npy W_var.npy H_var.npy; do
    [[ -s $a/$f && -s $b/$f ]] || fail "$what: $f missing"
    cmp -s "$a/$f" "$b/$f" || fail "$what: $f differs ($a vs $b)"
  done
  if [[ -e $a/reconstruction.npy || -e $b/reconstruction.npy ]]; then
    cmp -s "$a/reconstruction.npy" "$b/reconstruction.npy" ||
      fail "$what: reconstruction.npy differs ($a vs $b)"
  fi
  [[ $(trace_body "$a/trace.csv" | wc -l) -gt 2 ]] || fail "$what: $a/trace.csv has no rows"
  cmp -s <(trace_body "$a/trace.csv") <(trace_body "$b/trace.csv") ||
    fail "$what: trace.csv differs (ignoring '#' lines and seconds) ($a vs $b)"
}

# ---------------------------------------------------------------------------------------
# Invariance.
for sampler in psgld sgld hamcmc sgnht; do
  for np in 1 2 4; do
    run_ok "$sampler-p$np" "$np" amf "${BASE[@]}" --sampler "$sampler" --iterations 200 --eval-every 20 --out "$T/$sampler-p$np"
  done
  same_amf_outputs "$T/$sampler-p1" "$T/$sampler-p2" "$sampler: 1 vs 2 ranks"
  same_amf_outputs "$T/$sampler-p1" "$T/$sampler-p4" "$sampler: 1 vs 4 ranks"
  cmp -s "$T/$sampler-p1/model.json" "$T/$sampler-p4/model.json" || fail "$sampler: model.json differs"
  check_model_json "$T/$sampler-p1" amf
  ok "$sampler: 1, 2 and 4 ranks give bitwise-identical outputs and model.json"
done
files_differ "$T/psgld-p1/W_mean.npy" "$T/sgld-p1/W_mean.npy" || fail "psgld and sgld agree"
files_differ "$T/psgld-p1/W_mean.npy" "$T/hamcmc-p1/W_mean.npy" || fail "psgld and hamcmc agree"
# The header of a 2-d <f8 .npy is 128 bytes; the data are doubles, none negative (mirroring).
for f in W_mean H_mean; do
  negatives=$(od -A n -t f8 -v -j 128 "$T/psgld-p1/$f.npy" | tr -s ' ' '\n' |
    awk 'NF && $1 < 0 { n++ } END { print n + 0 }')
  [[ $negatives == 0 ]] || fail "$f.npy holds $negatives negative values"
done
trace_body "$T/psgld-p1/trace.csv" | awk -F, 'NR > 1 && !($3 > 0 && $3 <= 1) { bad = 1 }
  END { exit bad }' || fail "a Phi acceptance rate outside (0, 1]"
ok "the posterior means are non-negative; the Phi acceptance rates lie in (0, 1]"

# ---------------------------------------------------------------------------------------
# Recovery at alpha = 2: x_ij = |sqrt(2 v_ij) z| (the likelihood sees x^2 only), v_ij = w_i h_j
# with w, h uniform on [0.5, 1.5], 120 x 100 entries all observed. The posterior sd of a w_i
# is about 0.14 w_i against a spread of 0.29, so a correlation near 0.9 is expected (0.89
# and 0.90 when this test was written; hamcmc 0.90, sgnht 0.89).
awk 'BEGIN { srand(11); for (i = 1; i <= 120; i++) w[i] = 0.5 + rand()
  for (j = 1; j <= 100; j++) h[j] = 0.5 + rand()
  for (i = 1; i <= 120; i++) for (j = 1; j <= 100; j++) {
    z = sqrt(-2 * log(1 - rand())) * cos(6.283185307179586 * rand())
    x = sqrt(2 * w[i] * h[j]) * z; printf "%d %d %.6f\n", i, j, x < 0 ? -x : x } }
  END { for (i = 1; i <= 120; i++) print w[i] > "'"$T"'/w.txt"
    for (j = 1; j <= 100; j++) print h[j] > "'"$T"'/h.txt" }' </dev/null >"$T/g.txt"
# npy_values FILE : the doubles of a 2-d <f8 .npy (128-byte header), one a line.
npy_values() { od -A n -t f8 -v -j 128 "$1" | tr -s ' ' '\n' | awk 'NF'; }
for sampler in psgld sgld hamcmc sgnht; do
  run_ok "gauss-$sampler" 2 amf --train "$T/g.txt" --rank 1 --alpha 2 --lambda-w 0.1 \
    --lambda-h 0.1 --tiles 2 --iterations 3000 --eval-every 100 --sampler "$sampler" --quiet \
    --out "$T/gauss-$sampler"
  npy_values "$T/gauss-$sampler/W_mean.npy" >"$T/we.txt"
  npy_values "$T/gauss-$sampler/H_mean.npy" >"$T/he.txt"
  corr=$(awk 'FNR == 1 { f++ } f == 1 { w[++nw] = $1 } f == 2 { h[++nh] = $1 }
    f == 3 { we[++nwe] = $1 } f == 4 { he[++nhe] = $1 }
    END { for (i = 1; i <= nw; i++) for (j = 1; j <= nh; j++) {
        a = we[i] * he[j]; b = w[i] * h[j]; n++; sa += a; sb += b; saa += a * a; sbb += b * b
        sab += a * b }
      printf "%.3f", (sab - sa * sb / n) / sqrt((saa - sa * sa / n) * (sbb - sb * sb / n)) }' \
    "$T/w.txt" "$T/h.txt" "$T/we.txt" "$T/he.txt")
  awk -v c="$corr" 'BEGIN { exit !(c > 0.8) }' ||
    fail "$sampler at alpha = 2: correlation of the fitted v with the truth $corr, expected > 0.8"
  ok "$sampler at alpha = 2 recovers v = (WH)_ij: correlation $corr with the truth"
done
# The output contract every model shares: factor arrays rows x K (H as mf's items x K), and
# a trace whose first column is `iter`.
head -c 128 "$T/gauss-psgld/W_mean.npy" | grep -q "'shape': (120, 1)" &&
  head -c 128 "$T/gauss-psgld/H_mean.npy" | grep -q "'shape': (100, 1)" &&
  head -c 128 "$T/gauss-psgld/H_var.npy" | grep -q "'shape': (100, 1)" ||
  fail "W_mean.npy is not rows x K, or H_mean.npy / H_var.npy not columns x K"
[[ $(trace_body "$T/gauss-psgld/trace.csv" | head -1 | cut -d, -f1) == iter ]] ||
  fail "amf's trace does not start with iter"
[[ $(strip_comments "$T/gauss-psgld/draws/chain-1.csv" | head -1) == log_lik,phi_acceptance ]] ||
  fail "amf's draws/chain-1.csv does not hold log_lik,phi_acceptance"
"$CAROUSEL_BIN" summary "$T/gauss-psgld" >"$T/amf-summary.out" 2>&1 && grep -q "^phi_acceptance " "$T/amf-summary.out" ||
  { show_log "$T/amf-summary.out"; fail "carousel summary does not read an amf run"; }
ok "amf writes W rows x K and H columns x K, a trace starting with iter, and draws that summary reads"

# ---------------------------------------------------------------------------------------
# Dense .npy input with --fix-rows. Python's standard library writes the files (numpy is not
# needed): 40 x 30 from a rank-2 non-negative truth, real entries x = sqrt(2 v) z (signed),
# complex ones with real and imaginary parts N(0, v / 2); the fixed rows are the truth's
# first column of W (K_f = 1 of --rank 3).
python3 - "$T" <<'PY'
import math, random, struct, sys
d = sys.argv[1]
def save(name, descr, rows, cols, flat):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%d, %d), }" % (descr, rows, cols)
    header += ' ' * ((64 - (10 + len(header) + 1) % 64) % 64) + '\n'
    code = {'<f8': 'd', '<f4': 'f', '<c8': 'f', '<c16': 'd'}[descr]
    with open(d + '/' + name, 'wb') as f:
        f.write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(header)) + header.encode())
        f.write(struct.pack('<%d%s' % (len(flat), code), *flat))
rng = random.Random(13)
I, J = 40, 30
w = [[0.5 + rng.random() for k in range(2)] for i in range(I)]
h = [[0.5 + rng.random() for j in range(J)] for k in range(2)]
v = [[w[i][0] * h[0][j] + w[i][1] * h[1][j] for j in range(J)] for i in range(I)]
real = [math.sqrt(2 * v[i][j]) * rng.gauss(0, 1) for i in range(I) for j in range(J)]
cplx = []
for i in range(I):
    for j in range(J):
        cplx += [rng.gauss(0, math.sqrt(v[i][j] / 2)), rng.gauss(0, math.sqrt(v[i][j] / 2))]
save('real.npy', '<f8', I, J, real)
save('complex.npy', '<c8', I, J, cplx)
save('fixed.npy', '<f4', I, 1, [w[i][0] for i in range(I)])
save('fixed_wide.npy', '<f8', I, 4, [w[i][k % 2] for i in range(I) for k in range(4)])
save('fixed_rows.npy', '<f4', I - 1, 1, [w[i][0] for i in range(I - 1)])
neg = [w[i][0] for i in range(I)]; neg[7] = -0.5
save('fixed_neg.npy', '<f8', I, 1, neg)
save('fixed80.npy', '<f4', 80, 2, [0.5 + 0.01 * e for e in range(160)])
bad = list(real); bad[5 * J + 3] = float('nan')
save('nan.npy', '<f8', I, J, bad)
PY
# A reader of those files and carousel's (2-d; float32/64, complex64) for the checks below.
cat >"$T/npyload.py" <<'PY'
import struct
def load(path):
    """(rows, cols, values): complex as moduli"""
    b = open(path, 'rb').read()
    n = struct.unpack('<H', b[8:10])[0]
    header = b[10:10 + n].decode()
    descr = header.split("'descr': '")[1].split("'")[0]
    rows, cols = (int(a) for a in header.split("'shape': (")[1].split(')')[0].split(','))
    code, size = {'<f8': ('d', 8), '<f4': ('f', 4), '<c8': ('f', 4)}[descr]
    data = b[10 + n:]
    x = list(struct.unpack('<%d%s' % (len(data) // size, code), data))
    if descr == '<c8':
        x = [abs(complex(x[2 * e], x[2 * e + 1])) for e in range(len(x) // 2)]
    return rows, cols, x
PY
# npy_check PYTHON-EXPRESSION FILES... : the expression, over load(FILE_k) as a[k], is true.
npy_check() {
  local expr=$1
  shift
  python3 -c "import sys; sys.path.insert(0, '$T'); from npyload import load
a = [load(p) for p in sys.argv[1:]]
sys.exit(0 if ($expr) else 1)" "$@"
}
DENSE=(--rank 3 --alpha 1.5 --tiles 4 --seed 5 --fix-rows "$T/fixed.npy" --quiet)
for kind in real complex; do
  for np in 1 2 4; do
    run_ok "$kind-p$np" "$np" amf --train "$T/$kind.npy" "${DENSE[@]}" --iterations 200 \
      --eval-every 20 --out "$T/$kind-p$np"
  done
  [[ -s $T/$kind-p1/reconstruction.npy ]] || fail "$kind: no reconstruction.npy"
  same_amf_outputs "$T/$kind-p1" "$T/$kind-p2" "dense $kind: 1 vs 2 ranks"
  same_amf_outputs "$T/$kind-p1" "$T/$kind-p4" "dense $kind: 1 vs 4 ranks"
  grep -q "^# likelihood: $kind" "$T/$kind-p1/trace.csv" ||
    fail "dense $kind: the trace does not name the $kind likelihood"
  # W_mean's first column is the fixed one exactly (float32 in both), with variance 0; the
  # free columns vary.
  npy_check 'a[0][2][0::3] == a[2][2] and set(a[1][2][0::3]) == {0.0} and min(a[1][2][1::3]) > 0' \
    "$T/$kind-p1/W_mean.npy" "$T/$kind-p1/W_var.npy" "$T/fixed.npy" ||
    fail "dense $kind: W's fixed column is not the --fix-rows column with variance 0"
  # The alpha-Wiener mask lies in [0, 1], so 0 <= reconstruction <= |x|.
  npy_check 'a[0][:2] == a[1][:2] and max(a[1][2]) > 0 and
    all(0 <= r <= abs(x) * (1 + 1e-6) for r, x in zip(a[1][2], a[0][2]))' \
    "$T/$kind.npy" "$T/$kind-p1/reconstruction.npy" ||
    fail "dense $kind: reconstruction.npy is not I x J within [0, |x|]"
  ok "dense $kind .npy with --fix-rows: 1, 2 and 4 ranks bitwise identical (means, variances, reconstruction); fixed column kept; 0 <= reconstruction <= |x|"
done
files_differ "$T/real-p1/W_mean.npy" "$T/complex-p1/W_mean.npy" || fail "real and complex agree"
# --fix-rows on sparse input: rows in the order of the ids (1..80 here); no reconstruction.
run_ok sparse-fix 2 amf "${BASE[@]}" --fix-rows "$T/fixed80.npy" --iterations 100 \
  --eval-every 20 --out "$T/sparse-fix"
[[ ! -e $T/sparse-fix/reconstruction.npy ]] || fail "sparse input wrote reconstruction.npy"
npy_check 'a[0][2][0::3] + a[0][2][1::3] == a[1][2][0::2] + a[1][2][1::2]' \
  "$T/sparse-fix/W_mean.npy" "$T/fixed80.npy" ||
  fail "sparse input: W's first two columns are not the --fix-rows columns"
ok "dense real and complex differ; --fix-rows on sparse input fixes W's first columns by row id"
# Sparse input has ids: row_ids.npy and col_ids.npy name W's rows and H's rows, in order,
# and model.json lists them; the input's ids are 1..80 and 1..60 (every one rated).
/usr/bin/python3 - "$T/sparse-fix" <<'PY' || fail "sparse input: the id maps are wrong"
import json, sys
import numpy as np
d = sys.argv[1]
rows, cols = np.load(f"{d}/row_ids.npy"), np.load(f"{d}/col_ids.npy")
w, h = np.load(f"{d}/W_mean.npy"), np.load(f"{d}/H_mean.npy")
assert len(rows) == w.shape[0] and len(cols) == h.shape[0], (rows.shape, w.shape, cols.shape, h.shape)
assert sorted(rows.tolist()) == list(range(1, len(rows) + 1)), rows[:5]
files = json.load(open(f"{d}/model.json"))["files"]
assert files["row_ids"] == "row_ids.npy" and files["col_ids"] == "col_ids.npy", files
PY
[[ ! -e $T/real-p1/row_ids.npy && -e $T/real-p1/W_mean.npy ]] || fail "dense input wrote row_ids.npy"
ok "sparse input writes row_ids.npy and col_ids.npy (in model.json); dense input none"

# ---------------------------------------------------------------------------------------
# Denoising at alpha = 2, where the alpha-Wiener filter is the Wiener filter: X = S + N with
# S ~ N(0, 2 v_S), N ~ N(0, 2 v_N) independent, v_S = (W_S H_S)_ij of rank 2, v_N of rank 1;
# W_S fixed, K = 3. The oracle E[S | X] = v_S / (v_S + v_N) X uses the true scales; the
# sampled reconstruction's mean absolute error to |oracle| must be well below that of |X|
# itself (ratio 0.41 when this test was written), and with a wrong dictionary (W_S's rows
# reversed) it is not (1.08): the reconstruction must be below 0.7 and the control above.
python3 - "$T" <<'PY'
import math, random, struct, sys
d = sys.argv[1]
def save(name, rows, cols, flat):
    header = "{'descr': '<f8', 'fortran_order': False, 'shape': (%d, %d), }" % (rows, cols)
    header += ' ' * ((64 - (10 + len(header) + 1) % 64) % 64) + '\n'
    with open(d + '/' + name, 'wb') as f:
        f.write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(header)) + header.encode())
        f.write(struct.pack('<%dd' % len(flat), *flat))
rng = random.Random(3)
I, J = 60, 80
ws = [[2 * rng.random() ** 2 for k in range(2)] for i in range(I)]
hs = [[2 * rng.random() ** 2 for j in range(J)] for k in range(2)]
wn = [0.3 + 0.2 * rng.random() for i in range(I)]
hn = [0.5 + rng.random() for j in range(J)]
x, oracle = [], []
for i in range(I):
    for j in range(J):
        vs, vn = ws[i][0] * hs[0][j] + ws[i][1] * hs[1][j], wn[i] * hn[j]
        xij = math.sqrt(2 * vs) * rng.gauss(0, 1) + math.sqrt(2 * vn) * rng.gauss(0, 1)
        x.append(xij)
        oracle.append(vs / (vs + vn) * abs(xij))
save('mix.npy', I, J, x)
save('oracle.npy', I, J, oracle)
save('ws.npy', I, 2, [ws[i][k] for i in range(I) for k in range(2)])
save('ws_reversed.npy', I, 2, [ws[I - 1 - i][k] for i in range(I) for k in range(2)])
PY
# error_ratio RUN : mean |reconstruction - oracle| over mean ||x| - oracle|.
error_ratio() {
  python3 -c "import sys; sys.path.insert(0, '$T'); from npyload import load
r, o, x = (load(p)[2] for p in sys.argv[1:])
print('%.3f' % (sum(abs(a - b) for a, b in zip(r, o)) / sum(abs(abs(a) - b) for a, b in zip(x, o))))" \
    "$1/reconstruction.npy" "$T/oracle.npy" "$T/mix.npy"
}
for dict in ws ws_reversed; do
  run_ok "denoise-$dict" 2 amf --train "$T/mix.npy" --fix-rows "$T/$dict.npy" --rank 3 --alpha 2 \
    --tiles 2 --iterations 3000 --eval-every 50 --quiet --out "$T/denoise-$dict"
done
good=$(error_ratio "$T/denoise-ws")
bad=$(error_ratio "$T/denoise-ws_reversed")
awk -v g="$good" -v b="$bad" 'BEGIN { exit !(g < 0.7 && b > 0.7) }' ||
  fail "denoising at alpha = 2: error ratio $good with W_S (expected < 0.7), $bad with a wrong dictionary (expected > 0.7)"
# HAMCMC with held columns (Sampler::HoldLeadingColumns keeps its L-BFGS pairs at s = 0 there).
run_ok denoise-hamcmc 2 amf --train "$T/mix.npy" --fix-rows "$T/ws.npy" --rank 3 --alpha 2 \
  --tiles 2 --iterations 3000 --eval-every 50 --sampler hamcmc --quiet --out "$T/denoise-hamcmc"
good_hamcmc=$(error_ratio "$T/denoise-hamcmc")
awk -v g="$good_hamcmc" 'BEGIN { exit !(g < 0.7) }' ||
  fail "denoising at alpha = 2 with hamcmc: error ratio $good_hamcmc (expected < 0.7)"
ok "denoising at alpha = 2: the reconstruction's error to the oracle Wiener estimate is $good of |x|'s ($bad with a wrong dictionary; hamcmc $good_hamcmc)"

# ---------------------------------------------------------------------------------------
# Resume after SIGKILL (on 4 ranks) and after SIGTERM (on 1 rank), on the dense input with
# --fix-rows: every output, the reconstruction included, must match.
ITERATIONS=40000
RUN=(--train "$T/real.npy" "${DENSE[@]}" --iterations "$ITERATIONS" --burn-in 50
  --eval-every 500 --checkpoint-every 200)
resume_checks amf same_amf_outputs W_mean.npy 600 "${RUN[@]}"
# The same with hamcmc (also on the dense input with --fix-rows, whose held columns move its
# L-BFGS pairs), in a directory of its own (resume_checks names its runs ref, killed, term
# under TEST_TMP), on a shorter chain: its ordered sums and second gradient pass make an
# iteration several times slower (about 300 a second here on a shared 2-core machine).
ITERATIONS=6000
RUN=(--train "$T/real.npy" "${DENSE[@]}" --iterations "$ITERATIONS" --burn-in 50
  --eval-every 500 --checkpoint-every 200 --sampler hamcmc)
mkdir -p "$T/hamcmc-resume"
TEST_TMP=$T/hamcmc-resume resume_checks amf same_amf_outputs W_mean.npy 600 "${RUN[@]}"
npy_check 'a[0][2][0::3] == a[1][2]' "$T/hamcmc-resume/ref/W_mean.npy" "$T/fixed.npy" ||
  fail "hamcmc: W's fixed column is not the --fix-rows column"
ok "hamcmc keeps the --fix-rows column exactly"

# ---------------------------------------------------------------------------------------
# Bad input and options.
awk 'NR == 9 { $3 = -$3 } { print }' "$T/x.txt" >"$T/negative.txt"
expect_fail_mpi 3 "negative.txt:9" 2 amf --train "$T/negative.txt" --tiles 2 --out "$T/bad"
ok "a negative entry is named: $EXPECT_FAIL_MESSAGE"
expect_fail_mpi 2 "needs a metric" 2 amf "${BASE[@]}" --sampler sgrld --out "$T/bad"
ok "a sampler that needs a metric is refused: $EXPECT_FAIL_MESSAGE"
expect_fail_mpi 2 "--initial-metric" 2 amf "${BASE[@]}" --sampler hamcmc --initial-metric fisher \
  --out "$T/bad"
ok "HAMCMC's Fisher H0 is refused: $EXPECT_FAIL_MESSAGE"
# HAMCMC's --memory 3 shares a divisor with 6 tiles: cyclic strata would show each of its
# sub-chains part of the data (ResolveFactorSchedule, as carousel mf), so the default schedule
# is random and an explicit cyclic one is refused.
expect_fail_mpi 2 "without a common divisor" 2 amf --train "$T/x.txt" --tiles 6 --sampler hamcmc \
  --schedule cyclic --out "$T/bad"
run_ok hamcmc-6-tiles 2 amf --train "$T/x.txt" --tiles 6 --sampler hamcmc --iterations 20 \
  --quiet --out "$T/hamcmc-6"
grep -qx "# schedule: random" "$T/hamcmc-6/trace.csv" || fail "hamcmc with 6 tiles: no random schedule"
ok "hamcmc with 6 tiles runs on random strata, and refuses cyclic ones"
# The default --eval-every is the fewest whole passes that make 10 iterations: 2 passes of 6
# tiles, so trace rows at 12 and at the last iteration, 20 (EvalEveryOfPasses).
rows=$(grep -v '^#' "$T/hamcmc-6/trace.csv" | tail -n +2 | cut -d, -f1 | tr '\n' ' ')
[[ $rows == "12 20 " ]] || fail "amf at 6 tiles evaluated at iterations $rows, not 12 20"
grep -q '^eval-every = 12 ' "$T/hamcmc-6/config.toml" ||
  fail "config.toml does not record the default --eval-every 12"
ok "amf's default --eval-every at 6 tiles is 2 passes (12 iterations), in config.toml"
expect_fail_mpi 3 "nan.npy: element [5, 3] is NaN" 2 amf --train "$T/nan.npy" --tiles 2 --out "$T/bad"
ok "a NaN element is named: $EXPECT_FAIL_MESSAGE"
expect_fail_mpi 3 "fixed_rows.npy: --fix-rows has shape (39, 1)" 2 amf --train "$T/real.npy" \
  --fix-rows "$T/fixed_rows.npy" --tiles 2 --out "$T/bad"
ok "a --fix-rows file with a row missing is refused: $EXPECT_FAIL_MESSAGE"
expect_fail_mpi 3 "fixed_wide.npy: --fix-rows has shape (40, 4)" 2 amf --train "$T/real.npy" \
  --fix-rows "$T/fixed_wide.npy" --rank 3 --tiles 2 --out "$T/bad"
ok "a --fix-rows file wider than --rank is refused: $EXPECT_FAIL_MESSAGE"
expect_fail_mpi 3 "fixed_neg.npy: element [7, 0] is -0.5" 2 amf --train "$T/real.npy" \
  --fix-rows "$T/fixed_neg.npy" --tiles 2 --out "$T/bad"
ok "a negative --fix-rows value is named: $EXPECT_FAIL_MESSAGE"
