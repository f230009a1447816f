#!/usr/bin/env python3
"""Reference baseline for the LDA benchmark: gensim's online variational Bayes LdaModel,
scored with the same document-completion protocol as `carousel lda` (Wallach et al. 2009).

Protocol (must stay identical to carousel's, or the numbers are not comparable):
  * held-out documents: --heldout FILE (0-based doc ids, '#' comments; carousel writes
    heldout.txt), or stand-alone --test-fraction F --seed S. Every other non-empty
    document is a training document.
  * each held-out document is expanded in file order (each `doc word count` line gives
    `word` repeated `count` times); the token at 0-based position p is a TEST token iff
    p % 10 == 9, all others are OBSERVED tokens.
  * perplexity = exp(-sum_test log p(w) / #test), p(w) = sum_k theta_dk phi_kw, where phi
    are the model's topics and theta_d is inferred from the OBSERVED tokens only.

Usage: python3 bench/lda_gensim.py DATA_DIR --test-fraction 0.1 --seed 1 --out gensim.csv
Needs Debian's python3-gensim (4.x) and python3-numpy.
"""
import argparse
import logging
import os
import shlex
import sys
import time

import numpy as np
import gensim
from gensim.models import LdaModel


def read_docword(path):
    """UCI bag-of-words file -> list of D (word_ids, counts) arrays, 0-based, in file order."""
    with open(path) as f:
        n_docs, n_words, nnz = (int(f.readline()) for _ in range(3))
        triples = np.array(f.read().split(), dtype=np.int64).reshape(-1, 3)
    if len(triples) != nnz:
        sys.exit(f"{path}: header says {nnz} entries, found {len(triples)}")
    doc, word, count = triples[:, 0] - 1, triples[:, 1] - 1, triples[:, 2]
    # A stable sort groups lines by document but keeps each document's file order,
    # which decides the test/observed split below.
    order = np.argsort(doc, kind="stable")
    doc, word, count = doc[order], word[order], count[order]
    bounds = np.searchsorted(doc, np.arange(n_docs + 1))
    docs = [(word[a:b], count[a:b]) for a, b in zip(bounds[:-1], bounds[1:])]
    return docs, n_words


def read_heldout(path, n_docs):
    ids = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                ids.append(int(line))
    if any(not 0 <= i < n_docs for i in ids):
        sys.exit(f"{path}: document id out of range [0, {n_docs})")
    return sorted(set(ids))


def completion_split(words, counts):
    """Expand a document into tokens in file order; every 10th token (p % 10 == 9) is a
    test token. Returns the observed bag of words (gensim format) and the test word ids."""
    tokens = np.repeat(words, counts)
    is_test = np.arange(len(tokens)) % 10 == 9
    ids, n = np.unique(tokens[~is_test], return_counts=True)
    return list(zip(ids.tolist(), n.tolist())), tokens[is_test]


def heldout_perplexity(lda, observed, test):
    """Document-completion perplexity. theta_d is the variational posterior mean
    E_q[theta_d] = gamma_d / sum(gamma_d), with gamma_d from lda.inference on the observed
    tokens alone (the model is not updated); phi = lda.get_topics(), the normalised
    variational topic-word parameters lambda."""
    # inference() draws its gamma initialisation from the model's RNG; restore the RNG so
    # that evaluating does not change the training run.
    rng_state = lda.random_state.get_state()
    gamma, _ = lda.inference(observed)
    lda.random_state.set_state(rng_state)
    theta = gamma / gamma.sum(axis=1, keepdims=True)
    phi = lda.get_topics().astype(np.float64)
    phi /= phi.sum(axis=1, keepdims=True)
    log_p = sum(np.log(theta[d] @ phi[:, w]).sum() for d, w in enumerate(test) if len(w))
    n_test = sum(len(w) for w in test)
    return float(np.exp(-log_p / n_test))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("data", help="directory with docword.kos.txt (or the docword file itself)")
    ap.add_argument("--heldout", help="held-out document ids, one 0-based id per line (carousel's heldout.txt)")
    ap.add_argument("--test-fraction", type=float, default=0.1, help="without --heldout: fraction of non-empty docs held out")
    ap.add_argument("--seed", type=int, default=1, help="held-out choice (without --heldout) and gensim's random_state")
    ap.add_argument("--write-heldout", help="write the held-out ids used, in --heldout format")
    ap.add_argument("--topics", type=int, default=50)
    ap.add_argument("--chunksize", type=int, default=256, help="documents per online-VB minibatch")
    ap.add_argument("--passes", type=float, default=8, help="passes over the training documents")
    ap.add_argument("--eval-chunks", type=int, default=3, help="evaluate every N minibatches (0: about once per pass)")
    # Step size rho_t = (offset + t)^-decay. gensim's defaults (offset 1, decay 0.5) give
    # rho_1 = 1: the first minibatch alone overwrites the random initial topics, and on KOS
    # that locks in a poor optimum (perplexity ~2500 after 10 passes). offset 4 keeps part
    # of the random start; decay 0.7 (Hoffman et al.'s choice) was the best of a small sweep.
    ap.add_argument("--decay", type=float, default=0.7, help="kappa of rho_t = (offset + t)^-kappa")
    ap.add_argument("--offset", type=float, default=4.0, help="tau0 of rho_t")
    ap.add_argument("--iterations", type=int, default=50, help="max E-step iterations per document (gensim default)")
    ap.add_argument("--out", default="lda_gensim.csv")
    ap.add_argument("--topics-out", help="also write the final topics, K x V float64 .npy, for "
                    "`carousel lda infer` (bench/warplda_bench.py oracle makes them a run directory)")
    args = ap.parse_args()
    logging.disable(logging.WARNING)  # gensim logs every M step; silence its "too few updates" warning too

    path = os.path.join(args.data, "docword.kos.txt") if os.path.isdir(args.data) else args.data
    docs, n_words = read_docword(path)
    nonempty = [d for d, (w, _) in enumerate(docs) if len(w)]
    if args.heldout:
        heldout = read_heldout(args.heldout, len(docs))
        heldout_src = args.heldout
    else:
        rng = np.random.default_rng(args.seed)
        n_held = round(args.test_fraction * len(nonempty))
        heldout = sorted(rng.choice(nonempty, size=n_held, replace=False).tolist())
        heldout_src = f"default_rng({args.seed}).choice(non-empty docs, {n_held}, replace=False)"
    if args.write_heldout:
        with open(args.write_heldout, "w") as f:
            f.write(f"# held-out document ids (0-based) of {path}: {heldout_src}\n")
            f.writelines(f"{d}\n" for d in heldout)

    held = set(heldout)
    train = [list(zip(*(a.tolist() for a in docs[d]))) for d in nonempty if d not in held]
    observed, test = zip(*(completion_split(*docs[d]) for d in heldout))
    n_test = sum(len(w) for w in test)

    K = args.topics
    lda_args = dict(num_topics=K, alpha=np.full(K, 1.0 / K), eta=1.0 / K,
                    chunksize=args.chunksize, update_every=1, decay=args.decay, offset=args.offset,
                    iterations=args.iterations, eval_every=None, random_state=args.seed)
    # workers: LdaModel trains on one core (LdaMulticore is gensim's parallel variant), so
    # this baseline is a single-core one.
    t0 = time.perf_counter()
    lda = LdaModel(id2word={w: str(w) for w in range(n_words)}, **lda_args)  # only its size is used
    seconds = time.perf_counter() - t0

    # Train in increments of eval_chunks minibatches with model.update so we can stop the
    # clock and evaluate in between. Two things differ from one update(passes=P) call:
    #  - update() adds len(corpus) to state.numdocs, the corpus size D that scales each
    #    minibatch's statistics; we reset it so D is always the training-set size.
    #  - update() restarts its pass counter, so the step size is Hoffman et al.'s (2010)
    #    rho_t = (offset + t)^-decay with t = minibatches seen so far, over all passes
    #    (gensim's own multi-pass schedule freezes t after pass 1 and adds the pass number).
    # The training documents are read as a cyclic stream: minibatch c holds documents
    # c*chunksize .. (c+1)*chunksize-1 modulo the training-set size, so every minibatch is
    # full (a 15-document remainder at the end of each pass, scaled up by D/15, visibly
    # set perplexity back at every pass boundary).
    n_train, cs = len(train), args.chunksize
    total = round(args.passes * n_train / cs)
    step = args.eval_chunks or max(1, round(n_train / cs))  # 0: about once per pass
    rows, done = [], 0
    while done < total:
        n = min(step, total - done)
        batch = [train[i % n_train] for i in range(done * cs, (done + n) * cs)]
        t0 = time.perf_counter()
        lda.state.numdocs = n_train - len(batch)
        lda.update(batch)
        seconds += time.perf_counter() - t0
        done += n
        ppl = heldout_perplexity(lda, observed, test)
        rows.append((seconds, ppl, done * cs / n_train))
        print(f"{seconds:8.2f} s  pass {done * cs / n_train:6.2f}  perplexity {ppl:8.1f}", flush=True)

    # gensim's own number, for doc/lda.md's comparison: LdaModel.log_perplexity(chunk,
    # total_docs) is bound(chunk) / words(chunk), a per-word variational lower bound (in nats:
    # gensim's E_q[log theta], E_q[log beta] are digammas) on log p of the chunk's documents,
    # every word of which also fits their gamma; the topics' KL term enters once, spread over
    # total_docs / len(chunk) copies of the chunk. Its INFO log prints 2^(-bound) as
    # "perplexity". Scored here on the held-out documents whole (observed and test tokens),
    # as called plainly (total_docs = the chunk) and as gensim's own training log calls it
    # (total_docs = the training documents).
    whole = [list(zip(*(a.tolist() for a in docs[d]))) for d in heldout]
    rng_state = lda.random_state.get_state()
    bound = float(lda.log_perplexity(whole))
    lda.random_state.set_state(rng_state)
    bound_d = float(lda.log_perplexity(whole, total_docs=len(train)))
    lda.random_state.set_state(rng_state)
    for name, b in (("log_perplexity(held-out)", bound),
                    (f"log_perplexity(held-out, total_docs={len(train)})", bound_d)):
        print(f"{name}: per-word bound {b:.4f} nats; gensim's 2^-bound {2 ** -b:.1f}; "
              f"e^-bound {np.exp(-b):.1f}", flush=True)
    print(f"document-completion perplexity {rows[-1][1]:.1f}", flush=True)
    if args.topics_out:
        np.save(args.topics_out, lda.get_topics().astype(np.float64))

    with open(args.out, "w") as f:
        f.write(f"# command: {shlex.join([sys.executable] + sys.argv)}\n")
        f.write(f"# gensim {gensim.__version__} LdaModel, online VB, single core; data {path}\n")
        f.write(f"# K={K} alpha={1.0 / K:g} eta={1.0 / K:g} chunksize={args.chunksize} decay={args.decay} "
                f"offset={args.offset} iterations={args.iterations} seed={args.seed}\n")
        f.write(f"# train_docs={len(train)} heldout_docs={len(heldout)} test_tokens={n_test} "
                f"observed_tokens={sum(c for o in observed for _, c in o)} heldout={heldout_src}\n")
        f.write("# seconds = training wall clock only (evaluation excluded); passes over the training docs\n")
        for name, b in (("", bound), (f", total_docs={len(train)}", bound_d)):
            f.write(f"# log_perplexity(held-out documents, all tokens{name}) = {b:.6f} nats per "
                    f"word (gensim's perplexity 2^-bound = {2 ** -b:.2f}; e^-bound = {np.exp(-b):.2f})\n")
        f.write("seconds,perplexity,passes\n")
        f.writelines(f"{s:.3f},{p:.2f},{q:.3f}\n" for s, p, q in rows)


if __name__ == "__main__":
    main()
