#include "carousel/model/amf/amf_predictive.hpp"

#include <cmath>

#include "carousel/util/error.hpp"
#include "carousel/util/keyed_rng.hpp"
#include "carousel/util/mcmc_diagnostics.hpp"

namespace carousel {

std::vector<double> AmfEntryQuantiles(const std::vector<double>& scales, std::uint64_t pair,
                                      const AmfPredictiveDraws& how,
                                      const std::vector<double>& levels) {
  if (scales.empty() || how.draws_per_sample == 0)
    throw Error(ExitCode::kInternal, "AmfEntryQuantiles: no samples or no draws");
  std::vector<double> draws;
  draws.reserve(scales.size() * how.draws_per_sample);
  for (std::size_t s = 0; s < scales.size(); ++s) {
    KeyedStream rng(how.seed, Purpose::kPredictive, pair, s);
    for (std::uint64_t d = 0; d < how.draws_per_sample; ++d)
      draws.push_back(how.likelihood == AmfLikelihood::kComplex
                          ? AmfDrawComplexModulus(scales[s], how.alpha, rng)
                          : std::abs(AmfDrawEntry(scales[s], how.alpha, rng)));
  }
  std::vector<double> quantiles;
  for (const double q : levels) quantiles.push_back(mcmc::Quantile(draws, q));
  return quantiles;
}

}  // namespace carousel
