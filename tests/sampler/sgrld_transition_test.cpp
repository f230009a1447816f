// SGRLD's "ou" transition (sgrld.hpp) against its claim: on a Gaussian target whose
// precision the metric matches, the chain's stationary law is the target at a large step
// (eps = 0.5 here), where Euler's noise is 1 / (1 - eps / 2) = 4/3 times too wide. The same
// check rejects Euler's transition at that step (the negative control). And the step
// schedule's warm-up (step_size.hpp).
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <memory>
#include <vector>

#include "carousel/sampler/diagonal_metric.hpp"
#include "carousel/sampler/sgrld.hpp"
#include "carousel/sampler/step_size.hpp"
#include "carousel/util/error.hpp"
#include "mc_stats.hpp"

namespace carousel {
namespace {

// A 64 x 3 block; column c of every row is N(mean[c], 1 / precision[c]) a priori and a
// posteriori (the gradient is exact: scale 1, prior precision 0, lik_sum = -precision
// (theta - mean)).
struct GaussianBlock {
  static constexpr Eigen::Index kRows = 64, kCols = 3;
  Eigen::VectorXf mean{{1.0f, -2.0f, 0.0f}};
  Eigen::VectorXf precision{{0.5f, 4.0f, 100.0f}};
  Eigen::VectorXf zero_prior = Eigen::VectorXf::Zero(kCols);
  std::vector<std::uint32_t> ids;
  GaussianBlock() {
    for (std::uint32_t r = 0; r < kRows; ++r) ids.push_back(1000 + r);
  }
  std::shared_ptr<const DiagonalMetric> ExactMetric() const {
    return std::make_shared<ConstantDiagonalMetric>(precision.cwiseInverse());
  }
};

// Per column, the chain's mean of (theta - mean)^2 precision over all rows (1 for the
// target) with its batch-means standard error, from `steps` steps after `burn_in`.
std::vector<mc::Estimate> StandardisedVariance(const Sampler& sampler, double eps,
                                               std::uint64_t burn_in, std::uint64_t steps) {
  const GaussianBlock g;
  BlockState block{Matrix::Zero(g.kRows, g.kCols), {}};
  sampler.InitAux(block);
  Matrix lik(g.kRows, g.kCols);
  std::vector<std::vector<double>> series(g.kCols);
  for (std::uint64_t t = 0; t < burn_in + steps; ++t) {
    for (Eigen::Index r = 0; r < g.kRows; ++r)
      for (Eigen::Index c = 0; c < g.kCols; ++c)
        lik(r, c) = -g.precision[c] * (block.theta(r, c) - g.mean[c]);
    sampler.Step(block, BlockGradient{lik, 1.0, 1.0, g.zero_prior},
                 eps, NoiseKey{17, Purpose::kNoiseRow, t, &g.ids});
    if (t < burn_in) continue;
    for (Eigen::Index c = 0; c < g.kCols; ++c) {
      double s = 0.0;
      for (Eigen::Index r = 0; r < g.kRows; ++r) {
        const double d = block.theta(r, c) - g.mean[c];
        s += d * d * g.precision[c];
      }
      series[static_cast<std::size_t>(c)].push_back(s / g.kRows);
    }
  }
  std::vector<mc::Estimate> out;
  for (const auto& x : series) out.push_back(mc::BatchMeans(x));
  return out;
}

// |estimate - 1| within 4 standard errors for every column (a two-sided 4-sigma rule: a
// correct sampler fails it with probability below 1e-4 per column).
bool MatchesTarget(const std::vector<mc::Estimate>& v, const std::string& label) {
  bool ok = true;
  for (std::size_t c = 0; c < v.size(); ++c) {
    const double z = (v[c].mean - 1.0) / v[c].se;
    std::cout << "  " << label << " column " << c << ": E[(theta - m)^2 h] = " << v[c].mean
              << " (se " << v[c].se << ", z " << z << ")\n";
    ok = ok && std::isfinite(z) && std::abs(z) < 4.0;
  }
  return ok;
}

// The chain is AR(1) with coefficient 1 - eps = 0.5 per coordinate: 200 steps of burn-in
// forget the start by 2^-200, and 20,000 steps give batches of 141 steps, far beyond its
// integrated autocorrelation time (3 for theta, 1.7 for theta^2).
constexpr double kEps = 0.5;
constexpr std::uint64_t kBurnIn = 200, kSteps = 20000;

TEST(SgrldTransition, OuIsExactForAMatchedGaussianAtALargeStep) {
  const GaussianBlock g;
  const Sgrld ou(g.ExactMetric(), /*ou=*/true);
  EXPECT_TRUE(MatchesTarget(StandardisedVariance(ou, kEps, kBurnIn, kSteps), "ou"));
}

TEST(SgrldTransition, EulerAtTheSameStepIsRejected) {
  const GaussianBlock g;
  const Sgrld euler(g.ExactMetric(), /*ou=*/false);
  const std::vector<mc::Estimate> v = StandardisedVariance(euler, kEps, kBurnIn, kSteps);
  EXPECT_FALSE(MatchesTarget(v, "euler"));
  for (const mc::Estimate& e : v) EXPECT_NEAR(e.mean, 1.0 / (1.0 - kEps / 2.0), 6.0 * e.se);
}

TEST(SgrldTransition, OuNeedsAStepBelowOne) {
  const GaussianBlock g;
  const Sgrld ou(g.ExactMetric(), /*ou=*/true);
  BlockState block{Matrix::Zero(g.kRows, g.kCols), {}};
  const Matrix lik = Matrix::Zero(g.kRows, g.kCols);
  EXPECT_THROW(ou.Step(block, BlockGradient{lik, 1.0, 1.0, g.zero_prior}, 1.0,
                       NoiseKey{17, Purpose::kNoiseRow, 0, &g.ids}),
               Error);
}

TEST(StepSchedule, WarmupGrowsGeometricallyToTheSchedule) {
  StepSchedule s{0.3, 1.0, 0.0, 30, 1.0 / 6.0};
  EXPECT_DOUBLE_EQ(s.At(0), 0.05);
  EXPECT_NEAR(s.At(15), 0.3 / std::sqrt(6.0), 1e-12);  // halfway: the geometric mean
  EXPECT_LT(s.At(29), 0.3);
  EXPECT_DOUBLE_EQ(s.At(30), 0.3);
  EXPECT_DOUBLE_EQ(s.At(1000), 0.3);
  for (std::uint64_t t = 1; t <= 30; ++t) EXPECT_GT(s.At(t), s.At(t - 1));
  const StepSchedule decaying{2.0, 10.0, 0.5, 4, 0.25};  // the warm-up multiplies the decay
  EXPECT_DOUBLE_EQ(decaying.At(0), 2.0 / std::sqrt(10.0) * 0.25);
  EXPECT_DOUBLE_EQ(decaying.At(4), 2.0 / std::sqrt(14.0));
  const StepSchedule none{0.3, 1.0, 0.0};
  EXPECT_DOUBLE_EQ(none.At(0), 0.3);
}

}  // namespace
}  // namespace carousel
