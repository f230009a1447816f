#include "carousel/sampler/sgld.hpp"

#include <cmath>

namespace carousel {

void Sgld::Step(BlockState& block, const BlockGradient& gradient, double step,
                const NoiseKey& noise) const {
  const float drift = static_cast<float>(step);
  const float sd = static_cast<float>(std::sqrt(2.0 * step));
  Matrix& theta = block.theta;
  ForEachRowWithNoise(noise, theta.rows(), theta.cols(), [&](Eigen::Index r, const float* z) {
    for (Eigen::Index c = 0; c < theta.cols(); ++c) {
      const float g = gradient.LogPosterior(theta, r, c);  // = -grad U~
      theta(r, c) += drift * g + sd * z[c];
    }
  });
}

}  // namespace carousel
