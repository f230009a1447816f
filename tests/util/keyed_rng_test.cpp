#include "carousel/util/keyed_rng.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace carousel {
namespace {

TEST(KeyedRng, SameKeyGivesSameNumbers) {
  KeyedStream a(5, Purpose::kNoiseRow, 1234, 77), b(5, Purpose::kNoiseRow, 1234, 77);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(a.normal(), b.normal());
}

TEST(KeyedRng, EveryKeyPartMatters) {
  const double base = KeyedStream(5, Purpose::kNoiseRow, 1234, 77).uniform();
  EXPECT_NE(base, KeyedStream(6, Purpose::kNoiseRow, 1234, 77).uniform());
  EXPECT_NE(base, KeyedStream(5, Purpose::kNoiseCol, 1234, 77).uniform());
  EXPECT_NE(base, KeyedStream(5, Purpose::kNoiseRow, 1235, 77).uniform());
  EXPECT_NE(base, KeyedStream(5, Purpose::kNoiseRow, 1234, 78).uniform());
}

// FillUniform hands out the numbers of uniform(), in order, wherever in a block it starts
// and however many it takes; a stream used both ways stays on one sequence. The sizes reach
// fills of 8 and of 32 whole blocks and more (util/philox_lanes.hpp's vector paths).
TEST(KeyedRng, FillUniformContinuesTheStream) {
  KeyedStream one_by_one(9, Purpose::kGibbs, 42, 3), filled(9, Purpose::kGibbs, 42, 3);
  std::vector<double> buffer;
  for (std::size_t n : {0, 1, 2, 3, 4, 5, 7, 8, 9, 13, 0, 16, 1, 30, 33, 131, 600, 2}) {
    buffer.assign(n, -1.0);
    filled.FillUniform(buffer.data(), n);
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(buffer[i], one_by_one.uniform()) << n << " " << i;
    ASSERT_EQ(filled.bits(), one_by_one.bits());  // and single draws continue after it
  }
}

// FillBits likewise hands out the numbers of bits(), from a stream whose id and iteration
// use their high bits.
TEST(KeyedRng, FillBitsContinuesTheStream) {
  const std::uint64_t id = 0xffffffffffULL, iteration = (1ULL << 50) + 3;
  KeyedStream one_by_one(~0ULL, Purpose::kGibbs, id, iteration),
      filled(~0ULL, Purpose::kGibbs, id, iteration);
  std::vector<std::uint64_t> buffer;
  for (std::size_t n : {3, 40, 129, 1, 600, 31, 0, 64}) {
    buffer.assign(n, 0);
    filled.FillBits(buffer.data(), n);
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(buffer[i], one_by_one.bits()) << n << " " << i;
  }
  ASSERT_EQ(filled.bits(), one_by_one.bits());
}

// Moments of n draws against their exact values, within 5 standard errors.
TEST(KeyedRng, NormalAndGammaMoments) {
  const int n = 200000;
  KeyedStream s(1, Purpose::kTest, 0, 0);
  double sum = 0, sum_sq = 0;
  for (int i = 0; i < n; ++i) {
    const double x = s.normal();
    sum += x;
    sum_sq += x * x;
  }
  EXPECT_NEAR(sum / n, 0.0, 5 * std::sqrt(1.0 / n));
  EXPECT_NEAR(sum_sq / n, 1.0, 5 * std::sqrt(2.0 / n));  // Var(x^2) = 2

  for (double shape : {0.01, 0.5, 3.0, 1000.0}) {
    double g = 0, g2 = 0;
    for (int i = 0; i < n; ++i) {
      // For tiny shapes a Gamma variate can lie below the smallest double (P(X < 1e-308)
      // is about 8e-4 at shape 0.01), so gamma() may return 0; its log never underflows.
      const double log_x = s.log_gamma_variate(shape);
      ASSERT_TRUE(std::isfinite(log_x));
      const double x = std::exp(log_x);
      g += x;
      g2 += x * x;
    }
    EXPECT_NEAR(g / n, shape, 5 * std::sqrt(shape / n)) << "shape " << shape;
    const double var = g2 / n - (g / n) * (g / n);
    // Var of the sample variance of a Gamma(k): (mu4 - k^2)/n with mu4 = 3k^2 + 6k.
    EXPECT_NEAR(var, shape, 5 * std::sqrt((2 * shape * shape + 6 * shape) / n)) << shape;
  }
}

TEST(KeyedRng, BelowIsUniform) {
  KeyedStream s(2, Purpose::kTest, 0, 0);
  const int n = 70000, k = 7;
  std::vector<int> counts(k, 0);
  for (int i = 0; i < n; ++i) counts[s.below(k)]++;
  const double expected = static_cast<double>(n) / k;
  for (int c : counts) EXPECT_NEAR(c, expected, 5 * std::sqrt(expected));
}

}  // namespace
}  // namespace carousel
