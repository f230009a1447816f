#include "carousel/sampler/sgnht.hpp"

#include <cmath>
#include <string>

#include "carousel/sampler/sghmc.hpp"
#include "carousel/util/error.hpp"

namespace carousel {

Sgnht::Sgnht(double diffusion, double noise_estimate)
    : diffusion_(diffusion), noise_estimate_(noise_estimate), xi_(diffusion) {
  momentum::CheckParameter("friction", diffusion, true);
  momentum::CheckParameter("noise-estimate", noise_estimate, false);
}

void Sgnht::Step(BlockState& block, const BlockGradient& gradient, double step,
                 const NoiseKey& noise) const {
  const float eps = static_cast<float>(step);
  const momentum::Terms terms{1.0f, static_cast<float>(xi_), 0.0f,
                              static_cast<float>(std::sqrt(momentum::InjectedVariance(
                                  "sgnht", step, diffusion_, noise_estimate_)))};
  Matrix& theta = block.theta;
  Matrix& p = block.aux[0];
  for (Eigen::Index i = 0; i < theta.rows(); ++i) {
    KeyedStream stream = noise.Row(i);
    for (Eigen::Index c = 0; c < theta.cols(); ++c) {
      p(i, c) = momentum::Kick(p(i, c), gradient.LogPosterior(theta, i, c), terms, eps, stream);
      theta(i, c) += eps * p(i, c);
    }
  }
}

void Sgnht::PostSums(const BlockState& block, double* out) const {
  out[0] = block.aux[0].cast<double>().squaredNorm();
  out[1] = static_cast<double>(block.aux[0].size());
}

void Sgnht::EndIteration(const double*, const double* post_sums, double step) {
  if (!(post_sums[1] > 0.0))
    throw Error(ExitCode::kInternal, "sgnht: thermostat update over an empty parameter vector");
  xi_ += step * (post_sums[0] / post_sums[1] - 1.0);
  if (!std::isfinite(xi_))
    throw Error(ExitCode::kDiverged,
                "sgnht: the thermostat xi is not finite (p^T p = " + std::to_string(post_sums[0]) +
                    "); hint: lower the step size");
}

void Sgnht::set_global_state(const std::vector<double>& state) {
  if (state.size() != 1 || !std::isfinite(state[0]))
    throw Error(ExitCode::kCheckpoint, "sgnht: sampler state must be {xi}, finite");
  xi_ = state[0];
}

}  // namespace carousel
