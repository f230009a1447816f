#include "carousel/sampler/sgrld.hpp"

#include <cmath>
#include <utility>

#include "carousel/util/error.hpp"

namespace carousel {

Sgrld::Sgrld(std::shared_ptr<const DiagonalMetric> metric, bool ou)
    : metric_(std::move(metric)), ou_(ou) {
  if (!metric_) throw UsageError("metric", "sgrld needs a metric");
}

void Sgrld::Step(BlockState& block, const BlockGradient& gradient, double step,
                 const NoiseKey& noise) const {
  if (ou_ && !(step < 1.0))
    throw UsageError("--step", "must be below 1 with --transition ou (now " +
                                   std::to_string(step) + ")");
  Matrix& g_inv = g_inv_;  // D = G^-1 and Gamma at theta_t
  Matrix& gamma = gamma_;
  metric_->Evaluate(block.theta, gradient, g_inv, gamma);
  const float eps = static_cast<float>(step);
  const float noise_variance = ou_ ? eps * (2.0f - eps) : 2.0f * eps;  // per unit of D
  Matrix& theta = block.theta;
  ForEachRowWithNoise(noise, theta.rows(), theta.cols(), [&](Eigen::Index r, const float* z) {
    for (Eigen::Index c = 0; c < theta.cols(); ++c) {
      const float d = g_inv(r, c);
      theta(r, c) += eps * (d * gradient.LogPosterior(theta, r, c) + gamma(r, c)) +
                     std::sqrt(noise_variance * d) * z[c];
    }
  });
}

}  // namespace carousel
