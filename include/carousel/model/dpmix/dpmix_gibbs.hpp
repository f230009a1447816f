// The exact reference for the Dirichlet-process mixture of multinomials (dpmix_model.hpp): a
// single-process collapsed Gibbs sampler, Neal (2000), "Markov chain sampling methods for
// Dirichlet process mixture models", JCGS 9, Algorithm 3. With the Dir(a) base measure
// conjugate to the multinomial, the component parameters integrate out:
//   P(z_i = k | z_-i, x) prop. to m_k^-i DirMult(x_i; a + S_k^-i)      (occupied k),
//   P(z_i = new | z_-i, x) prop. to alpha DirMult(x_i; a),
// with S_k the category counts of component k's observations and
//   DirMult(x; b) = n! / prod_c x_c! * Gamma(B) / Gamma(B + n) * prod_c Gamma(b_c + x_c) /
//                   Gamma(b_c),   B = sum_c b_c.
// alpha ~ Gamma(shape, rate) is updated after each sweep as in Escobar and West (1995)
// (the same update as the tile model's step 1). Used by tests only: O(L K d) per sweep.
#pragma once

#include <cstdint>
#include <vector>

#include "carousel/data/corpus.hpp"

namespace carousel {

class DpmixGibbs {
 public:
  // Every non-empty observation of `corpus` is a training observation; all start in one
  // component, alpha at the prior mean.
  DpmixGibbs(const Corpus& corpus, double a, double alpha_shape, double alpha_rate,
             std::uint64_t seed);

  void Sweep();  // one pass over every observation, then alpha

  std::size_t occupied() const;
  double alpha() const { return alpha_; }
  // Labels of the observations in corpus order (-1 for empty ones); equal labels share a
  // component.
  const std::vector<int>& labels() const { return z_; }
  // The Rao-Blackwellised predictive p(x | z, alpha, data) of a dense count vector x:
  // sum_k m_k / (alpha + L) DirMult(x; a + S_k) + alpha / (alpha + L) DirMult(x; a), as a
  // log.
  double LogPredictive(const std::vector<std::uint32_t>& x) const;

 private:
  double LogDirMult(std::size_t i, const std::vector<double>* counts, double total) const;

  const Corpus& corpus_;
  double a_, alpha_shape_, alpha_rate_, alpha_;
  std::uint64_t seed_;
  std::uint64_t sweep_ = 0;
  std::size_t L_ = 0;
  std::vector<int> z_;
  std::vector<double> n_;                    // n_i
  std::vector<std::vector<double>> counts_;  // per label: S_k (d values)
  std::vector<double> totals_;               // per label: sum_c S_kc
  std::vector<double> members_;              // per label: m_k (0: free label)
};

}  // namespace carousel
