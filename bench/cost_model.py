#!/usr/bin/python3
"""Analytic cost model of `carousel mf` (Bayesian MF, SGRLD, default options) on P ranks.

Model (DESIGN.md sections 1 and 9). B = --tiles tiles (at least P, rounded up to a
multiple of P); a pass is B iterations of one stratum; rank p owns B/P consecutive
row-blocks and processes one tile per row-block per iteration. Per pass, over all ranks:

  compute = ratings * c_rating
          + touched * width * c_row                        (drift of rows with data in their tile)
          + flushes * (users + items) * width * c_catchup  (every row's deferred noise)

with touched = sum over rows of B * (1 - (1 - 1/B)^d), d the mean degree of the side
(ratings/users, ratings/items), and flushes the draws of every row's noise per pass: one at
B = 1, else B / floor(B / 2) (DeferredNoiseSpan at the default step 0.6 / B: about two). Compute divides evenly by P (seeded
permutations balance the tiles); every rank also unpacks the all-gathered H, and rank 0
adds it to the posterior moments (serial, per evaluation). An iteration costs
  tile work + max(row work, shift) + reductions * latency * ceil(log2 P)
(--overlap rows, as TileEngine::Step: column blocks travel while the row-blocks step), or
max(compute, shift) + ... (--overlap full). Assumptions: independent uniform placement of
a row's ratings among its B tiles, mean degrees (no degree spread), no OS/network noise,
cyclic strata (the SGRLD default), the all-gather as a ring (bandwidth (P-1)/P of H).

Scaled shapes: netflix-10x and netflix-100x multiply users, items and ratings by s, so
ratings per user and per item stay at Netflix's and the density falls by s.
"""
import argparse
import math
import sys

MIB = 1024.0 * 1024.0

# Constants. Every one is a command-line flag (see parse_args), to be replaced by measurements.
C_RATING = 13e-9       # s per rating (gradient term, width 33). The brief's default; it agrees
#                        with bench/README.md "Per-core rate": 71.8M ratings/s per core at
#                        P = 1, K = 32, i.e. 13.9 ns per rating for a whole iteration.
#                        Scaled by width / 33 for other --rank (dot product + two axpys).
C_ROW = 0.83e-9        # s per element of a row drifted with data (metric, drift, the metric's
#                        sums; mostly moving the row through memory): from the 2-core VM's
#                        one-rank passes on gen-25M at 1 and 16 tiles (0.539 and 0.801 s) with
#                        C_CATCHUP below. It is 2.2e-9 between 16 and 64 tiles, where W no
#                        longer stays in any cache between a row's touches.
C_CATCHUP = 4e-9       # s per element of a flush (keyed normal 3 ns, metric, contraction).
C_COPY = 0.5e-9        # s per float copied (unpacking the gathered H): memory speed,
#                        about 8 GB/s of read + write. A guess.
BANDWIDTH_GBS = 10.0   # GB/s per rank, each direction. The brief's default.
LATENCY_US = 5.0       # us per message / per step of a reduction tree. The brief's default.
REDUCTIONS_PER_ITER = 1  # AgreeAfterIteration's all-gather after every iteration
#                          (src/engine/tile_engine.cpp, Run).
AUX_MATRICES = 0       # matrices a column block carries besides theta: 0 for SGRLD
#                        (include/carousel/sampler/sgrld.hpp, aux_count).
TEST_FRACTION = 0.01   # test ratings / ratings: the 99/1 split of bench/run_scale_bench.sh.
RANK_K = 32

# Encoded block layout (src/sampler/block_codec.cpp, EncodedBlockSize): a 3-word header,
# one length word per matrix, then a length word and 8 bytes per row for the row clocks.
BLOCK_HEADER_BYTES = 3 * 8
MATRIX_LENGTH_BYTES = 8
ROW_CLOCK_BYTES = 8

SHAPES = [  # name, users, items, ratings
    ("gen-25M", 480189, 17770, 25000000),
    ("netflix", 480189, 17770, 100480507),
    ("netflix-10x", 480189 * 10, 17770 * 10, 100480507 * 10),
    ("netflix-100x", 480189 * 100, 17770 * 100, 100480507 * 100),
]
RANKS = [2 ** i for i in range(11)]  # 1 .. 1024


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tiles", type=int, default=0,
                   help="default tile count; B = max(P, tiles) rounded up to a multiple of P "
                        "(default 0: B = P, as `carousel mf` without --tiles)")
    p.add_argument("--rank", type=int, default=RANK_K, help="K; width = K + 1 (bias)")
    p.add_argument("--bandwidth-gbs", type=float, default=BANDWIDTH_GBS)
    p.add_argument("--latency-us", type=float, default=LATENCY_US)
    p.add_argument("--c-rating", type=float, default=C_RATING, help="s per rating at K = 32")
    p.add_argument("--c-row", type=float, default=C_ROW, help="s per stepped row element")
    p.add_argument("--c-catchup", type=float, default=C_CATCHUP,
                   help="s per element of a composed (catch-up or flush) move")
    p.add_argument("--c-copy", type=float, default=C_COPY, help="s per float copied")
    p.add_argument("--reductions-per-iter", type=int, default=REDUCTIONS_PER_ITER)
    p.add_argument("--aux-matrices", type=int, default=AUX_MATRICES)
    p.add_argument("--test-fraction", type=float, default=TEST_FRACTION)
    p.add_argument("--evals-per-pass", type=float, default=1.0,
                   help="evaluations (flush + all-gather of H) per pass; note that after the "
                        "burn-in `carousel mf --thin 1` evaluates every iteration: pass B's "
                        "value for that")
    p.add_argument("--overlap", choices=["rows", "full"], default="rows",
                   help="what the shift hides behind: the row-block step (rows, as "
                        "TileEngine::Step) or the whole iteration (full)")
    p.add_argument("--moves", choices=["cyclic", "all"], default="cyclic",
                   help="column blocks a rank sends per iteration: 1 with cyclic strata and "
                        "consecutive row-blocks (cyclic), or all B/P it holds (all)")
    p.add_argument("--validate", action="store_true",
                   help="compare with measured seconds per pass on gen-25M (--measured)")
    p.add_argument("--measured", nargs="+", default=[], metavar="P=SECONDS",
                   help="measured seconds per pass at P ranks (--tiles P), e.g. 1=0.575 16=0.115")
    p.add_argument("--fit", nargs=2, type=int, metavar=("P1", "P2"),
                   help="with --validate: first fit --c-rating and --c-row to the measurements "
                        "at these two rank counts, then predict the others")
    return p.parse_args(argv)


def tiles_for(p, default_tiles):
    b = max(p, default_tiles)
    return -(-b // p) * p


def log2_ceil(p):
    return math.ceil(math.log2(p)) if p > 1 else 0


def touch_probability(b, degree):
    """P(a row with `degree` ratings has >= 1 of them in a given one of its B tiles)."""
    return 1.0 - (1.0 - 1.0 / b) ** degree


def row_work(a, n_rows, degree, b):
    """Seconds per pass (all ranks) of the rows of one side: the drifts of touched rows."""
    touched = n_rows * b * touch_probability(b, degree)
    return touched, touched * a.width * a.c_row


def flushes_per_pass(b):
    """Draws of every row's deferred noise per pass at the default step (0.3 at one tile, else
    0.6 / B; a span of max(1, floor(0.3 / step)) iterations)."""
    return 1.0 if b == 1 else b / max(1, b // 2)


def block_bytes(a, rows):
    """Encoded size of one column block of `rows` rows (block_codec.cpp)."""
    matrices = (1 + a.aux_matrices) * (MATRIX_LENGTH_BYTES + 4.0 * rows * a.width)
    return BLOCK_HEADER_BYTES + matrices + MATRIX_LENGTH_BYTES + ROW_CLOCK_BYTES * rows


def allgather_seconds(a, items, p):
    """Ring all-gather of H: (P - 1)/P of it through each rank, log2 P latency steps."""
    if p == 1:
        return 0.0
    h_bytes = items * a.width * 4.0
    return (log2_ceil(p) * a.latency_us * 1e-6
            + (p - 1) / p * h_bytes / (a.bandwidth_gbs * 1e9))


def memory(a, users, items, ratings, p, b, moved):
    """Bytes on rank 0 (the largest): partitioned share and whole-held structures."""
    rows = users / p
    col_rows = items / b
    held = b // p
    ratings_bytes = ratings / p * 8.0 + rows * b * 4.0  # (col, value) + row_start per tile
    row_blocks = rows * a.width * (4.0 * 2 + 8.0 * 2) + rows * (ROW_CLOCK_BYTES + 4.0)
    col_blocks = (held + moved) * block_bytes(a, col_rows)  # + send pack/receive buffer
    test = a.test_fraction * ratings / p * (12.0 + 16.0)  # rating + prediction sums
    share = ratings_bytes + row_blocks + col_blocks + test
    h_bytes = items * a.width * 4.0
    whole = ((users + items) * 8.0  # id maps
             + 2 * h_bytes           # gathered H + the all-gather's receive buffer
             + items * a.width * 16.0)  # rank 0: posterior moments of H (2 doubles)
    return share, whole


def model(a, shape, p):
    """Everything the table prints for one (shape, P), plus the overhead breakdown."""
    name, users, items, ratings = shape
    b = tiles_for(p, a.tiles)
    c_rating = a.c_rating * a.width / 33.0
    d_user, d_item = ratings / users, ratings / items
    touched_u, work_u = row_work(a, users, d_user, b)
    touched_i, work_i = row_work(a, items, d_item, b)
    flush = max(a.evals_per_pass, flushes_per_pass(b)) * (users + items) * a.width * a.c_catchup
    whole_h = a.evals_per_pass * items * a.width * (a.c_copy + a.c_catchup)  # unpack; moments
    rating_work = ratings * c_rating
    compute_pass = (rating_work + work_u + work_i + flush) / p + whole_h

    moved = 0 if p == 1 else (1 if a.moves == "cyclic" else b // p)
    shift_bytes = moved * block_bytes(a, items / b)
    shift_s = 0.0 if moved == 0 else (a.latency_us * 1e-6
                                      + shift_bytes / (a.bandwidth_gbs * 1e9))
    iter_compute = (rating_work + work_u + work_i) / p / b
    hide_behind = work_u / p / b if a.overlap == "rows" else iter_compute
    exposed = max(0.0, shift_s - hide_behind)
    sync = a.reductions_per_iter * log2_ceil(p) * a.latency_us * 1e-6
    iter_s = iter_compute + exposed + sync
    gather_s = a.evals_per_pass * (allgather_seconds(a, items, p)
                                   + log2_ceil(p) * a.latency_us * 1e-6)  # + hyper reduction
    pass_s = compute_pass + b * (exposed + sync) + gather_s
    share, whole = memory(a, users, items, ratings, p, b, moved)
    return {
        "shape": name, "P": p, "B": b,
        "ratings_rank_iter": ratings / p / b,
        "rows_touched_rank_iter": (touched_u + touched_i) / p / b,
        "compute_s_pass_rank": compute_pass,
        "shift_bytes_rank_iter": shift_bytes,
        "gather_recv_bytes_pass": a.evals_per_pass * (p - 1) / p * items * a.width * 4.0,
        "comm_s_pass": b * shift_s + gather_s,
        "hidden": "-" if moved == 0 else ("yes" if exposed == 0 else "no"),
        "latency_s_pass": b * sync,
        "pass_s": pass_s,
        "mem_share_mib": share / MIB,
        "mem_whole_mib": whole / MIB,
        "mem_rank_mib": (share + whole) / MIB,
        # overhead terms against a perfect 1/P of the P = 1 pass (see scaling_end)
        "_row_growth": (work_u + work_i) / p,
        "_exposed": b * exposed,
        "_latency": b * sync,
        "_eval": whole_h + gather_s,
    }


COLUMNS = [
    ("shape", "{}"), ("P", "{}"), ("B", "{}"),
    ("ratings_rank_iter", "{:.0f}"), ("rows_touched_rank_iter", "{:.0f}"),
    ("compute_s_pass_rank", "{:.4g}"), ("shift_bytes_rank_iter", "{:.0f}"),
    ("gather_recv_bytes_pass", "{:.0f}"), ("comm_s_pass", "{:.4g}"), ("hidden", "{}"),
    ("latency_s_pass", "{:.4g}"), ("pass_s", "{:.4g}"),
    ("mem_share_mib", "{:.1f}"), ("mem_whole_mib", "{:.1f}"), ("mem_rank_mib", "{:.1f}"),
    ("speedup", "{:.2f}"), ("efficiency", "{:.2f}"),
]


def format_row(r):
    return ",".join(fmt.format(r[name]) for name, fmt in COLUMNS)


def scaling_end(rows, base):
    """First P with efficiency < 0.5 and the overhead that grew most, and the first P whose
    whole-held memory exceeds its partitioned share."""
    time_end = None
    for r in rows:
        if r["efficiency"] < 0.5:
            reasons = {
                "communication not hidden": r["_exposed"],
                "per-iteration latency": r["_latency"],
                "flush/all-gather per pass": r["_eval"] - base["_eval"],
                "row work growing with B": r["_row_growth"] - base["_row_growth"] / r["P"],
            }
            time_end = (r["P"], max(reasons, key=reasons.get))
            break
    mem_end = next((r["P"] for r in rows if r["mem_whole_mib"] > r["mem_share_mib"]), None)
    return time_end, mem_end


def describe_end(name, time_end, mem_end):
    t = (f"efficiency < 50% from P = {time_end[0]} ({time_end[1]})" if time_end
         else f"efficiency >= 50% up to P = {RANKS[-1]}")
    m = (f"whole-held memory exceeds the rank's share from P = {mem_end}" if mem_end
         else "whole-held memory below the rank's share throughout")
    first = [x for x in (time_end and (time_end[0], time_end[1]),
                         mem_end and (mem_end, "memory of whole-held structures"))
             if x]
    verdict = (f"scaling ends at P = {min(first)[0]}: {min(first)[1]}" if first
               else f"scales to P = {RANKS[-1]}")
    return f"# {name}: {verdict}; {t}; {m}"


def shape_rows(a, shape):
    rows = [model(a, shape, p) for p in RANKS]
    base = rows[0]
    for r in rows:
        r["speedup"] = base["pass_s"] / r["pass_s"]
        r["efficiency"] = r["speedup"] / r["P"]
    return rows, base


def print_settings(a):
    print(f"# carousel mf cost model: K = {a.rank} (width {a.width}); tiles = "
          f"{'P' if a.tiles <= 0 else f'max(P; {a.tiles})'}; {a.bandwidth_gbs} GB/s; "
          f"{a.latency_us} us; c_rating {a.c_rating:g} s (K=32); c_row {a.c_row:g} s; "
          f"c_catchup {a.c_catchup:g} s; c_copy {a.c_copy:g} s; evals/pass "
          f"{a.evals_per_pass:g}; overlap {a.overlap}; moves {a.moves}")
    print("# per rank: *_iter per iteration; *_pass per pass (B iterations); memory on rank 0")


def run_table(a):
    print_settings(a)
    print(",".join(name for name, _ in COLUMNS))
    summaries = []
    for shape in SHAPES:
        rows, base = shape_rows(a, shape)
        for r in rows:
            print(format_row(r))
        summaries.append(describe_end(shape[0], *scaling_end(rows, base)))
    for line in summaries:
        print(line)


def fit_rates(a, shape, measured, p1, p2):
    """c_rating and c_row such that the model's pass at P = p1 and p2 is the measured one: the
    pass is linear in both (A * c_rating + R * c_row + C), so two passes fix them."""
    def pass_at(p, c_rating, c_row):
        a.c_rating, a.c_row = c_rating, c_row
        return model(a, shape, p)["pass_s"]
    rows = []
    for p in (p1, p2):
        c = pass_at(p, 0.0, 0.0)
        rows.append((pass_at(p, 1.0, 0.0) - c, pass_at(p, 0.0, 1.0) - c, measured[p] - c))
    (a1, r1, y1), (a2, r2, y2) = rows
    det = a1 * r2 - a2 * r1
    a.c_rating, a.c_row = (y1 * r2 - y2 * r1) / det, (a1 * y2 - a2 * y1) / det


def run_validation(a):
    measured = {}
    for item in a.measured:
        p, _, seconds = item.partition("=")
        measured[int(p)] = float(seconds)
    if 1 not in measured or len(measured) < 2:
        sys.exit("cost_model.py: --validate needs --measured 1=SECONDS and another P=SECONDS")
    shape = SHAPES[0]  # gen-25M
    if a.fit:
        if any(p not in measured for p in a.fit):
            sys.exit("cost_model.py: --fit needs measurements at both of its rank counts")
        fit_rates(a, shape, measured, *a.fit)
    print_settings(a)
    print("shape,P,B,predicted_s_pass,measured_s_pass,measured/predicted,"
          "predicted_speedup,measured_speedup,fitted_here")
    base = model(a, shape, 1)
    for p in sorted(measured):
        r, m = model(a, shape, p), measured[p]
        fitted = "yes" if a.fit and p in a.fit else "no"
        print(f"{shape[0]},{p},{r['B']},{r['pass_s']:.4g},{m:.4g},{m / r['pass_s']:.3f},"
              f"{base['pass_s'] / r['pass_s']:.2f},{measured[1] / m:.2f},{fitted}")


def main(argv):
    a = parse_args(argv)
    a.width = a.rank + 1
    if a.validate:
        run_validation(a)
    else:
        run_table(a)


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except BrokenPipeError:  # piped into head
        sys.stderr.close()
