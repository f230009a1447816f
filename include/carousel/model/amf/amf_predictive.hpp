// The posterior predictive of a new entry of alpha-stable NMF (Eq. 14), for `carousel
// predict`: given the scales v_s = (W_s H_s)_ij of the saved samples s, a new entry is drawn
// from the equal mixture over s of S_alpha(v_s^(1/alpha)) (real data) or of the modulus of
// the complex model's N_c(0, Phi v_s^(2/alpha)), by way of Eq. 15 (AmfDrawEntry,
// AmfDrawComplexModulus). The symmetric law has no variance below alpha = 2 and no mean
// below alpha = 1, so the predictive is summarised by quantiles of |X_ij|, from
// `draws_per_sample` keyed draws per sample: Monte Carlo error about
// sqrt(q (1 - q)) / (f(x_q) sqrt(S draws)) on the q quantile.
#pragma once

#include <cstdint>
#include <vector>

#include "carousel/model/amf/amf_pieces.hpp"

namespace carousel {

struct AmfPredictiveDraws {
  double alpha = 1.5;
  AmfLikelihood likelihood = AmfLikelihood::kReal;
  std::uint64_t seed = 1;
  std::uint64_t draws_per_sample = 1000;
};

// The q-quantiles (R's type 7) of |X| for each q of `levels`, from the mixture over `scales`
// (one v per saved sample, each > 0). Randomness: KeyedStream(seed, kPredictive, pair, s)
// for sample s, so a pair's quantiles do not depend on the other pairs.
std::vector<double> AmfEntryQuantiles(const std::vector<double>& scales, std::uint64_t pair,
                                      const AmfPredictiveDraws& how,
                                      const std::vector<double>& levels);

}  // namespace carousel
