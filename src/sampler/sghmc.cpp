#include "carousel/sampler/sghmc.hpp"

#include <cmath>
#include <string>

#include "carousel/util/error.hpp"

namespace carousel {
namespace momentum {

double InjectedVariance(const char* sampler, double eps, double diffusion, double b_hat) {
  const double v = eps * (2.0 * diffusion - eps * b_hat);
  if (!(v >= 0.0))
    throw SettingError("noise-estimate", std::string(sampler) + ": step * noise estimate = " +
                                             std::to_string(eps * b_hat) + " exceeds 2 * " +
                                             std::to_string(diffusion) +
                                             " (Eq. 9 of the recipe needs 2 D - eps B^ >= 0)");
  return v;
}

void CheckParameter(const char* setting, double value, bool positive) {
  if (!(std::isfinite(value) && (positive ? value > 0.0 : value >= 0.0)))
    throw SettingError(
        setting, std::to_string(value) + " (must be finite and " + (positive ? "> 0)" : ">= 0)"));
}

}  // namespace momentum

Sghmc::Sghmc(double friction, double noise_estimate, double mass)
    : friction_(friction), noise_estimate_(noise_estimate), mass_(mass) {
  momentum::CheckParameter("friction", friction, true);
  momentum::CheckParameter("noise-estimate", noise_estimate, false);
  momentum::CheckParameter("mass", mass, true);
}

void Sghmc::Step(BlockState& block, const BlockGradient& gradient, double step,
                 const NoiseKey& noise) const {
  const float eps = static_cast<float>(step);
  const float inv_mass = static_cast<float>(1.0 / mass_);
  const momentum::Terms terms{1.0f, static_cast<float>(friction_ / mass_), 0.0f,
                              static_cast<float>(std::sqrt(momentum::InjectedVariance(
                                  "sghmc", step, friction_, noise_estimate_)))};
  Matrix& theta = block.theta;
  Matrix& r = block.aux[0];
  for (Eigen::Index i = 0; i < theta.rows(); ++i) {
    KeyedStream stream = noise.Row(i);
    for (Eigen::Index c = 0; c < theta.cols(); ++c) {
      r(i, c) = momentum::Kick(r(i, c), gradient.LogPosterior(theta, i, c), terms, eps, stream);
      theta(i, c) += eps * inv_mass * r(i, c);
    }
  }
}

}  // namespace carousel
