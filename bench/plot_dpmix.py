#!/usr/bin/env python3
"""Plots and summarises bench/run_dpmix_bench.sh: the held-out log predictive per
observation (trace.csv's log_pred_sample, the current sample's, as the SCIR paper's Fig. 3b)
against iterations and against seconds, one line per seed, SCIR and SGRLD in two colours,
P = 1 and P = 2 side by side; prints the final values (mean and sd over seeds) and whether
SCIR ends ahead of SGRLD on every seed.

Usage: /usr/bin/python3 bench/plot_dpmix.py RESULTS_DIR   (writes RESULTS_DIR/dpmix.png)
Needs Debian's python3-matplotlib.
"""
import csv
import glob
import os
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt


def read(path):
    with open(path) as f:
        rows = list(csv.DictReader(l for l in f if l.strip() and not l.startswith("#")))
    return [{k: float(v) for k, v in r.items()} for r in rows]


def main():
    out = sys.argv[1]
    runs = {}
    for d in sorted(glob.glob(os.path.join(out, "*-p*-s*"))):
        if not os.path.isfile(os.path.join(d, "trace.csv")):
            continue
        sampler, ranks, seed = os.path.basename(d).split("-")
        runs[(sampler, ranks, seed)] = read(os.path.join(d, "trace.csv"))
    colours = {"scir": "tab:blue", "sgrld": "tab:red"}
    fig, axes = plt.subplots(2, 2, figsize=(11, 8), sharey=True)
    for col, ranks in enumerate(["p1", "p2"]):
        for (sampler, r, seed), rows in sorted(runs.items()):
            if r != ranks:
                continue
            label = sampler.upper() if seed == "s1" else None
            x_it = [row["iter"] for row in rows]
            x_s = [row["seconds"] for row in rows]
            y = [row["log_pred_sample"] for row in rows]
            axes[0][col].plot(x_it, y, color=colours[sampler], alpha=0.7, label=label)
            axes[1][col].plot(x_s, y, color=colours[sampler], alpha=0.7, label=label)
        axes[0][col].set_title("KOS, P = %s" % ranks[1:])
        axes[0][col].set_xlabel("iteration")
        axes[1][col].set_xlabel("seconds (sampling)")
        for row in axes:
            row[col].set_ylabel("held-out log predictive per observation")
            row[col].legend()
    fig.tight_layout()
    fig.savefig(os.path.join(out, "dpmix.png"), dpi=110)

    print("final held-out log predictive per observation (5 seeds: mean, sd, min, max)")
    finals = {}
    for sampler in ["scir", "sgrld"]:
        for ranks in ["p1", "p2"]:
            keys = sorted(k for k in runs if k[0] == sampler and k[1] == ranks)
            if not keys:
                continue
            sample = [runs[k][-1]["log_pred_sample"] for k in keys]
            averaged = [runs[k][-1]["log_pred"] for k in keys]
            occupied = [runs[k][-1]["occupied"] for k in keys]
            alpha = [runs[k][-1]["alpha"] for k in keys]
            secs = [runs[k][-1]["seconds"] for k in keys]
            finals[(sampler, ranks)] = {k[2]: runs[k][-1]["log_pred_sample"] for k in keys}
            sd = statistics.stdev(sample) if len(sample) > 1 else 0.0
            print("  %-5s P=%s  last sample %.3f (sd %.3f, %.3f .. %.3f); averaged over the "
                  "kept samples %.3f; occupied %.1f; alpha %.3f; %.1f s sampling"
                  % (sampler, ranks[1:], statistics.mean(sample), sd, min(sample), max(sample),
                     statistics.mean(averaged), statistics.mean(occupied),
                     statistics.mean(alpha), statistics.mean(secs)))
    for ranks in ["p1", "p2"]:
        a, b = finals.get(("scir", ranks)), finals.get(("sgrld", ranks))
        if not a or not b:
            continue
        ahead = sum(1 for s in a if s in b and a[s] > b[s])
        print("P=%s: SCIR ends ahead of SGRLD (higher log predictive) on %d of %d seeds"
              % (ranks[1:], ahead, len(a)))


if __name__ == "__main__":
    main()
