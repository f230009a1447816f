#!/usr/bin/python3
"""Splits a ratings file line by line into two files, each line going to the second with
probability FRACTION, decided by a seeded NumPy generator: the same split for every tool
that reads the two files (Carousel, LIBMF, bpmf).

usage: split_ratings.py IN FRACTION SEED OUT_KEPT OUT_HELD
"""
import sys

import numpy as np


def main():
    src, fraction, seed, kept_path, held_path = sys.argv[1:6]
    with open(src, "rb") as f:
        lines = f.read().splitlines(keepends=True)
    held = np.random.default_rng(int(seed)).random(len(lines)) < float(fraction)
    with open(kept_path, "wb") as kept, open(held_path, "wb") as out:
        kept.writelines(line for line, h in zip(lines, held) if not h)
        out.writelines(line for line, h in zip(lines, held) if h)
    print(f"{src}: {len(lines) - int(held.sum())} kept, {int(held.sum())} held out")


if __name__ == "__main__":
    main()
