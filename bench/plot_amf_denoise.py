#!/usr/bin/env python3
"""Plot and table of the `carousel amf` speech-denoising benchmark (bench/run_amf_denoise.sh).

Input: sdr.csv (sampler, alpha, mixture, noise, snr_db, iterations, seconds, sdr; one row per
chain and stop) and the mixtures' own SDR (baseline.csv of amf_denoise.py prepare).
Writes OUT.png: SDR averaged over every mixture against iterations and against sampling
seconds, per sampler, one row of panels per alpha (the dashed line is the mixtures' mean
SDR); and OUT.md: the SDR at the last stop per noise and SNR (mean over the test
utterances) per alpha and sampler, next to the mixtures', and the mean over all mixtures
at each stop with its mean seconds. Needs Debian's python3-matplotlib.

Usage: /usr/bin/python3 bench/plot_amf_denoise.py --baseline baseline.csv --out OUT sdr.csv
"""
import argparse
import csv
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")  # files only, no display needed
import matplotlib.pyplot as plt

ORDER = ["hamcmc", "psgld", "sgld"]


def mean(xs):
    return sum(xs) / len(xs)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("sdr")
    p.add_argument("--baseline", required=True)
    p.add_argument("--out", default="amf_denoise")
    args = p.parse_args()
    with open(args.sdr) as f:
        rows = list(csv.DictReader(f))
    with open(args.baseline) as f:
        base = {r["mixture"]: r for r in csv.DictReader(f)}
    alphas = sorted({r["alpha"] for r in rows}, key=float)
    samplers = sorted({r["sampler"] for r in rows},
                      key=lambda s: (ORDER.index(s) if s in ORDER else len(ORDER), s))
    last = max(int(r["iterations"]) for r in rows)
    base_all = mean([float(b["sdr_mixture"]) for b in base.values()])

    # Mean over mixtures per (alpha, sampler, stop).
    curve = defaultdict(lambda: defaultdict(list))
    for r in rows:
        key = (r["alpha"], r["sampler"])
        curve[key][int(r["iterations"])].append((float(r["seconds"]), float(r["sdr"])))

    fig, axes = plt.subplots(len(alphas), 2, figsize=(10, 3.6 * len(alphas)), squeeze=False)
    for a, alpha in enumerate(alphas):
        for s in samplers:
            stops = sorted(curve[(alpha, s)])
            if not stops:
                continue
            sdrs = [mean([v for _, v in curve[(alpha, s)][n]]) for n in stops]
            secs = [mean([t for t, _ in curve[(alpha, s)][n]]) for n in stops]
            axes[a][0].plot(stops, sdrs, "o-", label=s)
            axes[a][1].plot(secs, sdrs, "o-", label=s)
        for c, xlabel in enumerate(["iterations", "sampling seconds (mean per chain)"]):
            ax = axes[a][c]
            ax.axhline(base_all, color="grey", ls="--", lw=1, label="mixture")
            ax.set_xlabel(xlabel)
            ax.set_ylabel("SDR (dB), mean of %d mixtures" % len(base))
            ax.set_title("alpha = %s" % alpha)
            ax.grid(alpha=0.3)
        axes[a][0].legend()
    fig.tight_layout()
    fig.savefig(args.out + ".png", dpi=120)

    # Table at the last stop, mean over the test utterances of each noise and SNR.
    cell = defaultdict(list)
    for r in rows:
        if int(r["iterations"]) == last:
            cell[(r["noise"], float(r["snr_db"]), r["alpha"], r["sampler"])].append(float(r["sdr"]))
    mixes = sorted({(b["noise"], float(b["snr_db"])) for b in base.values()},
                   key=lambda m: (["white", "pink", "brown", "babble"].index(m[0])
                                  if m[0] in ["white", "pink", "brown", "babble"] else 9,
                                  float(m[1])))
    cols = [(alpha, s) for alpha in alphas for s in samplers]
    lines = ["SDR (dB) after %d iterations (mean over the test utterances; the mixture "
             "column is the unprocessed mixture's SDR)." % last, "",
             "| noise | SNR | mixture | " +
             " | ".join("%s a=%s" % (s, alpha) for alpha, s in cols) + " |",
             "|---|---:|---:|" + "---:|" * len(cols)]
    for noise, snr in mixes:
        b = mean([float(x["sdr_mixture"]) for x in base.values()
                  if (x["noise"], float(x["snr_db"])) == (noise, snr)])
        vals = [cell.get((noise, snr, alpha, s)) for alpha, s in cols]
        lines.append("| %s | %g dB | %.2f | " % (noise, float(snr), b) +
                     " | ".join("%.2f" % mean(v) if v else "-" for v in vals) + " |")
    allv = [[float(r["sdr"]) for r in rows
             if int(r["iterations"]) == last and (r["alpha"], r["sampler"]) == c] for c in cols]
    lines.append("| **all** | | **%.2f** | " % base_all +
                 " | ".join("**%.2f**" % mean(v) if v else "-" for v in allv) + " |")
    lines += ["", "Mean SDR (dB) over all mixtures at each stop, with the mean sampling "
              "seconds per chain:", "",
              "| alpha | sampler | " + " | ".join(
                  str(n) for n in sorted({int(r["iterations"]) for r in rows})) + " |",
              "|---|---|" + "---:|" * len({r["iterations"] for r in rows})]
    for alpha in alphas:
        for s in samplers:
            c = curve[(alpha, s)]
            lines.append("| %s | %s | " % (alpha, s) + " | ".join(
                "%.2f (%.1f s)" % (mean([v for _, v in c[n]]), mean([t for t, _ in c[n]]))
                for n in sorted(c)) + " |")
    with open(args.out + ".md", "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
