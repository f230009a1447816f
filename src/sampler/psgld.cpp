#include "carousel/sampler/psgld.hpp"

#include <cmath>

namespace carousel {

void Psgld::InitAux(BlockState& block) const {
  // -1 marks "no gradient seen yet": the first update sets v = g_bar^2 exactly.
  block.aux.assign(1, Matrix::Constant(block.theta.rows(), block.theta.cols(), -1.0f));
}

void Psgld::Step(BlockState& block, const BlockGradient& gradient, double step,
                 const NoiseKey& noise) const {
  const float alpha = static_cast<float>(alpha_);
  const float lambda = static_cast<float>(lambda_);
  const float eps = static_cast<float>(step);
  // An empty stratum (small data cut into many tiles) has no likelihood gradient at all:
  // its mean is 0, not 0/0.
  const float inv_batch =
      gradient.minibatch_size > 0 ? static_cast<float>(1.0 / gradient.minibatch_size) : 0.0f;
  Matrix& theta = block.theta;
  Matrix& v = block.aux[0];
  ForEachRowWithNoise(noise, theta.rows(), theta.cols(), [&](Eigen::Index r, const float* z) {
    for (Eigen::Index c = 0; c < theta.cols(); ++c) {
      const float g_bar = gradient.lik_sum(r, c) * inv_batch;
      const float v_old = v(r, c);
      const float v_new =
          v_old < 0.0f ? g_bar * g_bar : alpha * v_old + (1 - alpha) * g_bar * g_bar;
      v(r, c) = v_new;
      const float h = 1.0f / (lambda + std::sqrt(v_new));
      const float g = gradient.LogPosterior(theta, r, c);
      theta(r, c) += eps * h * g + std::sqrt(2.0f * eps * h) * z[c];
    }
  });
}

}  // namespace carousel
