// Topic proportions of documents given the topics: the estimates the model's evaluation
// (document completion), its doc_topic.npy and `carousel lda infer` share.
//
// With phi fixed, the collapsed Gibbs sampler of lda_gibbs.hpp (DocumentGibbs) draws each
// token's topic; given the assignments, theta_d is Dirichlet(n_d + alpha), whose mean
//   theta_hat_dk = (n_dk + alpha) / (n_d + K alpha)
// is averaged over sweeps (or samples). A word is then predicted with
//   p(w) = sum_k theta_hat_dk phi_kw.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "carousel/model/lda/lda_gibbs.hpp"

namespace carousel {

// Adds theta_hat_dk = (n_dk + alpha) / (n_d + K alpha) to sum[k] for every topic k, where
// counts[k] = n_dk and `length` = n_d (a document without tokens adds the prior mean 1/K).
inline void AddTopicProportions(const std::uint32_t* counts, double length, double alpha,
                                std::size_t topics, double* sum) {
  const double norm = 1.0 / (length + alpha * static_cast<double>(topics));
  for (std::size_t k = 0; k < topics; ++k)
    sum[k] += (static_cast<double>(counts[k]) + alpha) * norm;
}

// p(w) = sum_k theta_hat_k phi_kw for theta_hat = theta_sum / kept (a sum over `kept`
// sweeps), phi_row = phi of word w over the topics.
inline double PredictiveProbability(const double* theta_sum, const double* phi_row,
                                    std::size_t topics, double kept) {
  double p = 0.0;
  for (std::size_t k = 0; k < topics; ++k) p += theta_sum[k] * phi_row[k];
  return p / kept;
}

// Topic proportions of whole documents whose every word is a row of `view` (the topics of
// the whole vocabulary, held fixed): `carousel lda infer`. One process, any number of
// documents, each independent of the others: its randomness is keyed by (seed, kInfer,
// document id), so a document's estimate does not depend on which others are inferred.
class DocumentInference {
 public:
  // `sweeps` >= 1 Gibbs sweeps per document; theta_hat is averaged over the last
  // sweeps - sweeps / 2 (the first half is burn-in, as in the model).
  DocumentInference(const TopicWordView& view, int sweeps, std::uint64_t seed);

  // theta_hat (K values, written to `theta`) of document `doc` whose tokens are `words`
  // (rows of the view, in file order). The topics start as uniform draws keyed by
  // (seed, kInfer, doc, 2 * stream); the sweeps draw from (seed, kInfer, doc,
  // 2 * stream + 1). No tokens: the prior mean 1/K.
  void Infer(std::uint64_t doc, const std::vector<std::uint32_t>& words, double* theta,
             std::uint64_t stream = 0);

  // Document completion (Wallach et al. 2009), as the model evaluates held-out documents:
  // the tokens at positions 9, 19, 29, ... (IsTestToken) are held out, theta_hat is
  // inferred from the others (stream 1), and the held-out tokens' log p(w) are summed.
  struct Completion {
    double log_likelihood = 0.0;  // sum over the held-out tokens of log p(w)
    std::uint64_t test_tokens = 0;
  };
  Completion Complete(std::uint64_t doc, const std::vector<std::uint32_t>& words);

  int topics() const { return view_.topics; }

 private:
  // The sweeps of Infer: leaves the sum of theta_hat over the kept sweeps in sum_ and
  // returns their number.
  double Sweeps(std::uint64_t doc, const std::vector<std::uint32_t>& words, std::uint64_t stream);

  const TopicWordView& view_;
  int sweeps_;
  std::uint64_t seed_;
  DocumentGibbs gibbs_;
  std::vector<std::uint16_t> topic_;
  std::vector<std::uint32_t> counts_;
  std::vector<double> sum_;
  std::vector<std::uint32_t> observed_, test_;
};

}  // namespace carousel
