#include "carousel/sampler/sgrhmc.hpp"

#include <cmath>
#include <utility>

#include "carousel/sampler/sghmc.hpp"
#include "carousel/util/error.hpp"

namespace carousel {

Sgrhmc::Sgrhmc(std::shared_ptr<const DiagonalMetric> metric, double noise_estimate)
    : metric_(std::move(metric)), noise_estimate_(noise_estimate) {
  if (!metric_) throw SettingError("metric", "sgrhmc needs a metric");
  momentum::CheckParameter("noise-estimate", noise_estimate, false);
}

void Sgrhmc::Step(BlockState& block, const BlockGradient& gradient, double step,
                  const NoiseKey& noise) const {
  Matrix g_inv, d_g_inv;  // G^-1 and dG^-1/dtheta at theta_t
  metric_->Evaluate(block.theta, gradient, g_inv, d_g_inv);
  // eps (2 G^-1 - eps G^-1 V^) = G^-1 * eps (2 - eps V^).
  const float noise_per_unit_d =
      static_cast<float>(momentum::InjectedVariance("sgrhmc", step, 1.0, noise_estimate_));
  const float eps = static_cast<float>(step);
  Matrix& theta = block.theta;
  Matrix& r = block.aux[0];
  for (Eigen::Index i = 0; i < theta.rows(); ++i) {
    KeyedStream stream = noise.Row(i);
    for (Eigen::Index c = 0; c < theta.cols(); ++c) {
      const float d = g_inv(i, c);                     // D_rr = G^-1
      const float q = std::sqrt(d);                    // Q_{r theta} = G^-1/2
      const float gamma = d_g_inv(i, c) / (2.0f * q);  // d(G^-1/2)/dtheta
      const float r_t = r(i, c);
      r(i, c) = momentum::Kick(r_t, gradient.LogPosterior(theta, i, c),
                               {q, d, gamma, std::sqrt(d * noise_per_unit_d)}, eps, stream);
      theta(i, c) += eps * q * r_t;  // Alg. 1: with r_t
    }
  }
}

}  // namespace carousel
