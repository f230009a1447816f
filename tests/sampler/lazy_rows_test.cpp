// Rows that sit out iterations without data (sampler/lazy_rows.hpp, DESIGN.md section 9):
// CatchUpRows's one composed draw against k prior-only steps taken one by one.
//
// 20,000 independent rows (their ids key their noise) start at the same point and take k
// steps with no likelihood term. Per column the exact law after k steps is
//   N(a^k theta_0, s^2 (1 - a^2k) / (1 - a^2)),  a = 1 - eps lambda G^-1,
// with s^2 = eps (2 - eps) G^-1 for SGRLD's "ou" transition and 2 eps for SGLD. The sample
// mean and variance over the rows are compared with it: mean within 4 standard errors
// (sd / sqrt(n)), variance within 4 standard errors (sigma^2 sqrt(2 / (n - 1)), normal
// data). The k eager steps must pass (the law above is theirs), the composed draw must
// pass, and two broken compositions must fail: the skipped steps left out (one step
// composed instead of k) and Euler's noise variance composed in place of the "ou" one.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "carousel/sampler/diagonal_metric.hpp"
#include "carousel/sampler/lazy_rows.hpp"
#include "carousel/sampler/sgld.hpp"
#include "carousel/sampler/sgrld.hpp"

namespace carousel {
namespace {

constexpr Eigen::Index kRows = 20000, kCols = 3;
constexpr std::uint64_t kSkipped = 7;
constexpr double kStep = 0.2;

struct SkipSetup {
  Eigen::VectorXf start{{1.0f, -2.0f, 0.5f}};
  Eigen::VectorXf prior{{2.0f, 0.5f, 10.0f}};
  Eigen::VectorXf g_inv{{0.3f, 1.0f, 0.05f}};
  std::vector<std::uint32_t> ids;
  Matrix zero_lik = Matrix::Zero(kRows, kCols);
  SkipSetup() {
    for (std::uint32_t r = 0; r < kRows; ++r) ids.push_back(5000 + r);
  }
  BlockState Fresh() const {
    BlockState b{start.transpose().replicate(kRows, 1), {}};
    b.row_clock.assign(kRows, 0);
    return b;
  }
  BlockGradient PriorOnly() const { return BlockGradient{zero_lik, 1.0, 1.0, prior}; }
};

// The exact law of column c after k prior-only steps with per-step map a, s^2.
struct Law {
  double mean, variance;
};
Law AfterSteps(double a, double s2, double theta0, std::uint64_t k) {
  const double ak = std::pow(a, static_cast<double>(k));
  return {ak * theta0, s2 * (1.0 - ak * ak) / (1.0 - a * a)};
}

bool MatchesLaw(const Matrix& theta, const std::vector<Law>& law, const std::string& label) {
  bool ok = true;
  const double n = static_cast<double>(theta.rows());
  for (Eigen::Index c = 0; c < theta.cols(); ++c) {
    const Eigen::ArrayXd x = theta.col(c).cast<double>().array();
    const double mean = x.mean();
    const double var = (x - mean).square().sum() / (n - 1.0);
    const Law& l = law[static_cast<std::size_t>(c)];
    const double z_mean = (mean - l.mean) / std::sqrt(l.variance / n);
    const double z_var = (var - l.variance) / (l.variance * std::sqrt(2.0 / (n - 1.0)));
    std::cout << "  " << label << " column " << c << ": mean " << mean << " (exact " << l.mean
              << ", z " << z_mean << "), variance " << var << " (exact " << l.variance << ", z "
              << z_var << ")\n";
    ok = ok && std::abs(z_mean) < 4.0 && std::abs(z_var) < 4.0;
  }
  return ok;
}

std::vector<Law> OuLaw(const SkipSetup& s) {
  std::vector<Law> law;
  for (Eigen::Index c = 0; c < kCols; ++c) {
    const double d = s.g_inv[c];
    law.push_back(
        AfterSteps(1.0 - kStep * s.prior[c] * d, kStep * (2.0 - kStep) * d, s.start[c], kSkipped));
  }
  return law;
}

std::shared_ptr<const DiagonalMetric> Metric(const SkipSetup& s) {
  return std::make_shared<ConstantDiagonalMetric>(s.g_inv);
}

// SGRLD whose composition is told Euler's noise variance while its steps use the "ou" one:
// the negative control "composed with the wrong variance".
class WrongVarianceSgrld : public Sgrld {
 public:
  using Sgrld::Sgrld;
  void PriorOnlyStep(const BlockGradient& prior, double step, Eigen::Index r, float* a_minus_one,
                     float* variance) const override {
    Sgrld::PriorOnlyStep(prior, step, r, a_minus_one, variance);
    const double ou = step * (2.0 - step), euler = 2.0 * step;
    for (Eigen::Index c = 0; c < prior.prior_precision.size(); ++c)
      variance[c] = static_cast<float>(variance[c] * euler / ou);
  }
};

TEST(LazyRows, EagerPriorOnlyStepsFollowTheComposedLaw) {
  const SkipSetup s;
  const Sgrld ou(Metric(s), /*ou=*/true);
  BlockState b = s.Fresh();
  for (std::uint64_t t = 0; t < kSkipped; ++t)
    ou.Step(b, s.PriorOnly(), kStep, NoiseKey{3, Purpose::kNoiseRow, t, &s.ids});
  EXPECT_TRUE(MatchesLaw(b.theta, OuLaw(s), "k eager steps"));
}

TEST(LazyRows, OneComposedDrawFollowsTheLawOfTheSkippedSteps) {
  const SkipSetup s;
  const Sgrld ou(Metric(s), /*ou=*/true);
  BlockState b = s.Fresh();
  CatchUpRows(ou, b, s.PriorOnly(), kStep, NoiseKey{3, Purpose::kCatchUpRow, kSkipped, &s.ids},
              nullptr, kSkipped);
  EXPECT_TRUE(MatchesLaw(b.theta, OuLaw(s), "composed"));
  for (std::uint64_t c : b.row_clock) ASSERT_EQ(c, kSkipped);
}

TEST(LazyRows, LeavingTheSkippedStepsOutIsRejected) {
  const SkipSetup s;
  const Sgrld ou(Metric(s), /*ou=*/true);
  BlockState b = s.Fresh();
  b.row_clock.assign(kRows, kSkipped - 1);  // the clocks lost k - 1 of the steps
  CatchUpRows(ou, b, s.PriorOnly(), kStep, NoiseKey{3, Purpose::kCatchUpRow, kSkipped, &s.ids},
              nullptr, kSkipped);
  EXPECT_FALSE(MatchesLaw(b.theta, OuLaw(s), "one step composed"));
}

TEST(LazyRows, ComposingWithTheWrongVarianceIsRejected) {
  const SkipSetup s;
  const WrongVarianceSgrld broken(Metric(s), /*ou=*/true);
  BlockState b = s.Fresh();
  CatchUpRows(broken, b, s.PriorOnly(), kStep, NoiseKey{3, Purpose::kCatchUpRow, kSkipped, &s.ids},
              nullptr, kSkipped);
  EXPECT_FALSE(MatchesLaw(b.theta, OuLaw(s), "Euler's variance"));
}

TEST(LazyRows, SgldComposesItsPriorOnlySteps) {
  const SkipSetup s;
  const Sgld sgld;
  const double step = 0.05;  // SGLD has no metric: a = 1 - eps lambda stays in (0, 1)
  std::vector<Law> law;
  for (Eigen::Index c = 0; c < kCols; ++c)
    law.push_back(AfterSteps(1.0 - step * s.prior[c], 2.0 * step, s.start[c], kSkipped));
  BlockState eager = s.Fresh(), lazy = s.Fresh();
  for (std::uint64_t t = 0; t < kSkipped; ++t)
    sgld.Step(eager, s.PriorOnly(), step, NoiseKey{4, Purpose::kNoiseRow, t, &s.ids});
  CatchUpRows(sgld, lazy, s.PriorOnly(), step, NoiseKey{4, Purpose::kCatchUpRow, kSkipped, &s.ids},
              nullptr, kSkipped);
  EXPECT_TRUE(MatchesLaw(eager.theta, law, "sgld eager"));
  EXPECT_TRUE(MatchesLaw(lazy.theta, law, "sgld composed"));
}

// Only the listed rows that lag move; the others keep their values and clocks.
TEST(LazyRows, OnlyListedRowsThatLagMove) {
  const SkipSetup s;
  const Sgrld ou(Metric(s), /*ou=*/true);
  BlockState b = s.Fresh();
  b.row_clock[2] = kSkipped;  // already current
  const Matrix before = b.theta;
  const std::vector<std::uint32_t> listed{1, 2, 9};
  CatchUpRows(ou, b, s.PriorOnly(), kStep, NoiseKey{3, Purpose::kCatchUpRow, kSkipped, &s.ids},
              &listed, kSkipped);
  for (Eigen::Index r = 0; r < 12; ++r) {
    const bool moved = r == 1 || r == 9;
    EXPECT_EQ(b.theta.row(r) != before.row(r), moved) << "row " << r;
    EXPECT_EQ(b.row_clock[static_cast<std::size_t>(r)], moved || r == 2 ? kSkipped : 0u);
  }
}

// Near a = 1 (a heavily rated row: eps lambda G^-1 tiny) the composition keeps its
// precision (1 - a^2k and 1 - a^2 computed plainly would lose 7 of 16 digits here): to
// second order, a^k = 1 - k d and the variance is k v (1 - (k - 1) d) for a = 1 - d.
TEST(LazyRows, ComposesStepsNextToOneWithoutCancellation) {
  const ComposedPriorSteps m = ComposePriorSteps(-1e-9, 2.0, 50);
  EXPECT_NEAR(m.scale, 1.0 - 50e-9, 1e-14);
  EXPECT_NEAR(m.sd * m.sd, 100.0 * (1.0 - 49e-9), 1e-12);
  const ComposedPriorSteps flat = ComposePriorSteps(0.0, 2.0, 50);
  EXPECT_EQ(flat.scale, 1.0);
  EXPECT_DOUBLE_EQ(flat.sd * flat.sd, 100.0);
}

// StepRows over every row is Step, bit for bit (the same noise chunks, Gamma = 0).
TEST(LazyRows, StepRowsOverEveryRowIsStep) {
  const SkipSetup s;
  const Sgrld ou(Metric(s), /*ou=*/true);
  BlockState a = s.Fresh(), b = s.Fresh();
  Matrix lik = Matrix::Constant(kRows, kCols, 0.3f);
  const BlockGradient g{lik, 2.0, 1.0, s.prior};
  std::vector<std::uint32_t> all(kRows);
  for (std::uint32_t r = 0; r < kRows; ++r) all[r] = r;
  ou.Step(a, g, kStep, NoiseKey{9, Purpose::kNoiseRow, 0, &s.ids});
  ou.StepRows(b, g, kStep, NoiseKey{9, Purpose::kNoiseRow, 0, &s.ids}, all);
  EXPECT_TRUE(a.theta == b.theta);
}

}  // namespace
}  // namespace carousel
