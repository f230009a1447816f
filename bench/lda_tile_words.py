#!/usr/bin/env python3
"""Issue #39, lda: how much of a tile's topic-word block its Gibbs sweep must read.

A token's topic conditional needs phi_kw for all K topics of its word w, so a tile (row
block i, column block j) reads every topic of each word of block j that has a token in the
documents of row block i. Only the words with no token there could sit out an iteration
(and have their SCIR steps composed). This counts, over a pass of B iterations (B tiles per
iteration, B^2 in all), the (row block, word) pairs with at least one token, against the
B * V of a pass that steps every word in every iteration.

    bench/lda_tile_words.py CORPUS [TILES...]     (UCI docword format; TILES default 1 4 16 64)

Documents go to B equal row blocks by a seeded shuffle, as the tile grid deals them.
"""
import random
import sys


def main():
    path = sys.argv[1]
    tiles = [int(b) for b in sys.argv[2:]] or [1, 4, 16, 64]
    with open(path) as f:
        documents = int(f.readline())
        vocabulary = int(f.readline())
        f.readline()
        words_of = [[] for _ in range(documents)]
        for line in f:
            d, w, _ = line.split()
            words_of[int(d) - 1].append(int(w) - 1)
    print("tiles,pairs_with_tokens,per_pass_if_every_word,share")
    for b in tiles:
        order = list(range(documents))
        random.Random(1).shuffle(order)
        present = 0
        for block in range(b):
            members = order[block * documents // b:(block + 1) * documents // b]
            present += len({w for d in members for w in words_of[d]})
        every = b * vocabulary
        print(f"{b},{present},{every},{present / every:.3f}")


if __name__ == "__main__":
    main()
