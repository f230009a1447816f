// The fused first pass of HAMCMC's curvature subset (bpmf.hpp, CurvatureSubset): it must
// not change the minibatch gradient, and the subset's gradient must be that of the entries
// the second pass (AccumulateSubsetGradient) visits.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "carousel/model/bpmf.hpp"

namespace carousel {
namespace {

struct Tile {
  TileRatings ratings;
  Matrix w, h;
};

Tile MakeTile(int rows, int cols, int rank, bool bias, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-0.5f, 0.5f);
  std::bernoulli_distribution rated(0.3);
  Tile t;
  t.ratings.row_start.push_back(0);
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c)
      if (rated(rng)) {
        t.ratings.col.push_back(static_cast<std::uint32_t>(c));
        t.ratings.value.push_back(1.0f + 4.0f * (u(rng) + 0.5f));
      }
    t.ratings.row_start.push_back(static_cast<std::uint32_t>(t.ratings.col.size()));
  }
  const int width = rank + (bias ? 1 : 0);
  t.w = Matrix::NullaryExpr(rows, width, [&] { return u(rng); });
  t.h = Matrix::NullaryExpr(cols, width, [&] { return u(rng); });
  return t;
}

void ExpectFusedPassIsTwoPasses(int rank, bool bias, double minibatch, double fraction) {
  const Tile t = MakeTile(40, 30, rank, bias, 5);
  const BpmfShape shape{rank, bias};
  const Subsample batch = Subsample::For(minibatch, 3, 1, 7);
  Matrix plain_w = Matrix::Zero(t.w.rows(), t.w.cols()),
         plain_h = Matrix::Zero(t.h.rows(), t.h.cols());
  const TileGradientResult plain =
      AccumulateTileGradient(t.ratings, t.w, t.h, shape, 3.5f, 2.0f, batch, plain_w, plain_h);

  CurvatureSubset subset;
  subset.subset = SystematicSubset::For(fraction, 11, 1, 7);
  Matrix fused_w = Matrix::Zero(t.w.rows(), t.w.cols()),
         fused_h = Matrix::Zero(t.h.rows(), t.h.cols());
  const TileGradientResult fused = AccumulateTileGradient(t.ratings, t.w, t.h, shape, 3.5f, 2.0f,
                                                          batch, fused_w, fused_h, &subset);
  // The minibatch gradient is untouched by the fused subset (bitwise).
  EXPECT_EQ(fused.sse, plain.sse);
  EXPECT_EQ(fused.count, plain.count);
  EXPECT_TRUE(fused_w == plain_w);
  EXPECT_TRUE(fused_h == plain_h);

  // The subset's gradient is that of the minibatch entries it keeps, each added once.
  std::uint64_t in_subset = 0;
  for (std::uint32_t e = 0; e < t.ratings.size(); ++e)
    in_subset += batch.Keeps(e) && subset.subset.Keeps(e);
  if (fraction < 1.0) {
    EXPECT_GT(in_subset, 0u);
    EXPECT_LT(in_subset, plain.count);
  } else {
    EXPECT_EQ(in_subset, plain.count);
  }

  // A pass over the subset alone, at the same point, gives the subset's gradient (bitwise:
  // same residuals, added per row and column in the same order).
  Matrix listed_w = Matrix::Zero(t.w.rows(), t.w.cols()),
         listed_h = Matrix::Zero(t.h.rows(), t.h.cols());
  AccumulateSubsetGradient(t.ratings, subset.subset, batch, t.w, t.h, shape, 3.5f, 2.0f, listed_w,
                           listed_h);
  EXPECT_TRUE(listed_w == subset.lik_w);
  EXPECT_TRUE(listed_h == subset.lik_h);
  if (fraction >= 1.0) {
    EXPECT_TRUE(subset.lik_w == plain_w);
    EXPECT_TRUE(subset.lik_h == plain_h);
  }
}

TEST(BpmfCurvatureSubset, FusedPassMatchesSeparatePasses) {
  for (const bool bias : {true, false})
    for (const int rank : {10, 7}) {  // a compiled-in rank and the generic kernel
      ExpectFusedPassIsTwoPasses(rank, bias, 1.0, 0.25);
      ExpectFusedPassIsTwoPasses(rank, bias, 0.5, 0.4);
      ExpectFusedPassIsTwoPasses(rank, bias, 1.0, 1.0);
    }
}

// Each entry is in the systematic subset with probability 1 / stride over the keyed
// offsets (which is what scaling the subset's gradient by the stride relies on).
TEST(BpmfCurvatureSubset, EachEntryWithProbabilityOneOverStride) {
  const int iterations = 4000;
  for (const double fraction : {0.5, 0.25, 0.3}) {  // 0.3 rounds to stride 3
    const std::uint32_t stride = SystematicSubset::For(fraction, 1, 0, 0).stride;
    EXPECT_EQ(stride, static_cast<std::uint32_t>(std::lround(1.0 / fraction)));
    for (std::uint64_t entry : {0u, 1u, 17u}) {
      int kept = 0;
      for (int t = 0; t < iterations; ++t)
        kept += SystematicSubset::For(fraction, 9, 2, static_cast<std::uint64_t>(t)).Keeps(entry);
      const double p = 1.0 / stride;
      const double sd = std::sqrt(iterations * p * (1 - p));
      EXPECT_NEAR(kept, iterations * p, 5 * sd) << "stride " << stride << " entry " << entry;
    }
  }
  EXPECT_EQ(SystematicSubset::For(1.0, 1, 0, 0).stride, 1u);
}

}  // namespace
}  // namespace carousel
