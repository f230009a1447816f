// What `carousel lda infer` reads of a finished `carousel lda` run and computes from it: each
// chain's posterior-mean topics (topic_word.npy) and alpha (its trace's header), and the topic
// proportions of new documents under them, held fixed.
//
// Each document's topics are drawn by the model's own per-document collapsed Gibbs sampler
// (DocumentInference over DocumentGibbs, model/lda/lda_inference.hpp), the one that
// evaluates held-out documents. Topics are not aligned across chains (topic k of one chain is
// any topic of another), so the proportions are per chain; the predictive is pooled: a
// document's held-out tokens have the mean over the chains of their probability under each
// chain's topics.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "carousel/data/corpus.hpp"
#include "carousel/io/npy.hpp"

namespace carousel::analysis {

// What inference needs of a run's chain: its topics, word-major, and its alpha and vocabulary.
struct SavedTopicRun {
  std::size_t topics = 0, words = 0;
  std::vector<double> phi;  // words x topics
  double alpha = 0.0;
  std::vector<std::string> vocab;  // empty: the run had no --vocab
};

// Every chain of the run in `run` (ChainDirectories), each checked to have the first one's
// topics; alpha is `alpha` where positive, else the run's; `with_vocab`: the chains' vocab.txt
// too, to match words by spelling. A file missing or wrong is an InputError naming it.
std::vector<SavedTopicRun> ReadSavedTopicRuns(const std::string& run, double alpha,
                                              bool with_vocab);

inline constexpr std::uint32_t kUnknownWord = ~std::uint32_t{0};

// The run's word id of each word id of the corpus, or kUnknownWord.
std::vector<std::uint32_t> WordMap(const SavedTopicRun& run, const Corpus& corpus);

// A corpus's tokens whose word the run knows, and the others.
struct KnownTokens {
  std::uint64_t known = 0, unknown = 0;
  std::size_t unknown_words = 0;  // distinct
  std::string vocabulary_name;    // what "known" means, for messages
};

// Counts the tokens of `corpus` (read from `corpus_path`, with a vocabulary if `vocab_given`)
// that `map` knows in the run `run_dir`; an InputError naming the corpus when none is known.
KnownTokens CountKnownTokens(const SavedTopicRun& run, const std::string& run_dir,
                             const Corpus& corpus, const std::string& corpus_path, bool vocab_given,
                             const std::vector<std::uint32_t>& map);

// log((1/C) sum_c exp(l_c)), the log of the chains' mean probability, without underflow;
// l_0 itself for one chain.
double PooledLogProbability(const std::vector<double>& per_chain);

// Each document's held-out tokens (every 10th known token: the same for every chain) and
// their log-probability under each chain's topics.
struct Completions {
  std::vector<std::uint64_t> test_tokens, tokens;   // per document
  std::vector<std::vector<double>> log_likelihood;  // per chain, per document
  std::uint64_t without_known = 0;                  // documents without a known word
};

// Infers every document's topic proportions under every chain's topics (`sweeps` Gibbs sweeps
// keyed by `seed`) into `out` (C x D x K, or D x K for one chain), a slice of documents at a
// time, and with `complete` each document's completion.
Completions InferDocuments(const std::vector<SavedTopicRun>& chains, const Corpus& corpus,
                           const std::vector<std::uint32_t>& map, int sweeps, std::uint64_t seed,
                           bool complete, io::NpyRowWriter& out);

// The document-completion log-likelihood of the chains' predictive pooled and of each chain
// alone, over every document's held-out tokens.
struct CompletionPerplexity {
  double log_likelihood = 0.0;
  std::vector<double> chain_log_likelihood;
  std::uint64_t test_tokens = 0;
  // exp(-log_probability / test_tokens); NaN without held-out tokens.
  double Of(double log_probability) const;
};

// The totals of the `documents` completions `done`, and after `comments` the CSV of the pooled
// perplexity per document (doc,tokens,test_tokens,perplexity) into `csv`.
CompletionPerplexity PooledPerplexity(const Completions& done, std::uint32_t documents,
                                      const std::string& comments, std::string& csv);

}  // namespace carousel::analysis
