#!/usr/bin/python3
"""Plots of bench/run_scale_bench.sh: scale.png (test RMSE against seconds, Carousel's
posterior mean at defaults and LIBMF at each -l2) and samplers.png (every sampler's
posterior-mean test RMSE against seconds)."""
import csv
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    out = sys.argv[1]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    libmf = defaultdict(list)
    for r in csv.DictReader(open(f"{out}/libmf.csv")):
        libmf[r["l2"]].append((float(r["seconds_to_iteration"]), float(r["va_rmse"])))
    for l2, points in sorted(libmf.items()):
        ax.plot(*zip(*points), "--", label=f"LIBMF -l2 {l2}")
    wall, sampling = map(float, open(f"{out}/carousel_wall.txt").read().split())
    rows = [r for r in csv.DictReader(open(f"{out}/carousel_trace.csv")) if r["rmse_mean"] != "nan"]
    ax.plot([float(r["seconds"]) + wall - sampling for r in rows],
            [float(r["rmse_mean"]) for r in rows], "k-", lw=2, label="Carousel, defaults (P = 2)")
    ax.set_xlabel("seconds (whole process)")
    ax.set_ylabel("test RMSE")
    ax.set_ylim(0.85, 1.1)
    ax.legend()
    ax.set_title(f"{out.rstrip('/').split('_')[-1]} generated ratings, K = 32, 2 cores")
    fig.tight_layout()
    fig.savefig(f"{out}/scale.png", dpi=120)

    samplers = defaultdict(list)
    try:
        for r in csv.DictReader(open(f"{out}/samplers.csv")):
            if r["rmse_mean"] != "nan":
                samplers[r["sampler"]].append((float(r["seconds"]), float(r["rmse_mean"])))
    except FileNotFoundError:
        return
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for name, points in sorted(samplers.items()):
        ax.plot(*zip(*points), label=name)
    ax.set_xlabel("sampling seconds")
    ax.set_ylabel("posterior-mean test RMSE")
    ax.set_ylim(0.85, 1.2)
    ax.legend()
    ax.set_title("every sampler at its defaults, K = 32, P = 2")
    fig.tight_layout()
    fig.savefig(f"{out}/samplers.png", dpi=120)


if __name__ == "__main__":
    main()
