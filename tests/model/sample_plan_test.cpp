#include "carousel/model/sample_plan.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace carousel {
namespace {

ChainOptions Chain(std::uint64_t iterations, std::uint64_t burn_in, std::uint64_t thin) {
  ChainOptions o;
  o.iterations = iterations;
  o.burn_in = burn_in;
  o.thin = thin;
  return o;
}

// The kept draws, by walking every iteration as the engine does.
std::vector<std::uint64_t> KeptByWalking(const ChainOptions& o) {
  std::vector<std::uint64_t> kept;
  for (std::uint64_t i = 1; i <= o.iterations; ++i)
    if (i > o.burn_in && (i % o.thin == 0 || i == o.iterations)) kept.push_back(i);
  return kept;
}

TEST(SamplePlan, KeptDrawsAreTheEnginesAtAnyOptions) {
  for (std::uint64_t iterations : {1, 2, 7, 10, 24, 100, 101})
    for (std::uint64_t burn_in = 0; burn_in < iterations; burn_in += 3)
      for (std::uint64_t thin : {1, 2, 3, 8, 10, 200}) {
        const ChainOptions o = Chain(iterations, burn_in, thin);
        const std::vector<std::uint64_t> walked = KeptByWalking(o);
        ASSERT_EQ(KeptDrawCount(o), walked.size()) << iterations << " " << burn_in << " " << thin;
        for (std::uint64_t d = 0; d < walked.size(); ++d)
          EXPECT_EQ(KeptDrawIteration(o, d), walked[d]);
        for (std::uint64_t i = 1; i <= iterations; ++i)
          EXPECT_EQ(KeepsDraw(o, i), std::find(walked.begin(), walked.end(), i) != walked.end());
      }
}

TEST(SamplePlan, SamplesAreSpreadEvenlyAndEndAtTheLastDraw) {
  for (std::uint64_t iterations : {24, 100, 1000, 1003})
    for (std::uint64_t thin : {1, 10, 7})
      for (std::uint64_t samples : {1, 2, 3, 5, 20, 99}) {
        const ChainOptions o = Chain(iterations, iterations / 4, thin);
        const std::vector<std::uint64_t> kept = KeptByWalking(o);
        const std::vector<std::uint64_t> chosen = SpreadSamples(o, samples);
        ASSERT_EQ(chosen.size(), std::min<std::uint64_t>(samples, kept.size()));
        EXPECT_EQ(chosen.back(), kept.back());
        // Positions among the kept draws: ascending, gaps that differ by at most one.
        std::vector<std::uint64_t> at;
        for (std::uint64_t i : chosen)
          at.push_back(
              static_cast<std::uint64_t>(std::find(kept.begin(), kept.end(), i) - kept.begin()));
        std::uint64_t low = ~std::uint64_t{0}, high = 0;
        for (std::size_t s = 0; s < at.size(); ++s) {
          ASSERT_LT(at[s], kept.size()) << "not a kept draw: " << chosen[s];
          const std::uint64_t gap = at[s] - (s == 0 ? ~std::uint64_t{0} : at[s - 1]);
          ASSERT_GE(gap, 1u);
          low = std::min(low, gap);
          high = std::max(high, gap);
        }
        EXPECT_LE(high - low, 1u) << iterations << " " << thin << " " << samples;
      }
}

TEST(SamplePlan, ExamplesByHand) {
  // 100 iterations, burn-in 20, thin 10: kept at 30, 40, ..., 100 (8 draws).
  const ChainOptions o = Chain(100, 20, 10);
  EXPECT_EQ(SpreadSamples(o, 4), (std::vector<std::uint64_t>{40, 60, 80, 100}));
  EXPECT_EQ(SpreadSamples(o, 3), (std::vector<std::uint64_t>{40, 70, 100}));
  EXPECT_EQ(SpreadSamples(o, 8).size(), 8u);
  EXPECT_EQ(SpreadSamples(o, 50).size(), 8u);
  EXPECT_TRUE(SpreadSamples(o, 0).empty());
  // The last iteration is kept although thin does not divide it.
  EXPECT_EQ(SpreadSamples(Chain(25, 10, 10), 5), (std::vector<std::uint64_t>{20, 25}));
}

TEST(SamplePlan, LongChainsDoNotOverflow) {
  const ChainOptions o = Chain(std::uint64_t{1} << 40, 0, 1);
  const std::vector<std::uint64_t> chosen = SpreadSamples(o, std::uint64_t{1} << 20);
  ASSERT_EQ(chosen.size(), std::size_t{1} << 20);
  EXPECT_EQ(chosen.front(), std::uint64_t{1} << 20);
  EXPECT_EQ(chosen.back(), std::uint64_t{1} << 40);
}

}  // namespace
}  // namespace carousel
