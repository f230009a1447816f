#include "carousel/sampler/sgrld.hpp"

#include <cmath>
#include <utility>

#include "carousel/util/error.hpp"

namespace carousel {

Sgrld::Sgrld(std::shared_ptr<const DiagonalMetric> metric) : metric_(std::move(metric)) {
  if (!metric_) throw UsageError("metric", "sgrld needs a metric");
}

void Sgrld::Step(BlockState& block, const BlockGradient& gradient, double step,
                 const NoiseKey& noise) const {
  Matrix g_inv, gamma;  // D = G^-1 and Gamma at theta_t
  metric_->Evaluate(block.theta, gradient, g_inv, gamma);
  const float eps = static_cast<float>(step);
  Matrix& theta = block.theta;
  ForEachRowWithNoise(noise, theta.rows(), theta.cols(), [&](Eigen::Index r, const float* z) {
    for (Eigen::Index c = 0; c < theta.cols(); ++c) {
      const float d = g_inv(r, c);
      theta(r, c) += eps * (d * gradient.LogPosterior(theta, r, c) + gamma(r, c)) +
                     std::sqrt(2.0f * eps * d) * z[c];
    }
  });
}

}  // namespace carousel
