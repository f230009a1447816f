// The fused first pass of HAMCMC's curvature subset (bpmf.hpp, CurvatureSubset): it must
// not change the minibatch gradient, and the subset's gradient and entry list must be
// those of the entries it keeps, so that the second pass (AccumulateListedGradient)
// revisits exactly them.
#include <gtest/gtest.h>

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
  subset.subsample = Subsample::For(fraction, 11, 1, 7);
  Matrix fused_w = Matrix::Zero(t.w.rows(), t.w.cols()),
         fused_h = Matrix::Zero(t.h.rows(), t.h.cols());
  const TileGradientResult fused = AccumulateTileGradient(t.ratings, t.w, t.h, shape, 3.5f, 2.0f,
                                                          batch, fused_w, fused_h, &subset);
  // The minibatch gradient is untouched by the fused subset (bitwise).
  EXPECT_EQ(fused.sse, plain.sse);
  EXPECT_EQ(fused.count, plain.count);
  EXPECT_TRUE(fused_w == plain_w);
  EXPECT_TRUE(fused_h == plain_h);

  // The list holds the minibatch entries the subset keeps, in tile order.
  std::vector<TileEntry> expected;
  for (std::uint32_t r = 0; r + 1 < t.ratings.row_start.size(); ++r)
    for (std::uint32_t e = t.ratings.row_start[r]; e < t.ratings.row_start[r + 1]; ++e)
      if (batch.Keeps(e) && subset.subsample.Keeps(e)) expected.push_back({r, e});
  ASSERT_EQ(subset.entries.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(subset.entries[i].row, expected[i].row);
    EXPECT_EQ(subset.entries[i].entry, expected[i].entry);
  }
  if (fraction < 1.0) {
    EXPECT_GT(subset.entries.size(), 0u);
    EXPECT_LT(subset.entries.size(), plain.count);
  } else {
    EXPECT_EQ(subset.entries.size(), plain.count);
  }

  // A listed pass over those entries at the same point gives the subset's gradient
  // (bitwise: same residuals, added per row and column in the same order).
  Matrix listed_w = Matrix::Zero(t.w.rows(), t.w.cols()),
         listed_h = Matrix::Zero(t.h.rows(), t.h.cols());
  AccumulateListedGradient(t.ratings, subset.entries, t.w, t.h, shape, 3.5f, 2.0f, listed_w,
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

}  // namespace
}  // namespace carousel
