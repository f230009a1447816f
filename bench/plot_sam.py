#!/usr/bin/env python3
"""Plots held-out log-perplexity against sampling seconds for `carousel sam` runs.

Each input is a run's trace.csv (iter,seconds,log_perplexity,...); runs are grouped by the
corpus, the first part of their directory name (kos-p1-gsgnht/trace.csv: panel kos, line
p1-gsgnht). Needs Debian's python3-matplotlib.

Usage: /usr/bin/python3 bench/plot_sam.py --out sam.png RUN/trace.csv...
"""
import argparse
import csv
import os

import matplotlib

matplotlib.use("Agg")  # files only, no display needed
import matplotlib.pyplot as plt


def read_trace(path):
    with open(path) as f:
        rows = csv.DictReader(line for line in f if line.strip() and not line.startswith("#"))
        return [(float(r["seconds"]), float(r["log_perplexity"])) for r in rows]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("traces", nargs="+")
    parser.add_argument("--out", default="sam.png")
    args = parser.parse_args()
    panels = {}
    for path in args.traces:
        name = os.path.basename(os.path.dirname(path))
        corpus, _, label = name.partition("-")
        panels.setdefault(corpus, []).append((label, read_trace(path)))
    fig, axes = plt.subplots(1, len(panels), figsize=(6 * len(panels), 4.5), squeeze=False)
    for ax, (corpus, runs) in zip(axes[0], sorted(panels.items())):
        for label, points in runs:
            style = "--" if "full" in label else "-"
            ax.plot([p[0] for p in points], [p[1] for p in points], style, label=label)
        ax.set_title(f"SAM on {corpus}")
        ax.set_xlabel("sampling seconds")
        ax.set_ylabel("held-out log-perplexity (lower is better)")
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(args.out, dpi=120)


if __name__ == "__main__":
    main()
