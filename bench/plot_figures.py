#!/usr/bin/env python3
"""Turns the benchmark CSV files into the figures of issue 3 (PNG, matplotlib).

  plot_figures.py fig5 RUNS_DIR OUT_DIR SAMPLER...   HAMCMC paper Fig. 5 from carousel traces
  plot_figures.py hamcmc-fig2 CSV OUT_DIR           HAMCMC paper Fig. 2 (error vs iterations/seconds)
  plot_figures.py recipe-fig2 DENSITY_CSV PATHS_CSV OUT_DIR   recipe paper Fig. 2
  plot_figures.py scir-fig2 CSV OUT_DIR             SCIR paper Fig. 2 (KS vs minibatch proportion)
"""
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def read_trace(path):
    rows = [r for r in open(path) if not r.startswith("#")]
    return list(csv.DictReader(rows))


def fig5(runs, out, samplers):
    target = 0.94
    summary = []
    fig, (ax_it, ax_s) = plt.subplots(1, 2, figsize=(11, 4))
    sgld_cost = None
    for s in samplers:
        trace = read_trace(os.path.join(runs, s, "trace.csv"))
        timing = read_trace(os.path.join(runs, s + "-timing", "trace.csv"))
        cost = float(timing[-1]["seconds"]) / float(timing[-1]["iter"])
        if s == "sgld":
            sgld_cost = cost
        it = [int(r["iter"]) for r in trace]
        sec = [float(r["seconds"]) for r in trace]
        mean = [float(r["rmse_mean"]) for r in trace]
        reached = next((i for i, m in zip(it, mean) if m == m and m <= target), None)
        summary.append((s, cost, reached, mean[-1]))
        ax_it.plot(it, mean, label=s)
        ax_s.plot(sec, mean, label=s)
    for ax, xlabel in ((ax_it, "iteration"), (ax_s, "seconds")):
        ax.axhline(target, color="grey", lw=0.5, ls="--")
        ax.set_xlabel(xlabel)
        ax.set_ylabel("test RMSE of the posterior mean")
        ax.set_ylim(0.9, 1.1)
        ax.legend()
    fig.suptitle("ml-100k u1, K = 10, 2 ranks (HAMCMC paper Fig. 5)")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "fig5.png"), dpi=120)
    with open(os.path.join(out, "fig5_summary.csv"), "w") as f:
        f.write("sampler,seconds_per_iteration,cost_vs_sgld,iterations_to_0.94,final_rmse_mean\n")
        for s, cost, reached, final in summary:
            rel = cost / sgld_cost if sgld_cost else float("nan")
            f.write(f"{s},{cost:.6g},{rel:.3f},{reached if reached else 'not reached'},{final:.4f}\n")
    print(open(os.path.join(out, "fig5_summary.csv")).read(), end="")


def hamcmc_fig2(path, out):
    rows = list(csv.DictReader(open(path)))
    dims = sorted({int(r["D"]) for r in rows})
    fig, axes = plt.subplots(len(dims), 2, figsize=(11, 4 * len(dims)), squeeze=False)
    for row, d in zip(axes, dims):
        for name in sorted({r["sampler"] for r in rows if int(r["D"]) == d}):
            sel = [r for r in rows if int(r["D"]) == d and r["sampler"] == name]
            row[0].semilogy([int(r["iteration"]) for r in sel], [float(r["error"]) for r in sel], label=name)
            row[1].semilogy([float(r["seconds"]) for r in sel], [float(r["error"]) for r in sel], label=name)
        for ax, xlabel in ((row[0], "iteration"), (row[1], "seconds")):
            ax.set_xlabel(xlabel)
            ax.set_ylabel("relative error of the posterior mean")
            ax.set_title(f"Bayesian linear regression, D = {d}")
            ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(out, "hamcmc_fig2.png"), dpi=120)


def recipe_fig2(density_path, paths_path, out):
    dens = list(csv.DictReader(open(density_path)))
    targets = sorted({r["target"] for r in dens})
    fig, axes = plt.subplots(1, len(targets) + 1, figsize=(5 * (len(targets) + 1), 4))
    for ax, t in zip(axes, targets):
        truth = [r for r in dens if r["target"] == t and r["sampler"] == "truth"]
        ax.plot([float(r["x"]) for r in truth], [float(r["density"]) for r in truth], "k", lw=2, label="true")
        for name in sorted({r["sampler"] for r in dens if r["target"] == t} - {"truth"}):
            sel = [r for r in dens if r["target"] == t and r["sampler"] == name]
            ax.plot([float(r["x"]) for r in sel], [float(r["density"]) for r in sel], label=name)
        ax.set_title(t)
        ax.legend(fontsize=8)
    paths = list(csv.DictReader(open(paths_path)))
    ax = axes[-1]
    for name in sorted({r["sampler"] for r in paths}):
        sel = [r for r in paths if r["sampler"] == name]
        ax.plot([float(r["x1"]) for r in sel], [float(r["x2"]) for r in sel], ".-", ms=2, lw=0.5, label=name)
    ax.set_xlim(-4, 4)
    ax.set_ylim(-2.5, 2.5)
    ax.set_title("first samples, 2-D target")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "recipe_fig2.png"), dpi=120)


def scir_fig2(path, out):
    """SCIR paper Fig. 2: KS distance against minibatch proportion (log x), one panel per
    (metric, case); every seed as a dot, the mean over seeds as a line with +-1 sd bars."""
    rows = list(csv.DictReader(open(path)))
    metrics = [m for m in ("component5", "mean_all") if any(r["metric"] == m for r in rows)]
    cases = [c for c in ("sparse", "dense", "dense1000") if any(r["case"] == c for r in rows)]
    titles = {"component5": "KS of omega_5", "mean_all": "mean KS over the 10 components"}
    fig, axes = plt.subplots(len(metrics), len(cases), figsize=(5.5 * len(cases), 4 * len(metrics)),
                             squeeze=False)
    for row, metric in zip(axes, metrics):
        for ax, case in zip(row, cases):
            sel = [r for r in rows if r["case"] == case and r["metric"] == metric]
            props = sorted({float(r["proportion"]) for r in sel if r["proportion"]})
            for name, color in (("SCIR", "tab:blue"), ("SGRLD", "tab:red")):
                ks = [[float(r["ks"]) for r in sel if r["sampler"] == name and float(r["proportion"]) == p]
                      for p in props]
                for p, v in zip(props, ks):
                    ax.plot([p] * len(v), v, ".", color=color, alpha=0.35, ms=4)
                mean = [sum(v) / len(v) for v in ks]
                sd = [(sum((x - m) ** 2 for x in v) / max(1, len(v) - 1)) ** 0.5 for v, m in zip(ks, mean)]
                ax.errorbar(props, mean, yerr=sd, color=color, marker="o", ms=4, capsize=3, label=name)
            exact = [float(r["ks"]) for r in sel if r["sampler"] == "Exact"]
            if exact:
                ax.axhline(sum(exact) / len(exact), color="gray", ls=":", label="exact sampler (mean)")
            ax.axhline(float(sel[0]["ks_crit99"]), color="k", ls="--", lw=0.8,
                       label="KS 0.99 critical value (one component)")
            ax.set_xscale("log")
            ax.set_xlabel("minibatch proportion n / N (log scale)")
            ax.set_ylabel("KS distance")
            ax.set_title(f"{case} Dirichlet posterior: {titles[metric]}", fontsize=10)
            ax.set_ylim(bottom=0)
            ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "scir_fig2.png"), dpi=120)


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "fig5":
        fig5(sys.argv[2], sys.argv[3], sys.argv[4:])
    elif cmd == "hamcmc-fig2":
        hamcmc_fig2(sys.argv[2], sys.argv[3])
    elif cmd == "recipe-fig2":
        recipe_fig2(sys.argv[2], sys.argv[3], sys.argv[4])
    elif cmd == "scir-fig2":
        scir_fig2(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
