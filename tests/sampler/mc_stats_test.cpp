// The Monte Carlo error helpers of mc_stats.hpp on chains whose answers are known.
//
// AR(1): x_t = rho x_{t-1} + sqrt(1 - rho^2) e_t has stationary variance 1, integrated
// autocorrelation time tau = (1 + rho) / (1 - rho), and Var(mean of n draws) ~ tau / n.
#include "mc_stats.hpp"

#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <cmath>
#include <iostream>
#include <vector>

#include "carousel/util/keyed_rng.hpp"

namespace carousel {
namespace {

std::vector<double> Ar1(double rho, std::size_t n, std::uint64_t seed) {
  KeyedStream rng(seed, Purpose::kTest, 0, 0);
  std::vector<double> x(n);
  double v = rng.normal();  // start in the stationary law
  const double s = std::sqrt(1.0 - rho * rho);
  for (std::size_t t = 0; t < n; ++t) {
    v = rho * v + s * rng.normal();
    x[t] = v;
  }
  return x;
}

// Standard error of a batch-means standard error from b batches: the sample variance of b
// nearly normal batch means has relative sd sqrt(2 / (b - 1)), the se half of that.
double RelativeSdOfSe(std::size_t batches) {
  return 1.0 / std::sqrt(2.0 * static_cast<double>(batches - 1));
}

TEST(McStats, BatchMeansStandardErrorOfAnAr1Chain) {
  const double rho = 0.9;
  const std::size_t n = std::size_t{1} << 18;
  const std::vector<double> x = Ar1(rho, n, 1);
  const double tau = (1 + rho) / (1 - rho);
  const double truth = std::sqrt(tau / static_cast<double>(n));
  const mc::Estimate e = mc::BatchMeans(x);
  // Finite batches of m draws see Var(batch mean) = (tau - 2 rho (1 - rho^m) / (m (1 - rho)^2)) / m
  // (exact for AR(1)); the expected se is below `truth` by that factor.
  const double m = static_cast<double>(e.batch_size);
  const double expected = truth * std::sqrt(1.0 - 2.0 * rho * (1.0 - std::pow(rho, m)) /
                                                      (m * (1 - rho) * (1 - rho)) / tau);
  std::cout << "AR(1) rho=0.9: batch-means se " << e.se << ", expected " << expected
            << ", naive iid se " << std::sqrt(1.0 / static_cast<double>(n)) << " (" << e.batches
            << " batches of " << e.batch_size << ")\n";
  const double tolerance = 4.0 * RelativeSdOfSe(e.batches) * expected;
  EXPECT_NEAR(e.se, expected, tolerance);
  EXPECT_NEAR(e.mean, 0.0, 4.0 * truth);
  // The same check rejects the naive i.i.d. standard error, which ignores autocorrelation.
  const mc::Estimate naive = mc::IndependentMean(x);
  EXPECT_GT(std::abs(naive.se - expected), tolerance);
}

TEST(McStats, IntegratedAutocorrelationTimeOfAnAr1Chain) {
  const double rho = 0.9;
  const std::size_t n = std::size_t{1} << 18;
  const std::vector<double> x = Ar1(rho, n, 2);
  const double tau = (1 + rho) / (1 - rho);
  const double estimate = mc::IntegratedAutocorrTime(x, n);
  // Sokal: Var(tau^) ~ 2 (2M + 1) tau^2 / n for a window of M lags (M ~ 5 tau).
  const double sd = std::sqrt(2.0 * (2.0 * 5.0 * tau + 1.0) / static_cast<double>(n)) * tau;
  std::cout << "AR(1) rho=0.9: tau " << estimate << ", exact " << tau << " (sd " << sd << ")\n";
  EXPECT_NEAR(estimate, tau, 4.0 * sd);
  EXPECT_NEAR(mc::IntegratedAutocorrTime(Ar1(0.0, n, 3), n), 1.0, 4.0 * std::sqrt(22.0 / n));
}

// Coverage over replicate chains: mean +- 2 se (batch means, 64 batches) should cover the
// truth in P(|t_63| <= 2) = 95.0% of 400 chains; binomial sd 1.1%.
TEST(McStats, BatchMeansIntervalsCover) {
  const int chains = 400;
  int covered = 0, covered_naive = 0;
  for (int c = 0; c < chains; ++c) {
    const std::vector<double> x = Ar1(0.8, 4096, 100 + static_cast<std::uint64_t>(c));
    const mc::Estimate e = mc::BatchMeans(x, 64);
    covered += std::abs(e.mean) <= 2.0 * e.se;
    covered_naive += std::abs(e.mean) <= 2.0 * mc::IndependentMean(x).se;
  }
  const double p = 0.950, sd = std::sqrt(p * (1 - p) / chains);
  const double rate = static_cast<double>(covered) / chains;
  const double naive = static_cast<double>(covered_naive) / chains;
  std::cout << "coverage of mean +- 2 se: batch means " << rate << ", naive iid " << naive << "\n";
  EXPECT_NEAR(rate, p, 4.0 * sd);
  EXPECT_GT(std::abs(naive - p), 4.0 * sd);  // the naive se is rejected
}

// Independent bivariate normal draws: the covariance standard errors agree with the
// Gaussian formula se(S_ab) = sqrt((S_aa S_bb + S_ab^2) / n), and CompareMoments flags a
// shifted mean and an inflated covariance.
TEST(McStats, MomentsOfIndependentGaussianDraws) {
  const std::size_t n = 100000;
  Eigen::Matrix2d s;
  s << 2.0, 0.6, 0.6, 0.5;
  const Eigen::Matrix2d l = s.llt().matrixL();
  const Eigen::Vector2d m(1.0, -2.0);
  Eigen::MatrixXd draws(n, 2);
  KeyedStream rng(4, Purpose::kTest, 0, 0);
  for (std::size_t t = 0; t < n; ++t) {
    const Eigen::Vector2d e(rng.normal(), rng.normal());
    draws.row(static_cast<Eigen::Index>(t)) = (m + l * e).transpose();
  }
  const mc::Moments est = mc::EstimateMoments(draws);
  EXPECT_TRUE(mc::CompareMoments(est, m, s, 4.0, "iid").empty());
  for (int a = 0; a < 2; ++a) {
    EXPECT_NEAR(est.mean_se(a), std::sqrt(s(a, a) / n),
                4.0 * RelativeSdOfSe(est.batches) * std::sqrt(s(a, a) / n));
    for (int b = 0; b <= a; ++b) {
      const double se = std::sqrt((s(a, a) * s(b, b) + s(a, b) * s(a, b)) / n);
      EXPECT_NEAR(est.cov_se(a, b), se, 4.0 * RelativeSdOfSe(est.batches) * se);
    }
  }
  EXPECT_LT(est.max_tau, 1.5);
  Eigen::Vector2d shifted = m;
  shifted(0) += 10.0 * est.mean_se(0);
  EXPECT_EQ(mc::CompareMoments(est, shifted, s, 4.0, "shifted").size(), 1u);
  EXPECT_FALSE(mc::CompareMoments(est, m, 1.1 * s, 4.0, "inflated").empty());
}

}  // namespace
}  // namespace carousel
