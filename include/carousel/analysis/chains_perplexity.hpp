// The held-out perplexity of a topic-model run's chains for `carousel summary`: each
// chain's last trace row's `perplexity` (that of its posterior mean over the kept draws:
// lda, sam), their mean, and the standard error of that mean across the chains, sd / sqrt(m),
// the Monte Carlo error of a perplexity reported from one chain being sd.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace carousel::analysis {

struct ChainsPerplexity {
  std::vector<double> per_chain;
  double mean = 0.0;
  double standard_error = 0.0;  // NaN for one chain
};

// Nothing unless every draws file in `files` sits in the draws/ of a run whose trace.csv
// has a `perplexity` column with a finite last value.
std::optional<ChainsPerplexity> PerplexityOfChains(const std::vector<std::string>& files);

// "held-out perplexity of each chain's posterior mean: 1503.2, 1500.9; mean 1502.1, standard
// error 1.2 across the 2 chains".
std::string DescribePerplexity(const ChainsPerplexity& p);

}  // namespace carousel::analysis
