// The convergence diagnostics (util/mcmc_diagnostics.hpp) on cases with known answers:
// - exact values: type 7 quantiles, the normal quantile, ranks with ties, the split, and a
//   small fixed case whose figures R's posterior 1.4.0 computed;
// - statistical: iid and AR(1) chains, whose effective sample size is known
//   (S (1 - phi) / (1 + phi) for AR(1)), checked over replicates with tolerances from the
//   replicates' spread (DESIGN.md section 5; Replicates::Tolerance); and chains that have
//   not mixed (different means, different scales), which R-hat must flag;
// - a negative control: R-hat without the split misses a trend that every chain shares.
#include "carousel/util/mcmc_diagnostics.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace carousel::mcmc {
namespace {

TEST(McmcQuantile, RType7) {
  const std::vector<double> x = {4.0, 1.0, 3.0, 2.0};
  EXPECT_DOUBLE_EQ(Quantile(x, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(Quantile(x, 0.05), 1.15);  // h = 3 * 0.05
  EXPECT_DOUBLE_EQ(Quantile(x, 0.5), 2.5);
  EXPECT_DOUBLE_EQ(Quantile(x, 0.95), 3.85);
  EXPECT_DOUBLE_EQ(Quantile(x, 1.0), 4.0);
  EXPECT_DOUBLE_EQ(Quantile({7.0}, 0.3), 7.0);
  EXPECT_TRUE(std::isnan(Quantile({}, 0.5)));
}

TEST(McmcNormalQuantile, KnownValuesAndInverse) {
  EXPECT_EQ(NormalQuantile(0.5), 0.0);
  EXPECT_NEAR(NormalQuantile(0.975), 1.959963984540054, 1e-14);
  EXPECT_NEAR(NormalQuantile(0.025), -1.959963984540054, 1e-14);
  EXPECT_NEAR(NormalQuantile(1e-10), -6.361340902404056, 1e-12);
  EXPECT_NEAR(NormalQuantile(0.8413447460685429), 1.0, 1e-14);
  for (double p = 1e-6; p < 1.0; p += 0.0123) {
    const double x = NormalQuantile(p);
    EXPECT_NEAR(0.5 * std::erfc(-x / std::sqrt(2.0)), p, 1e-15 + 1e-13 * p) << p;
    // 1 - p itself is rounded (by up to 1e-16, relative 1e-10 at p = 1e-6).
    EXPECT_NEAR(NormalQuantile(1.0 - p), -x, 1e-9) << p;
  }
  EXPECT_EQ(NormalQuantile(0.0), -INFINITY);
  EXPECT_EQ(NormalQuantile(1.0), INFINITY);
  EXPECT_TRUE(std::isnan(NormalQuantile(1.5)));
}

TEST(McmcSplit, HalvesWithTheMiddleOfAnOddChainLeftOut) {
  const Chains split = SplitChains({{1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}});
  EXPECT_EQ(split, (Chains{{1, 2}, {6, 7}, {4, 5}, {9, 10}}));
  EXPECT_EQ(SplitChains({{1, 2, 3, 4}}), (Chains{{1, 2}, {3, 4}}));
}

TEST(McmcRankNormalize, AverageRanksForTies) {
  // S = 6 draws: 1, 2, 2, 3, 5, 9 have ranks 1, 2.5, 2.5, 4, 5, 6.
  const Chains z = RankNormalize({{3.0, 1.0, 9.0}, {2.0, 2.0, 5.0}});
  const auto phi_inv = [](double r) { return NormalQuantile((r - 0.375) / 6.25); };
  EXPECT_EQ(z, (Chains{{phi_inv(4.0), phi_inv(1.0), phi_inv(6.0)},
                       {phi_inv(2.5), phi_inv(2.5), phi_inv(5.0)}}));
}

// 3 chains x 13 draws (odd, so the split leaves out each middle draw; 0.333 four times and
// 0.512 twice, ties). The expected figures are R's posterior 1.4.0 (rhat, ess_bulk,
// ess_tail, ess_quantile, ess_mean, mcse_mean, quantile2, sd; .rhat for the unsplit one).
TEST(McmcSummary, MatchesPosteriorOnASmallCase) {
  const Chains x = {{0.512, -1.204, 0.333, 0.871, 1.402, 0.333, -0.250, 0.951, 1.774, 0.102, -0.640,
                     2.015, 1.105},
                    {0.020, 0.845, 1.390, -0.118, 0.702, 0.455, 1.861, 0.333, 2.230, 0.981, 1.517,
                     -0.430, -0.912},
                    {-1.560, -0.205, 0.333, -1.101, 0.640, -0.018, -0.777, -1.333, 0.266, -0.544,
                     0.071, 0.512, -1.204}};
  const double tol = 1e-12;
  EXPECT_NEAR(Rhat(x), 1.0953906149868979, tol);
  EXPECT_NEAR(EssBulk(x), 28.67760474164097, 1e-10);
  EXPECT_NEAR(EssTail(x), 41.21052631578948, 1e-10);
  EXPECT_NEAR(EssQuantile(x, 0.05), 41.21052631578948, 1e-10);
  EXPECT_NEAR(EssQuantile(x, 0.95), 56.026890027622343, 1e-10);
  EXPECT_NEAR(EssMean(x), 31.282841602788817, 1e-10);
  EXPECT_NEAR(McseMean(x), 0.17422491224327535, tol);
  EXPECT_NEAR(PotentialScaleReduction(x), 1.1695678394814171, tol);
  const Summary s = Summarize(x);
  EXPECT_NEAR(s.mean, 0.28866666666666668, tol);
  EXPECT_NEAR(s.sd, 0.97445850910385723, tol);
  EXPECT_NEAR(s.q5, -1.2168999999999999, tol);
  EXPECT_NEAR(s.q50, 0.333, tol);
  EXPECT_NEAR(s.q95, 1.8764000000000003, tol);
  EXPECT_EQ(s.rhat, Rhat(x));
  EXPECT_EQ(s.ess_bulk, EssBulk(x));
  EXPECT_EQ(s.ess_tail, EssTail(x));
  EXPECT_EQ(s.mcse_mean, McseMean(x));
}

TEST(McmcSummary, ConstantDrawsHaveNoDiagnostics) {
  const Chains x(4, std::vector<double>(50, 2.5));
  const Summary s = Summarize(x);
  EXPECT_EQ(s.mean, 2.5);
  EXPECT_EQ(s.sd, 0.0);
  EXPECT_EQ(s.q5, 2.5);
  EXPECT_EQ(s.q95, 2.5);
  EXPECT_TRUE(std::isnan(s.rhat));
  EXPECT_TRUE(std::isnan(s.ess_bulk));
  EXPECT_TRUE(std::isnan(s.ess_tail));
  EXPECT_TRUE(std::isnan(s.mcse_mean));
  // Constant within each chain but not across them: the bulk R-hat is enormous (no
  // within-chain variance but rounding); the folded draws are all 0.5, so there is no tail
  // R-hat and, as in posterior, no R-hat (NA). All draws are <= their q95, so no tail ESS;
  // posterior's bulk ESS is 2.5.
  const Chains stuck = {std::vector<double>(50, 1.0), std::vector<double>(50, 2.0)};
  EXPECT_GT(RhatBulk(stuck), 1e6);
  EXPECT_TRUE(std::isnan(EssTail(stuck)));
  EXPECT_TRUE(std::isnan(RhatTail(stuck)));
  EXPECT_TRUE(std::isnan(Rhat(stuck)));
  EXPECT_NEAR(EssBulk(stuck), 2.5, 1e-12);
  // A NaN draw: no diagnostics.
  Chains with_nan(2, std::vector<double>(50, 0.0));
  for (std::size_t i = 0; i < 50; ++i) with_nan[0][i] = with_nan[1][i] = static_cast<double>(i);
  with_nan[1][7] = NAN;
  EXPECT_TRUE(std::isnan(Rhat(with_nan)));
  EXPECT_TRUE(std::isnan(EssBulk(with_nan)));
}

// ---------------------------------------------------------------------------------------
// Statistical tests.

// M chains of N draws of a stationary Gaussian AR(1) with coefficient phi (phi = 0: iid),
// mean `means[c]` and innovation sd `scales[c]` for chain c.
Chains Ar1Chains(std::size_t m, std::size_t n, double phi, std::uint64_t seed,
                 const std::vector<double>& means = {}, const std::vector<double>& scales = {}) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  Chains chains(m, std::vector<double>(n));
  for (std::size_t c = 0; c < m; ++c) {
    double x = normal(rng) / std::sqrt(1.0 - phi * phi);
    for (std::size_t i = 0; i < n; ++i) {
      x = phi * x + normal(rng);
      chains[c][i] =
          (c < means.size() ? means[c] : 0.0) + (c < scales.size() ? scales[c] : 1.0) * x;
    }
  }
  return chains;
}

// An estimator's replicates: their mean, standard error of the mean, and sd.
struct Replicates {
  double mean = 0.0, se = 0.0, sd = 0.0;

  // How far the mean may be from the true value: 4 standard errors, plus half the sd of one
  // estimate for the estimator's own bias. Geyer's sequence is cut where a pair of
  // autocorrelation estimates first turns negative, so noise that keeps a pair positive is
  // summed and noise that turns it negative is not: tau is overestimated by a fraction of
  // the sd of one estimate (about a quarter for iid draws, an ESS 0.7% low at S = 16000).
  // Both shrink as 1/sqrt(S), so the estimate is right within its Monte Carlo error.
  double Tolerance() const { return 4.0 * se + 0.5 * sd; }
};

// `statistic` over independent replicates.
template <class F>
Replicates OverReplicates(int replicates, std::uint64_t seed, F statistic) {
  std::vector<double> v;
  for (int r = 0; r < replicates; ++r) v.push_back(statistic(seed + 7919 * r));
  Replicates out;
  for (double x : v) out.mean += x / replicates;
  double ss = 0.0;
  for (double x : v) ss += (x - out.mean) * (x - out.mean);
  out.sd = std::sqrt(ss / (replicates - 1));
  out.se = out.sd / std::sqrt(replicates);
  return out;
}

constexpr std::size_t kChains = 4;
constexpr std::size_t kDraws = 4000;
constexpr int kReplicates = 40;

// The relative ESS (ESS / S) of AR(1) chains: (1 - phi) / (1 + phi), the inverse of the
// integrated autocorrelation time 1 + 2 sum_k phi^k.
double Ar1RelativeEss(double phi) {
  return (1.0 - phi) / (1.0 + phi);
}

class McmcAr1Ess : public testing::TestWithParam<double> {};

TEST_P(McmcAr1Ess, MeanAndBulkEssMatchTheIntegratedAutocorrelationTime) {
  const double phi = GetParam();
  const double s = static_cast<double>(kChains * kDraws);
  const double expected = Ar1RelativeEss(phi);
  const Replicates mean_ess = OverReplicates(kReplicates, 11, [&](std::uint64_t seed) {
    return EssMean(Ar1Chains(kChains, kDraws, phi, seed)) / s;
  });
  // The chains are Gaussian, so the rank normalisation changes them little: the bulk ESS
  // estimates the same autocorrelation time.
  const Replicates bulk_ess = OverReplicates(kReplicates, 12, [&](std::uint64_t seed) {
    return EssBulk(Ar1Chains(kChains, kDraws, phi, seed)) / s;
  });
  EXPECT_NEAR(mean_ess.mean, expected, mean_ess.Tolerance())
      << "phi " << phi << ": mean ESS/S " << mean_ess.mean << " +- " << mean_ess.se;
  EXPECT_NEAR(bulk_ess.mean, expected, bulk_ess.Tolerance())
      << "phi " << phi << ": bulk ESS/S " << bulk_ess.mean << " +- " << bulk_ess.se;
  // The test has power: ignoring the autocorrelation (ESS = S) is rejected for phi != 0.
  if (phi != 0.0) {
    EXPECT_GT(std::abs(mean_ess.mean - 1.0), mean_ess.Tolerance());
  }
}

// phi = 0: iid draws (ESS near S); 0.5 and 0.9: integrated autocorrelation times 3 and 19;
// -0.5: antithetic chains, ESS 3 S (the last-term correction keeps it from being capped).
INSTANTIATE_TEST_SUITE_P(Phi, McmcAr1Ess, testing::Values(0.0, 0.5, 0.9, -0.5));

TEST(McmcRhat, IidChainsAreNearOne) {
  // For iid chains R-hat^2 = (N-1)/N + F/N with F = B/W ~ F(2M - 1, 2M(N/2 - 1)) for the
  // split chains of N/2 draws, so R-hat - 1 has sd about sqrt(2 / (2M - 1)) / N.
  const double sd = std::sqrt(2.0 / (2.0 * kChains - 1.0)) / (kDraws / 2.0);
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    const Chains x = Ar1Chains(kChains, kDraws, 0.0, seed);
    EXPECT_NEAR(Rhat(x), 1.0, 5.0 * sd) << seed;
    EXPECT_LT(Rhat(x), 1.01);
  }
}

TEST(McmcEssTail, IidChainsHaveQuantileEssNearTheirDraws) {
  // The indicators I(x <= q) of iid draws are iid, so their ESS is S. (The tail ESS, the
  // smaller of two such estimates, is biased low by the minimum; each one is not.)
  const double s = static_cast<double>(kChains * kDraws);
  for (double p : {0.05, 0.95}) {
    const Replicates ess = OverReplicates(kReplicates, 13, [&](std::uint64_t seed) {
      return EssQuantile(Ar1Chains(kChains, kDraws, 0.0, seed), p) / s;
    });
    EXPECT_NEAR(ess.mean, 1.0, ess.Tolerance())
        << "p " << p << ": ESS/S " << ess.mean << " +- " << ess.se;
  }
}

TEST(McmcRhat, ChainsWithDifferentMeansAreFlagged) {
  const Chains x = Ar1Chains(kChains, 1000, 0.0, 3, {0.0, 0.0, 0.0, 1.0});
  // Between-chain variance of the means about 1/4 against a within variance of 1.
  EXPECT_GT(Rhat(x), 1.05);
  EXPECT_GT(RhatBulk(x), 1.05);
}

TEST(McmcRhat, ChainsWithDifferentScalesAreFlaggedByTheTailRhat) {
  // Same mean, one chain three times wider: the bulk R-hat hardly sees it, the folded
  // (tail) R-hat does (Vehtari et al. 2021, Sec. 4.2).
  const Chains x = Ar1Chains(kChains, 1000, 0.0, 4, {}, {1.0, 1.0, 1.0, 3.0});
  EXPECT_LT(RhatBulk(x), 1.01);
  EXPECT_GT(RhatTail(x), 1.05);
  EXPECT_EQ(Rhat(x), RhatTail(x));
}

// The negative control: a drift shared by every chain (a chain still warming up). Whole
// chains all look alike, so R-hat without the split stays near 1 and misses it; the split
// R-hat compares first halves with second halves and flags it.
TEST(McmcRhat, TheSplitCatchesATrendThatUnsplitRhatMisses) {
  Chains x = Ar1Chains(kChains, 1000, 0.0, 5);
  for (std::vector<double>& chain : x)
    for (std::size_t i = 0; i < chain.size(); ++i)
      chain[i] += 2.0 * static_cast<double>(i) / 1000.0;
  const double unsplit = PotentialScaleReduction(RankNormalize(x));
  EXPECT_LT(unsplit, 1.01) << "the unsplit R-hat was expected to miss the trend";
  EXPECT_GT(Rhat(x), 1.05);
}

}  // namespace
}  // namespace carousel::mcmc
