// The fused first pass of HAMCMC's curvature subset (bpmf.hpp, CurvatureSubset): it must
// not change the minibatch gradient, and the subset's gradient must be that of the entries
// the second pass (AccumulateSubsetGradient) visits.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "carousel/model/bpmf/bpmf.hpp"

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
    // Compiled-in ranks (their plain pass is the vector one, bpmf.cpp, where the CPU has
    // AVX-512VL; the fused pass is scalar) and the generic kernel.
    for (const int rank : {5, 8, 10, 16, 20, 32, 50, 64, 100, 7}) {
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

// The Fisher sums of the subset pass (HAMCMC's --initial-metric fisher) against a direct
// sum over the entries the pass visits: tau h_jf^2 into w_if, tau w_if^2 into h_jf, tau into
// both biases; the gradient is the same bits as without them.
TEST(BpmfCurvatureSubset, FisherSumsAreTheVisitedEntriesInformation) {
  const float tau = 2.0f;
  for (const bool bias : {true, false})
    for (const int rank : {10, 7}) {
      const Tile t = MakeTile(40, 30, rank, bias, 8);
      const BpmfShape shape{rank, bias};
      const Subsample batch = Subsample::For(0.5, 3, 1, 7);
      const SystematicSubset subset = SystematicSubset::For(0.25, 11, 1, 7);
      Matrix w_plain = Matrix::Zero(t.w.rows(), t.w.cols()),
             h_plain = Matrix::Zero(t.h.rows(), t.h.cols());
      AccumulateSubsetGradient(t.ratings, subset, batch, t.w, t.h, shape, 3.5f, tau, w_plain,
                               h_plain);
      Matrix w_lik = Matrix::Zero(t.w.rows(), t.w.cols()),
             h_lik = Matrix::Zero(t.h.rows(), t.h.cols());
      FisherSums fisher;
      fisher.w = Matrix::Constant(3, 3, 9.0f);  // stale contents are cleared
      AccumulateSubsetGradient(t.ratings, subset, batch, t.w, t.h, shape, 3.5f, tau, w_lik, h_lik,
                               &fisher);
      EXPECT_TRUE(w_lik == w_plain);
      EXPECT_TRUE(h_lik == h_plain);

      Eigen::MatrixXd want_w = Eigen::MatrixXd::Zero(t.w.rows(), t.w.cols());
      Eigen::MatrixXd want_h = Eigen::MatrixXd::Zero(t.h.rows(), t.h.cols());
      int visited = 0;
      for (Eigen::Index r = 0; r < t.w.rows(); ++r)
        for (std::uint32_t e = t.ratings.row_start[r]; e < t.ratings.row_start[r + 1]; ++e) {
          if (!subset.Keeps(e) || !batch.Keeps(e)) continue;
          ++visited;
          const std::uint32_t c = t.ratings.col[e];
          for (int f = 0; f < rank; ++f) {
            want_w(r, f) += tau * double(t.h(c, f)) * t.h(c, f);
            want_h(c, f) += tau * double(t.w(r, f)) * t.w(r, f);
          }
          if (bias) {
            want_w(r, rank) += tau;
            want_h(c, rank) += tau;
          }
        }
      ASSERT_GT(visited, 10);
      ASSERT_EQ(fisher.w.rows(), t.w.rows());
      ASSERT_EQ(fisher.h.rows(), t.h.rows());
      EXPECT_LT((fisher.w.cast<double>() - want_w).cwiseAbs().maxCoeff(), 1e-5);
      EXPECT_LT((fisher.h.cast<double>() - want_h).cwiseAbs().maxCoeff(), 1e-5);
    }
}

}  // namespace
}  // namespace carousel
