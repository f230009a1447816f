#!/usr/bin/env python3
"""Plots held-out perplexity against wall-clock seconds for one or more LDA runs.

Each input is a CSV with '#' comment lines and a header naming at least `seconds` and
`perplexity` (carousel's trace.csv: iter,seconds,perplexity,...; lda_gensim.py's output:
seconds,perplexity,passes). Rows whose perplexity is empty or nan are skipped.

Usage: /usr/bin/python3 bench/plot_lda.py trace.csv gensim.csv [--label A --label B] [--out lda.png]
Needs Debian's python3-matplotlib.
"""
import argparse
import csv
import math
import os

import matplotlib

matplotlib.use("Agg")  # files only, no display needed
import matplotlib.pyplot as plt


def read_trace(path):
    with open(path) as f:
        rows = csv.DictReader(line for line in f if line.strip() and not line.startswith("#"))
        points = []
        for row in rows:
            try:
                s, p = float(row["seconds"]), float(row["perplexity"])
            except (TypeError, ValueError):
                continue  # blank cell: this row recorded no evaluation
            if math.isfinite(s) and math.isfinite(p):
                points.append((s, p))
    if not points:
        raise SystemExit(f"{path}: no rows with numeric seconds and perplexity")
    return points


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv", nargs="+")
    ap.add_argument("--label", action="append", default=[], help="one per CSV, in order (default: file names)")
    ap.add_argument("--out", default="lda_perplexity.png")
    ap.add_argument("--linear-x", action="store_true", help="linear seconds axis (default: log)")
    ap.add_argument("--title", default="LDA, held-out document-completion perplexity")
    args = ap.parse_args()
    if len(args.label) > len(args.csv):
        raise SystemExit("more --label options than CSV files")

    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for i, path in enumerate(args.csv):
        label = args.label[i] if i < len(args.label) else os.path.basename(path)
        points = [(s, p) for s, p in read_trace(path) if s > 0 or args.linear_x]  # log axis: no t = 0
        ax.plot([s for s, _ in points], [p for _, p in points], marker=".", label=label)
    if not args.linear_x:
        ax.set_xscale("log")
    ax.set_xlabel("wall-clock seconds (training only)")
    ax.set_ylabel("held-out perplexity")
    ax.set_title(args.title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(args.out, dpi=120)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
