#include "carousel/model/bpmf/bpmf_ridge.hpp"

#include <cmath>

#include "carousel/util/gig_variate.hpp"

namespace carousel {

double MoveAlongScaleRidge(const BpmfPriors& priors, BpmfHyper& hyper, KeyedStream& rng) {
  // u = c^2 ~ GIG(0, 2 b0 lambda_h, 2 b0 lambda_w): the header's derivation.
  const double u =
      GigVariate(0.0, 2.0 * priors.b0 * hyper.lambda_h, 2.0 * priors.b0 * hyper.lambda_w, rng);
  hyper.lambda_w /= u;
  hyper.lambda_h *= u;
  return std::sqrt(u);
}

}  // namespace carousel
