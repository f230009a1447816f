// HAMCMC's y_t from a curvature subset (Hamcmc::AfterStep with both gradients): given the
// gradient at theta_{t-M} that the step used, it must form the same pair as Alg. 1's
// AfterStep, which takes grad U~(theta_{t-M}) from the y slot StepWithSums filled.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "carousel/sampler/hamcmc.hpp"

namespace carousel {
namespace {

TEST(HamcmcCurvature, AfterStepWithBothGradientsMatchesAlgorithm1) {
  const int rows = 6, cols = 4;
  std::mt19937 rng(3);
  std::normal_distribution<float> normal;
  auto random = [&] { return Matrix::NullaryExpr(rows, cols, [&] { return normal(rng); }); };
  const Hamcmc sampler(3, 0.7, 0.5);
  BlockState block;
  block.theta = random();
  sampler.InitAux(block);
  std::vector<std::uint32_t> ids(rows);
  for (int r = 0; r < rows; ++r) ids[static_cast<std::size_t>(r)] = static_cast<std::uint32_t>(r);
  Eigen::VectorXf prior(cols);
  prior << 1.0f, 2.0f, 0.5f, 3.0f;
  const double scale = 4.0;
  for (std::uint64_t t = 0; t < 5; ++t) {
    const Matrix lik_old = random(), lik_new = random();
    const BlockGradient old_gradient{lik_old, scale, 10.0, prior};
    const BlockGradient new_gradient{lik_new, scale, 10.0, prior};
    const NoiseKey noise{1, Purpose::kNoiseRow, t, &ids};
    std::vector<double> sums(static_cast<std::size_t>(sampler.pre_sum_count()));
    sampler.PreSums(block, old_gradient, noise, sums.data());
    sampler.StepWithSums(block, old_gradient, 1e-3, noise, sums.data());
    BlockState alg1 = block, subset = block;
    sampler.AfterStep(alg1, new_gradient);
    sampler.AfterStep(subset, new_gradient, old_gradient);
    // The newest y slot (y_slot(pairs() - 1) = aux[2M - 3] = aux[3] for M = 3).
    const Matrix& y1 = alg1.aux[3];
    const Matrix& y2 = subset.aux[3];
    EXPECT_FALSE(y1.isZero());
    // Float rounding only: Alg. 1 forms prior * theta at both points, the subset form
    // prior * s_t; the differences are a few ulps of the gradient terms.
    EXPECT_LT((y1 - y2).cwiseAbs().maxCoeff(), 1e-5f * (1.0f + y1.cwiseAbs().maxCoeff()));
    block = alg1;
  }
}

TEST(HamcmcCurvature, RefusesGradientsWithDifferentScales) {
  const Hamcmc sampler(3, 1.0, 1.0);
  BlockState block;
  block.theta = Matrix::Ones(2, 2);
  sampler.InitAux(block);
  const Matrix lik = Matrix::Zero(2, 2);
  const Eigen::VectorXf prior = Eigen::VectorXf::Ones(2);
  EXPECT_ANY_THROW(sampler.AfterStep(block, BlockGradient{lik, 2.0, 1.0, prior},
                                     BlockGradient{lik, 1.0, 1.0, prior}));
}

}  // namespace
}  // namespace carousel
