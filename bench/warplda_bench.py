#!/usr/bin/env python3
"""Helpers of bench/run_warplda_bench.sh (issue #17 item 5): Carousel's `lda` against WarpLDA
(thu-ml/warplda) on the same document-completion split.

  split     UCI corpus + carousel's heldout.txt -> WarpLDA's text input (training documents
            only, one line `id id w<word> ...` per document, every token spelled out) and a
            UCI file of the held-out documents alone (same entries in the same file order,
            documents renumbered 1..D_held, the full vocabulary W in the header).
  topics    WarpLDA's word-topic count model (.model + .vocab) -> a directory that
            `carousel lda infer --run` accepts: topic_word.npy (K x V float64) and a trace.csv
            header with `# topics:` and `# alpha:`.
  table     the runs' CSVs -> medians over repeats, a markdown table and a plot.

Scoring. WarpLDA has no held-out evaluation, so its topics are scored by Carousel's own
document-completion code: `carousel lda infer --perplexity` on the held-out documents (every
10th token in file order is a test token, theta_d is fitted by collapsed Gibbs to the others
with phi fixed; src/model/lda/lda_inference.cpp), the estimator doc/lda.md's "Perplexity"
section describes. WarpLDA's phi is its point estimate from the final topic assignments,
phi_kw = (n_kw + beta) / (n_k + V beta) with V the corpus's full vocabulary (words absent
from training get beta / (n_k + V beta)), the same smoothing carousel's a_hat = beta + n uses.
Carousel's topics are scored the same way, on the same grid of iteration counts: a fresh
run per count at the defaults, whose topic_word.npy is what such a run gives a user (the
posterior mean of the samples kept after burn-in). The target and equal-time rows compare
the two grids. Carousel's own trace.csv (10 Gibbs passes
per evaluation, warm-started from the last evaluation's, p(w) averaged over the evaluations
after burn-in) is a different estimator; its curve is shown for reference, and the final
topic_word.npy of that longer run is also scored by `lda infer`.
"""
import argparse
import csv
import glob
import math
import os
import statistics
import sys

import numpy as np


def read_uci(path):
    """Header (D, W, NNZ) and the entry lines (doc, word, count), 1-based, in file order."""
    with open(path) as f:
        D, W, nnz = (int(f.readline()) for _ in range(3))
        triples = np.array(f.read().split(), dtype=np.int64).reshape(-1, 3)
    if len(triples) != nnz:
        sys.exit(f"{path}: header says {nnz} entries, found {len(triples)}")
    return D, W, triples


def read_heldout(path):
    with open(path) as f:
        return {int(l) for l in (line.strip() for line in f) if l and not l.startswith("#")}


def cmd_split(a):
    D, W, t = read_uci(a.corpus)
    held = read_heldout(a.heldout)  # 0-based document ids
    doc0 = t[:, 0] - 1
    is_held = np.isin(doc0, np.fromiter(held, dtype=np.int64))
    # Held-out documents: keep the entry lines in file order (it decides the test tokens).
    h = t[is_held]
    new_id = {d: i + 1 for i, d in enumerate(sorted(held))}
    with open(a.heldout_out, "w") as f:
        f.write(f"{len(held)}\n{W}\n{len(h)}\n")
        f.writelines(f"{new_id[d - 1]} {w} {c}\n" for d, w, c in h.tolist())
    # Training documents for WarpLDA: word w (1-based UCI id) is spelled w<w-1>, so WarpLDA's
    # vocabulary maps back to carousel's 0-based column ids.
    tr = t[~is_held]
    order = np.argsort(tr[:, 0], kind="stable")
    tr = tr[order]
    tokens = 0
    with open(a.train_out, "w") as f:
        bounds = np.flatnonzero(np.diff(tr[:, 0])) + 1
        for block in np.split(tr, bounds):
            if not len(block):
                continue
            words = " ".join(" ".join([f"w{w - 1}"] * c) for w, c in block[:, 1:].tolist())
            tokens += int(block[:, 2].sum())
            f.write(f"d{block[0, 0]} d{block[0, 0]} {words}\n")
    print(f"split: {len(held)} held-out documents ({int(h[:, 2].sum())} tokens) -> {a.heldout_out}; "
          f"training: {len(np.unique(tr[:, 0]))} documents, {tokens} tokens -> {a.train_out}; V = {W}")


def write_npy(path, array):
    array = np.ascontiguousarray(array, dtype="<f8")
    tmp = path + ".tmp"
    np.save(tmp, array)
    os.replace(tmp + ".npy" if not tmp.endswith(".npy") else tmp, path)


def cmd_topics(a):
    with open(a.vocab) as f:
        words = [line.strip() for line in f]
    col = np.array([int(w[1:]) for w in words], dtype=np.int64)  # warplda id -> carousel id
    with open(a.model) as f:
        nv, K, _alpha, beta = f.readline().split()
        nv, K, beta = int(nv), int(K), float(beta)
        if nv != len(col):
            sys.exit(f"{a.model}: {nv} words, but {a.vocab} has {len(col)}")
        counts = np.zeros((K, a.words))
        for v, line in enumerate(f):
            for item in line.split()[1:]:
                k, c = item.split(":")
                counts[int(k), col[v]] += int(c)
    phi = counts + beta
    phi /= phi.sum(axis=1, keepdims=True)
    os.makedirs(a.out, exist_ok=True)
    write_npy(os.path.join(a.out, "topic_word.npy"), phi)
    with open(os.path.join(a.out, "trace.csv"), "w") as f:
        f.write(f"# source: WarpLDA model {a.model}\n# topics: {K}\n# alpha: {a.alpha}\n# beta: {beta}\n"
                "iter,seconds,perplexity\n")


def cmd_oracle(a):
    """True topics of `carousel gen lda --topics-out` as a run directory, to score the oracle."""
    phi = np.load(a.topics_npy)
    os.makedirs(a.out, exist_ok=True)
    write_npy(os.path.join(a.out, "topic_word.npy"), phi / phi.sum(axis=1, keepdims=True))
    with open(os.path.join(a.out, "trace.csv"), "w") as f:
        f.write(f"# source: true topics {a.topics_npy}\n# topics: {phi.shape[0]}\n# alpha: {a.alpha}\n"
                "iter,seconds,perplexity\n")


# ---------------------------------------------------------------------------------- table

def read_rows(path):
    with open(path) as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def first_at(curve, target):
    """(iteration, seconds) of the first point with perplexity <= target, or None."""
    for it, s, p in curve:
        if p <= target:
            return it, s
    return None


def at_time(curve, t):
    """Perplexity of the last point with seconds <= t (None if there is none)."""
    best = None
    for _, s, p in curve:
        if s <= t + 1e-9:
            best = p
    return best


def med(xs):
    xs = [x for x in xs if x is not None and not (isinstance(x, float) and math.isnan(x))]
    return statistics.median(xs) if xs else None


def fmt(x, spec=".2f"):
    return "n/a" if x is None else format(x, spec)


def rng(xs, spec=".2f"):
    xs = [x for x in xs if x is not None]
    if len(xs) < 2:
        return ""
    return f" ({format(min(xs), spec)}–{format(max(xs), spec)})"


def cmd_table(a):
    """Reads DIR/rep*/{carousel,warplda}.csv and the whole-process timings; writes table.md
    and perplexity.png. Each rep directory holds:
      carousel_curve.csv       iter,seconds,perplexity       (trace.csv of the long run)
      carousel_grid_curve.csv  iter,seconds,wall,perplexity  (one row per iteration count)
      warplda_curve.csv        iter,seconds,wall,perplexity  (one row per iteration count)
      facts.csv            key,value (process times, memory, throughput, whole-process runs)
    """
    reps = sorted(glob.glob(os.path.join(a.dir, "rep*")))
    if not reps:
        sys.exit(f"{a.dir}: no rep* directories")
    targets = [float(t) for t in a.targets.split(",")]
    per = {"carousel": [], "warplda": []}  # the grids, both scored by `lda infer`
    trace = []  # carousel's own trace of the long run
    facts = []

    def curve(r, name):
        return [(int(x["iter"]), float(x["seconds"]), float(x["perplexity"]))
                for x in read_rows(os.path.join(r, name))]

    for r in reps:
        per["carousel"].append(curve(r, "carousel_grid_curve.csv"))
        per["warplda"].append(curve(r, "warplda_curve.csv"))
        trace.append(curve(r, "carousel_curve.csv"))
        facts.append({x["key"]: x["value"] for x in read_rows(os.path.join(r, "facts.csv"))})

    def fact(tool, key):
        out = []
        for f in facts:
            v = f.get(f"{tool}_{key}")
            out.append(float(v) if v not in (None, "", "never", "n/a") else None)
        return out

    lines = [f"# {a.title}", "", f"{len(reps)} repeats; medians, (min–max) over repeats. {a.note}",
             "Both tools: a fresh run per iteration count of the grid, its topics scored by "
             "`carousel lda infer` on the held-out documents; a time to a target is the first grid "
             "point at or below it. Training clock: Carousel's trace (from the engine's start, so "
             "with its set-up: token layout, initial topics, first topic-word draw; evaluations "
             "excluded); WarpLDA's initialisation (random topics, count tables) plus its "
             "iterations. Neither counts reading the input (nor WarpLDA's separate `format` step).",
             ""]
    head = "| | Carousel `lda`, 2 cores | WarpLDA, 2 threads | Carousel / WarpLDA |"
    lines += [head, "|---|---|---|---|"]
    for tgt in targets:
        its, secs = {}, {}
        for tool in per:
            hits = [first_at(cv, tgt) for cv in per[tool]]
            its[tool] = [h[0] if h else None for h in hits]
            secs[tool] = [h[1] if h else None for h in hits]
        mc, mw = med(secs["carousel"]), med(secs["warplda"])
        ratio = fmt(mc / mw) + "x" if mc and mw else "n/a"
        lines.append(
            f"| reaches perplexity {tgt:g}: iterations, training clock (s) | {fmt(med(its['carousel']), '.0f')} it, "
            f"{fmt(mc)} s{rng(secs['carousel'])} | {fmt(med(its['warplda']), '.0f')} it, {fmt(mw)} s{rng(secs['warplda'])} | {ratio} |")
        wc, ww = med(fact("carousel", f"wall_{tgt:g}")), med(fact("warplda", f"wall_{tgt:g}"))
        ratio = fmt(wc / ww) + "x" if wc and ww else "n/a"
        lines.append(f"| whole process to {tgt:g} (s) | {fmt(wc)}{rng(fact('carousel', f'wall_{tgt:g}'))} | "
                     f"{fmt(ww)}{rng(fact('warplda', f'wall_{tgt:g}'))} | {ratio} |")
        hits = [first_at(cv, tgt) for cv in trace]
        ts = [h[1] if h else None for h in hits]
        lines.append(f"| (Carousel's own trace, another estimator, reaches {tgt:g}) | "
                     f"{fmt(med([h[0] if h else None for h in hits]), '.0f')} it, {fmt(med(ts))} s{rng(ts)} | | |")
    # Equal wall time: the shorter of the two tools' final training clocks, per repeat.
    eq_t, eq_c, eq_w = [], [], []
    for c, w in zip(per["carousel"], per["warplda"]):
        t = min(c[-1][1], w[-1][1])
        eq_t.append(t)
        eq_c.append(at_time(c, t))
        eq_w.append(at_time(w, t))
    lines.append(f"| perplexity after equal training time ({fmt(med(eq_t))} s; each grid's last point within it) | "
                 f"{fmt(med(eq_c), '.1f')}{rng(eq_c, '.1f')} | {fmt(med(eq_w), '.1f')}{rng(eq_w, '.1f')} | |")
    eq_trace = [at_time(c, t) for c, t in zip(trace, eq_t)]
    lines.append(f"| (Carousel's own trace at that time) | {fmt(med(eq_trace), '.1f')}{rng(eq_trace, '.1f')} | | |")
    fc = [cv[-1] for cv in per["carousel"]]
    fw = [cv[-1] for cv in per["warplda"]]
    lines.append(f"| the grid's last point: iterations, training clock, perplexity | {fc[0][0]} it, {fmt(med([x[1] for x in fc]))} s, "
                 f"{fmt(med([x[2] for x in fc]), '.1f')} | {fw[0][0]} it, {fmt(med([x[1] for x in fw]))} s, "
                 f"{fmt(med([x[2] for x in fw]), '.1f')} | |")
    ft = [cv[-1] for cv in trace]
    lines.append(f"| Carousel's long run: iterations, training clock, its trace's perplexity | {ft[0][0]} it, "
                 f"{fmt(med([x[1] for x in ft]))} s, {fmt(med([x[2] for x in ft]), '.1f')} | | |")
    lines.append(f"| final topics scored by `carousel lda infer` (Carousel: the long run's posterior mean; WarpLDA: the grid's last) | "
                 f"{fmt(med(fact('carousel', 'infer_final')), '.1f')} | {fmt(med(fact('warplda', 'infer_final')), '.1f')} | |")
    lines.append(f"| whole process, the grid's last point (s) | {fmt(med(fact('carousel', 'wall_final')))} | "
                 f"{fmt(med(fact('warplda', 'wall_final')))} | |")
    lines.append(f"| token visits per second in training (carousel: Gibbs sweeps, per rank, all its threads; WarpLDA: tokens x iterations / training clock, both threads) | "
                 f"{fmt(med(fact('carousel', 'mtok_per_s')))}M per rank | {fmt(med(fact('warplda', 'mtok_per_s')))}M | |")
    lines.append(f"| peak memory (MiB) | {fmt(med(fact('carousel', 'peak_mib')), '.1f')} (largest rank's report: the whole process with thread ranks, one process under MPI) | "
                 f"{fmt(med(fact('warplda', 'peak_mib')), '.1f')} | |")
    if facts[0].get("oracle_perplexity"):
        lines.append(f"| true topics scored by `carousel lda infer` | {facts[0]['oracle_perplexity']} | | |")
    lines += ["", a.footer, ""]
    text = "\n".join(lines)
    with open(os.path.join(a.dir, "table.md"), "w") as f:
        f.write(text)
    print(text)

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib missing: no plot", file=sys.stderr)
        return
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for curves, colour, style, label in (
            (per["carousel"], "C0", "-o", "Carousel lda, 2 cores (grid, lda infer)"),
            (trace, "C0", ":", "Carousel's own trace"),
            (per["warplda"], "C3", "-o", "WarpLDA, 2 threads (grid, lda infer)")):
        for i, cv in enumerate(curves):
            ax.plot([x[1] for x in cv], [x[2] for x in cv], style, ms=2.5, color=colour, alpha=0.8,
                    label=label if i == 0 else None)
    for tgt in targets:
        ax.axhline(tgt, color="grey", lw=0.7, ls="--")
    ax.set_xscale("log")
    ax.set_xlabel("training clock (s)")
    ax.set_ylabel("held-out perplexity (document completion)")
    top = max(targets) * 1.6
    ax.set_ylim(top=top)
    ax.set_title(a.title)
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(a.dir, "perplexity.png"), dpi=120)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("split")
    s.add_argument("--corpus", required=True)
    s.add_argument("--heldout", required=True)
    s.add_argument("--train-out", required=True)
    s.add_argument("--heldout-out", required=True)
    s = sub.add_parser("topics")
    s.add_argument("--model", required=True)
    s.add_argument("--vocab", required=True)
    s.add_argument("--words", type=int, required=True, help="V of the corpus")
    s.add_argument("--alpha", type=float, required=True)
    s.add_argument("--out", required=True)
    s = sub.add_parser("oracle")
    s.add_argument("--topics-npy", required=True)
    s.add_argument("--alpha", type=float, required=True)
    s.add_argument("--out", required=True)
    s = sub.add_parser("table")
    s.add_argument("--dir", required=True)
    s.add_argument("--targets", required=True)
    s.add_argument("--title", required=True)
    s.add_argument("--note", default="")
    s.add_argument("--footer", default="")
    a = ap.parse_args()
    {"split": cmd_split, "topics": cmd_topics, "oracle": cmd_oracle, "table": cmd_table}[a.cmd](a)


if __name__ == "__main__":
    main()
