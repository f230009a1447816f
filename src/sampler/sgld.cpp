#include "carousel/sampler/sgld.hpp"

#include <cmath>

namespace carousel {
namespace {

// theta <- theta + eps (-grad U~) + N(0, 2 eps) on one row (recipe paper Eq. 13, D = I).
struct SgldRowUpdate {
  float drift, sd;
  SgldRowUpdate(double step)
      : drift(static_cast<float>(step)), sd(static_cast<float>(std::sqrt(2.0 * step))) {}
  void operator()(Matrix& theta, const BlockGradient& gradient, Eigen::Index r,
                  const float* z) const {
    for (Eigen::Index c = 0; c < theta.cols(); ++c) {
      const float g = gradient.LogPosterior(theta, r, c);  // = -grad U~
      theta(r, c) += drift * g + sd * z[c];
    }
  }
};

}  // namespace

void Sgld::Step(BlockState& block, const BlockGradient& gradient, double step,
                const NoiseKey& noise) const {
  const SgldRowUpdate update(step);
  Matrix& theta = block.theta;
  ForEachRowWithNoise(noise, theta.rows(), theta.cols(),
                      [&](Eigen::Index r, const float* z) { update(theta, gradient, r, z); });
}

void Sgld::StepRows(BlockState& block, const BlockGradient& gradient, double step,
                    const NoiseKey& noise, const std::vector<std::uint32_t>& rows) const {
  const SgldRowUpdate update(step);
  ForEachListedRowWithNoise(noise, rows, block.theta.cols(), [&](Eigen::Index r, const float* z) {
    update(block.theta, gradient, r, z);
  });
}

// Without data -grad U~ = -lambda theta: theta <- (1 - eps lambda) theta + N(0, 2 eps).
void Sgld::PriorOnlyStep(const BlockGradient& prior, double step, Eigen::Index, float* a_minus_one,
                         float* variance) const {
  for (Eigen::Index c = 0; c < prior.prior_precision.size(); ++c) {
    a_minus_one[c] = -static_cast<float>(step) * prior.prior_precision[c];
    variance[c] = static_cast<float>(2.0 * step);
  }
}

}  // namespace carousel
