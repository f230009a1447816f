#include "carousel/sampler/sgrld.hpp"

#include <cmath>
#include <utility>

#include "carousel/util/error.hpp"

namespace carousel {

Sgrld::Sgrld(std::shared_ptr<const DiagonalMetric> metric, bool ou)
    : metric_(std::move(metric)), ou_(ou) {
  if (!metric_) throw UsageError("metric", "sgrld needs a metric");
}

float Sgrld::NoiseVariance(double step) const {
  if (ou_ && !(step < 1.0))
    throw UsageError("--step",
                     "must be below 1 with --transition ou (now " + std::to_string(step) + ")");
  const float eps = static_cast<float>(step);
  return ou_ ? eps * (2.0f - eps) : 2.0f * eps;
}

void Sgrld::Step(BlockState& block, const BlockGradient& gradient, double step,
                 const NoiseKey& noise) const {
  const float noise_variance = NoiseVariance(step);
  Matrix& g_inv = g_inv_;  // D = G^-1 and Gamma at theta_t
  Matrix& gamma = gamma_;
  metric_->Evaluate(block.theta, gradient, g_inv, gamma);
  const float eps = static_cast<float>(step);
  Matrix& theta = block.theta;
  ForEachRowWithNoise(noise, theta.rows(), theta.cols(), [&](Eigen::Index r, const float* z) {
    for (Eigen::Index c = 0; c < theta.cols(); ++c) {
      const float d = g_inv(r, c);
      theta(r, c) += eps * (d * gradient.LogPosterior(theta, r, c) + gamma(r, c)) +
                     std::sqrt(noise_variance * d) * z[c];
    }
  });
}

// Step with Gamma = 0 and G^-1 row by row (metric constant in theta).
void Sgrld::StepRows(BlockState& block, const BlockGradient& gradient, double step,
                     const NoiseKey& noise, const std::vector<std::uint32_t>& rows) const {
  const float noise_variance = NoiseVariance(step);
  const float eps = static_cast<float>(step);
  Matrix& theta = block.theta;
  Eigen::VectorXf d(theta.cols());
  ForEachListedRowWithNoise(noise, rows, theta.cols(), [&](Eigen::Index r, const float* z) {
    metric_->InverseOfRow(gradient, r, d.data());
    for (Eigen::Index c = 0; c < theta.cols(); ++c)
      theta(r, c) += eps * (d[c] * gradient.LogPosterior(theta, r, c)) +
                     std::sqrt(noise_variance * d[c]) * z[c];
  });
}

void Sgrld::PriorOnlyStep(const BlockGradient& prior, double step, Eigen::Index r,
                          float* a_minus_one, float* variance) const {
  const float noise_variance = NoiseVariance(step);
  const float eps = static_cast<float>(step);
  metric_->InverseOfRow(prior, r, variance);  // G^-1, scaled below
  for (Eigen::Index c = 0; c < prior.prior_precision.size(); ++c) {
    a_minus_one[c] = -eps * variance[c] * prior.prior_precision[c];
    variance[c] *= noise_variance;
  }
}

}  // namespace carousel
