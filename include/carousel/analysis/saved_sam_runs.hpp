// What `carousel sam infer` reads of a finished `carousel sam` run and computes from it: each
// chain's posterior-mean topic directions (topic_vectors.npy, K x V over the kept words of
// words.txt), the kept words' idf (idf.npy), and alpha, kappa1 and the proportions' MALA step
// at the end of the run (model.json); and the topic proportions of new documents under those
// topics, held fixed.
//
// A new document is the tf-idf unit vector of its kept words, with the run's idf (tfidf.hpp;
// words the run did not keep are left out). Its proportions theta_d are drawn from their
// conditional given the topics by the model's own sampler (MALA, model/sam/topic_proportions.hpp:
// exact in the limit of its steps), from the prior mean, and averaged over the second half of
// the steps. Topics are not aligned across chains, so the proportions are per chain.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "carousel/analysis/saved_topic_runs.hpp"
#include "carousel/data/corpus.hpp"
#include "carousel/io/npy.hpp"

namespace carousel::analysis {

// What inference needs of a sam run's chain.
struct SavedSamRun {
  std::size_t topics = 0, words = 0;
  std::vector<double> beta;        // topics x words, row k the unit mean direction of topic k
  std::vector<std::string> names;  // the kept words (words.txt): --vocab's, or 1-based ids
  std::vector<double> idf;         // words
  double alpha = 0.0, kappa1 = 0.0, theta_step = 0.0;
};

// Every chain of the sam run in `run` (ChainDirectories), each checked to have the first
// one's topics and words. A file missing or wrong is an InputError naming it.
std::vector<SavedSamRun> ReadSavedSamRuns(const std::string& run);

// The run's word of each word id of `corpus`, or kUnknownWord: matched by spelling where the
// corpus has a vocabulary, else by its 1-based id (as words.txt names a run's words without
// --vocab).
std::vector<std::uint32_t> SamWordMap(const SavedSamRun& run, const Corpus& corpus);

// Infers every document's topic proportions under every chain's topics into `out` (C x D x K,
// or D x K for one chain), `steps` MALA steps per document and chain with noise keyed by
// (seed, document), so that chain c's slice is what its own directory gives. A document
// without a known word keeps the prior mean 1/K; returns how many there were.
std::uint64_t InferSamDocuments(const std::vector<SavedSamRun>& chains, const Corpus& corpus,
                                const std::vector<std::uint32_t>& map, int steps,
                                std::uint64_t seed, io::NpyRowWriter& out);

}  // namespace carousel::analysis
