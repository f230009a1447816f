// The drift a model applies inside its gradient pass (RowDriftSink with the sampler's
// MatchedDriftTerms, sampler/row_drift.hpp) must move a row exactly as Sgrld::DriftRow does
// through the expected-Fisher metric: the same bits of the row, of the moment change and of
// the clock, so that fusing it into the pass cannot change a chain. Controls: a sink given
// the rating counts of another block moves the rows differently, and samplers or metrics
// without the matched form get no terms (they keep the call through DriftRow).
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "carousel/model/bpmf/bpmf.hpp"
#include "carousel/model/bpmf/bpmf_metric.hpp"
#include "carousel/sampler/sgrld.hpp"
#include "carousel/util/error.hpp"

namespace carousel {
namespace {

constexpr Eigen::Index kRows = 50, kCols = 33;  // K = 32 and a bias, as `carousel mf` runs
constexpr double kStep = 0.0375;                // mf's default step at 16 tiles

struct Fixture {
  Matrix theta = Matrix::Zero(kRows, kCols);
  Matrix lik = Matrix::Zero(kRows, kCols);
  Eigen::VectorXf prior = Eigen::VectorXf::Zero(kCols);
  Eigen::VectorXf counts = Eigen::VectorXf::Zero(kRows);
  Eigen::VectorXf information = Eigen::VectorXf::Zero(kCols);
  Fixture() {
    std::mt19937 rng(11);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::uniform_real_distribution<float> positive(0.1f, 3.0f);
    for (Eigen::Index r = 0; r < kRows; ++r) {
      counts[r] = static_cast<float>(1 + r * 7 % 90);
      for (Eigen::Index c = 0; c < kCols; ++c) {
        theta(r, c) = 0.3f * normal(rng);
        lik(r, c) = 5.0f * normal(rng);
      }
    }
    for (Eigen::Index c = 0; c < kCols; ++c) {
      prior[c] = positive(rng);
      information[c] = 0.05f * positive(rng);
    }
  }
  BlockGradient Gradient(const Eigen::VectorXf* row_counts) const {
    return BlockGradient{lik, 12.5, 4000.0, prior, row_counts, nullptr, &information};
  }
};

BlockState Block(const Matrix& theta) {
  BlockState block{theta, {}};
  block.row_clock.assign(static_cast<std::size_t>(kRows), 3);
  return block;
}

bool SameBits(const float* a, const float* b, std::size_t n) {
  return std::memcmp(a, b, n * sizeof(float)) == 0;
}

TEST(MatchedRowDrift, SinkMovesRowsAsDriftRowDoesBitForBit) {
  const Fixture f;
  const Sgrld sampler(std::make_shared<ExpectedFisherMetric>(), /*ou=*/true);
  const BlockGradient gradient = f.Gradient(&f.counts);
  ASSERT_TRUE(sampler.MatchedDriftTerms(gradient, kStep).has_value());

  BlockState called = Block(f.theta), fused = Block(f.theta);
  std::vector<double> called_moment(kCols, 0.25), fused_moment(kCols, 0.25);
  RowDriftSink sink(sampler, fused, gradient, kStep, fused_moment.data());
  for (Eigen::Index r = 0; r < kRows; r += 2) {  // every other row, as a tile's rows with data
    EXPECT_TRUE(
        sampler.DriftRow(called, gradient, kStep, r, f.lik.row(r).data(), called_moment.data()));
    sink(r, f.lik.row(r).data());
  }
  EXPECT_TRUE(sink.finite());
  EXPECT_TRUE(SameBits(called.theta.data(), fused.theta.data(),
                       static_cast<std::size_t>(called.theta.size())));
  EXPECT_EQ(std::memcmp(called_moment.data(), fused_moment.data(), kCols * sizeof(double)), 0);
  EXPECT_EQ(called.row_clock, fused.row_clock);
  EXPECT_FALSE(SameBits(f.theta.data(), fused.theta.data(),
                        static_cast<std::size_t>(f.theta.size())));  // the rows did move
}

TEST(MatchedRowDrift, DriftRowsOfAListMatchesRowByRow) {
  const Fixture f;
  const Sgrld sampler(std::make_shared<ExpectedFisherMetric>(), /*ou=*/true);
  const BlockGradient gradient = f.Gradient(&f.counts);
  BlockState listed = Block(f.theta), single = Block(f.theta);
  const std::vector<std::uint32_t> rows{0, 3, 4, 17, 49};
  EXPECT_TRUE(sampler.DriftRows(listed, gradient, kStep, rows, nullptr));
  for (std::uint32_t r : rows)
    sampler.DriftRow(single, gradient, kStep, r, f.lik.row(r).data(), nullptr);
  EXPECT_TRUE(SameBits(listed.theta.data(), single.theta.data(),
                       static_cast<std::size_t>(listed.theta.size())));
  EXPECT_EQ(listed.row_clock, single.row_clock);
}

// Control: the test above sees a wrong data count (every row's n off by one).
TEST(MatchedRowDrift, ASinkWithOtherCountsIsSeen) {
  const Fixture f;
  const Sgrld sampler(std::make_shared<ExpectedFisherMetric>(), /*ou=*/true);
  const BlockGradient gradient = f.Gradient(&f.counts);
  const Eigen::VectorXf other = f.counts.array() + 1.0f;
  const BlockGradient other_gradient = f.Gradient(&other);
  BlockState called = Block(f.theta), fused = Block(f.theta);
  RowDriftSink sink(sampler, fused, other_gradient, kStep, nullptr);
  for (Eigen::Index r = 0; r < kRows; ++r) {
    sampler.DriftRow(called, gradient, kStep, r, f.lik.row(r).data(), nullptr);
    sink(r, f.lik.row(r).data());
  }
  EXPECT_FALSE(SameBits(called.theta.data(), fused.theta.data(),
                        static_cast<std::size_t>(called.theta.size())));
}

// A tile of `rows` rows (every fifth without ratings) over `cols` columns, 1 to 7 ratings a row.
TileRatings RandomTile(std::uint32_t rows, std::uint32_t cols, std::mt19937& rng) {
  TileRatings tile;
  tile.row_start.push_back(0);
  std::uniform_int_distribution<std::uint32_t> col(0, cols - 1);
  for (std::uint32_t r = 0; r < rows; ++r) {
    const std::uint32_t ratings = r % 5 == 0 ? 0 : 1 + r % 7;
    for (std::uint32_t i = 0; i < ratings; ++i) {
      tile.col.push_back(col(rng));
      tile.value.push_back(static_cast<float>(1 + (r + i) % 5));
    }
    tile.row_start.push_back(static_cast<std::uint32_t>(tile.col.size()));
  }
  tile.FindRowsAndColumnsWithData(cols);
  return tile;
}

// What `carousel mf` does at a tile where rows sit out with deferred noise: the gradient pass
// hands each row's gradient to the sink as soon as the row's ratings are summed. It must give
// the bits of the plain pass followed by DriftRow on every row with data: the rows, the metric's moment sums, the clocks, H's gradient and the SSE. At
// K = 32 with a bias (five vectors, the last holding one float), K = 10 with a bias and K = 16
// without (two whole vectors).
TEST(MatchedRowDrift, GradientPassWithTheSinkDriftsAsDriftRowBitForBit) {
  const Sgrld sampler(std::make_shared<ExpectedFisherMetric>(), /*ou=*/true);
  for (const BpmfShape shape : {BpmfShape{32, true}, BpmfShape{10, true}, BpmfShape{16, false}}) {
    SCOPED_TRACE("K = " + std::to_string(shape.rank) + (shape.bias ? " with a bias" : ""));
    std::mt19937 rng(5);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::uniform_real_distribution<float> positive(0.1f, 3.0f);
    const std::uint32_t rows = 61, cols = 23;
    const int width = shape.width();
    const TileRatings tile = RandomTile(rows, cols, rng);
    Matrix w(rows, width), h(cols, width);
    for (Eigen::Index i = 0; i < w.size(); ++i) w.data()[i] = 0.3f * normal(rng);
    for (Eigen::Index i = 0; i < h.size(); ++i) h.data()[i] = 0.3f * normal(rng);
    Eigen::VectorXf prior(width), information(width), counts(rows);
    for (int c = 0; c < width; ++c) {
      prior[c] = positive(rng);
      information[c] = 0.05f * positive(rng);
    }
    for (std::uint32_t r = 0; r < rows; ++r) counts[r] = static_cast<float>(1 + r * 7 % 90);
    const Subsample all = Subsample::For(1.0, 1, 0, 0);
    const auto run = [&](bool fused, double step, BlockState& block, std::vector<double>& moment,
                         Matrix& lik_h) {
      Matrix lik_w = Matrix::Zero(rows, width);
      lik_h.setZero(cols, width);
      const BlockGradient gradient{lik_w, 12.5, 4000.0, prior, &counts, nullptr, &information};
      if (!fused) {
        const TileGradientResult result =
            AccumulateTileGradient(tile, block.theta, h, shape, 3.5f, 1.3f, all, lik_w, lik_h);
        for (std::uint32_t r : tile.rows_with_data)
          sampler.DriftRow(block, gradient, step, r, lik_w.row(r).data(), moment.data());
        return result.sse;
      }
      RowDriftSink sink(sampler, block, gradient, step, moment.data());
      const TileGradientResult result = AccumulateTileGradient(
          tile, block.theta, h, shape, 3.5f, 1.3f, all, lik_w, lik_h, nullptr, &sink);
      EXPECT_TRUE(sink.finite());
      return result.sse;
    };
    BlockState plain{w, {}}, fused{w, {}}, other{w, {}};
    for (BlockState* b : {&plain, &fused, &other}) b->row_clock.assign(rows, 3);
    std::vector<double> plain_moment(width + 1, 0.25), fused_moment = plain_moment,
                                                       other_moment = plain_moment;
    Matrix plain_h, fused_h, other_h;
    const double plain_sse = run(false, kStep, plain, plain_moment, plain_h);
    EXPECT_EQ(run(true, kStep, fused, fused_moment, fused_h), plain_sse);
    EXPECT_TRUE(SameBits(plain.theta.data(), fused.theta.data(),
                         static_cast<std::size_t>(plain.theta.size())));
    EXPECT_EQ(std::memcmp(plain_moment.data(), fused_moment.data(), width * sizeof(double)), 0);
    EXPECT_EQ(plain_moment[width], 0.25) << "the count entry is not the drift's";
    EXPECT_EQ(plain.row_clock, fused.row_clock);
    EXPECT_TRUE(SameBits(plain_h.data(), fused_h.data(), static_cast<std::size_t>(h.size())));
    // Control: the comparison sees a drift of another step, in the rows and in the moments.
    run(true, 1.01 * kStep, other, other_moment, other_h);
    EXPECT_FALSE(SameBits(plain.theta.data(), other.theta.data(),
                          static_cast<std::size_t>(plain.theta.size())));
    EXPECT_NE(std::memcmp(plain_moment.data(), other_moment.data(), width * sizeof(double)), 0);
  }
}

// A row that overflows in the gradient pass's drift is reported.
TEST(MatchedRowDrift, GradientPassWithTheSinkReportsARowThatOverflows) {
  const Sgrld sampler(std::make_shared<ExpectedFisherMetric>(), /*ou=*/true);
  std::mt19937 rng(6);
  const BpmfShape shape{32, true};
  const TileRatings tile = RandomTile(12, 9, rng);
  Matrix w = Matrix::Constant(12, shape.width(), 0.1f),
         h = Matrix::Constant(9, shape.width(), 0.1f);
  const Eigen::VectorXf prior = Eigen::VectorXf::Constant(shape.width(), 1.0f);
  const Eigen::VectorXf information = Eigen::VectorXf::Constant(shape.width(), 0.01f);
  const Eigen::VectorXf counts = Eigen::VectorXf::Constant(12, 3.0f);
  Matrix lik_w, lik_h = Matrix::Zero(9, shape.width());
  const auto finite_after = [&](float rating) {
    TileRatings t = tile;
    std::fill(t.value.begin(), t.value.end(), rating);
    BlockState block{w, {}};
    block.row_clock.assign(12, 0);
    const BlockGradient gradient{lik_w, 1e30, 1.0, prior, &counts, nullptr, &information};
    RowDriftSink sink(sampler, block, gradient, kStep, nullptr);
    AccumulateTileGradient(t, block.theta, h, shape, 0.0f, 1.0f, Subsample::For(1.0, 1, 0, 0),
                           lik_w, lik_h, nullptr, &sink);
    return sink.finite();
  };
  EXPECT_TRUE(finite_after(0.0f));  // residuals near zero: scale 1e30 times ~0.01 stays finite
  EXPECT_FALSE(finite_after(1e10f));
}

TEST(MatchedRowDrift, OnlyTheMatchedFormGetsTerms) {
  const Fixture f;
  const BlockGradient gradient = f.Gradient(&f.counts);
  // The rating-count metric does not approximate the precision: SGRLD does not defer its noise.
  EXPECT_FALSE(Sgrld(std::make_shared<RatingCountMetric>(), true)
                   .MatchedDriftTerms(gradient, kStep)
                   .has_value());
  // Without the information per datum the form cannot be evaluated.
  const BlockGradient no_information{f.lik, 12.5, 4000.0, f.prior, &f.counts, nullptr, nullptr};
  EXPECT_FALSE(Sgrld(std::make_shared<ExpectedFisherMetric>(), true)
                   .MatchedDriftTerms(no_information, kStep)
                   .has_value());
  // The step's bounds are checked as DriftRow checks them.
  try {
    Sgrld(std::make_shared<ExpectedFisherMetric>(), true).MatchedDriftTerms(gradient, 1.5);
    FAIL() << "a step of 1.5 with the ou transition was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.setting(), "step");
  }
}

}  // namespace
}  // namespace carousel
