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
