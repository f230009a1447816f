// A corpus drawn from latent Dirichlet allocation with known topics (issue #11), shaped
// like KOS by default (3,430 documents, 6,906 words, about 136 tokens per document):
//
//   base_w   proportional to 1 / (w + 1)^zipf            (a Zipf-like vocabulary)
//   phi_k    ~ Dirichlet(beta V base)                    (topics around the base)
//   theta_d  ~ Dirichlet(alpha),  N_d ~ Poisson(mean_length), at least 1
//   z_di     ~ theta_d,  w_di ~ phi_{z_di}
//
// so the words' overall frequencies follow Zipf's law while every topic has its own
// heavy words. All randomness is keyed by (seed, kGenerate, topic or document), so the
// corpus depends on the options only, and a document's tokens on its id only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "carousel/data/corpus.hpp"

namespace carousel {

struct LdaGeneratorOptions {
  std::uint32_t documents = 3430;
  std::uint32_t vocabulary = 6906;
  int topics = 50;
  double mean_length = 136.0;  // Poisson mean of a document's tokens
  double alpha = 0.1;          // document-topic Dirichlet parameter (symmetric)
  double beta = 0.1;           // topic-word concentration per word: beta V in all
  double zipf = 1.0;           // exponent of the base word frequencies
  std::uint64_t seed = 1;
  bool keep_proportions = false;  // also return every document's theta_d (tests)
};

struct GeneratedCorpus {
  Corpus corpus;            // documents in id order, words ascending within a document
  std::vector<double> phi;  // the true topics, K x V row-major (each row sums to 1)
  // The documents' true topic proportions, D x K (only with keep_proportions).
  std::vector<double> theta;
};

// Throws carousel::SettingError for impossible options (no documents, words or topics, a
// non-positive or non-finite mean length, alpha, beta, or a negative zipf).
GeneratedCorpus GenerateLda(const LdaGeneratorOptions& options);

// Writes the corpus as UCI bag-of-words ("D\nV\nNNZ\n" then "doc word count" lines,
// 1-based). Throws carousel::OutputError(path, why) when it cannot be written.
void WriteUciCorpus(const std::string& path, const Corpus& corpus);

}  // namespace carousel
