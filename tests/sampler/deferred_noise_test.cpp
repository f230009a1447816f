// Deferred noise (Sampler::defers_noise, DESIGN.md section 9): SGRLD's drift-only steps
// (DriftRows) with the noise of every span of k steps drawn at its end (FlushRows), against
// the exact law of the target.
//
// 20,000 independent rows (their ids key their noise), 3 columns, each element a Gaussian
// whose precision the metric matches (G = the posterior precision, so a step contracts
// theta - mean by 1 - eps):
//   - rows with data: prior N(0, 1 / lambda) times a likelihood N(m, 1 / F) whose gradient
//     every iteration gives (scale 1), posterior N(F m / P, 1 / P), P = lambda + F;
//   - rows without data (never drifted, as rows that sit out): the prior N(0, 1 / lambda),
//     G = lambda; only the flushes move them (the prior-only drift of the steps they sat out).
// After 60 spans of k = 4 steps from theta = 0 (the chain forgets its start by
// 0.8^(4 * 60)), the rows are independent draws of the chain's law at a flush. Per column
// the sample mean must be within 4 standard errors (sd / sqrt(n)) of the target's and the
// sample variance within 4 standard errors (sigma^2 sqrt(2 / (n - 1))): a correct sampler
// fails a column with probability about 6e-5.
//
// Negative controls, the same check: the noise of one step per span instead of k (too
// narrow by (1 - q^2) / (1 - q^2k) = 0.43), and the flush without the prior-only drift of
// the steps a row sat out (its clock counted them as drifted: rows without data then only
// gather noise). Both must be rejected.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "carousel/sampler/diagonal_metric.hpp"
#include "carousel/sampler/sgrld.hpp"

namespace carousel {
namespace {

constexpr Eigen::Index kRows = 20000, kCols = 3;
constexpr std::uint64_t kSpan = 4, kSpans = 60;
constexpr double kStep = 0.2;

// G^-1 = 1 / (posterior precision), declared to approximate it (as ExpectedFisherMetric is).
class MatchedMetric : public ConstantDiagonalMetric {
 public:
  using ConstantDiagonalMetric::ConstantDiagonalMetric;
  bool approximates_precision() const override { return true; }
};

struct Target {
  Eigen::VectorXf prior{{2.0f, 0.5f, 10.0f}};
  Eigen::VectorXf information{{6.0f, 0.5f, 30.0f}};  // F per column (rows with data)
  Eigen::VectorXf data_mean{{1.0f, -2.0f, 0.5f}};    // m
  std::vector<std::uint32_t> ids;
  Target() {
    for (std::uint32_t r = 0; r < kRows; ++r) ids.push_back(7000 + r);
  }
  double Precision(bool data, Eigen::Index c) const {
    return prior[c] + (data ? information[c] : 0.0f);
  }
  double Mean(bool data, Eigen::Index c) const {
    return data ? information[c] * data_mean[c] / Precision(true, c) : 0.0;
  }
  Sgrld Sampler(bool data) const {
    Eigen::VectorXf g_inv(kCols);
    for (Eigen::Index c = 0; c < kCols; ++c)
      g_inv[c] = static_cast<float>(1.0 / Precision(data, c));
    return Sgrld(std::make_shared<MatchedMetric>(g_inv), /*ou=*/true);
  }
};

enum class Broken { kNone, kOneStepOfNoise, kSatOutDriftLeftOut };

// The rows after kSpans spans: rows with data drift every step, rows without data never do.
Matrix RunSpans(bool data, Broken broken) {
  const Target g;
  const Sgrld sampler = g.Sampler(data);
  BlockState block{Matrix::Zero(kRows, kCols), {}};
  block.row_clock.assign(kRows, 0);
  Matrix lik(kRows, kCols);
  std::vector<std::uint32_t> all(kRows);
  for (std::uint32_t r = 0; r < kRows; ++r) all[r] = r;
  std::uint64_t now = 0;
  for (std::uint64_t span = 0; span < kSpans; ++span) {
    for (std::uint64_t i = 0; i < kSpan; ++i, ++now) {
      if (!data) continue;
      for (Eigen::Index r = 0; r < kRows; ++r)
        for (Eigen::Index c = 0; c < kCols; ++c)
          lik(r, c) = -g.information[c] * (block.theta(r, c) - g.data_mean[c]);
      sampler.DriftRows(block, BlockGradient{lik, 1.0, 1.0, g.prior}, kStep, all, nullptr);
    }
    if (broken == Broken::kSatOutDriftLeftOut)
      std::fill(block.row_clock.begin(), block.row_clock.end(), now);
    const std::uint64_t noise_steps = broken == Broken::kOneStepOfNoise ? 1 : kSpan;
    sampler.FlushRows(block, BlockGradient{lik, 0.0, 0.0, g.prior}, kStep,
                      NoiseKey{23, Purpose::kCatchUpRow, now, &g.ids}, now, noise_steps);
  }
  return block.theta;
}

bool MatchesTarget(const Matrix& theta, bool data, const std::string& label) {
  const Target g;
  const double n = static_cast<double>(theta.rows());
  bool ok = true;
  for (Eigen::Index c = 0; c < theta.cols(); ++c) {
    const double mean = g.Mean(data, c), variance = 1.0 / g.Precision(data, c);
    double m = 0.0, v = 0.0;
    for (Eigen::Index r = 0; r < theta.rows(); ++r) m += theta(r, c) / n;
    for (Eigen::Index r = 0; r < theta.rows(); ++r)
      v += (theta(r, c) - m) * (theta(r, c) - m) / (n - 1.0);
    const double z_mean = (m - mean) / std::sqrt(variance / n);
    const double z_var = (v - variance) / (variance * std::sqrt(2.0 / (n - 1.0)));
    std::cout << "  " << label << " column " << c << ": mean " << m << " (target " << mean << ", z "
              << z_mean << "), variance " << v << " (target " << variance << ", z " << z_var
              << ")\n";
    ok = ok && std::abs(z_mean) < 4.0 && std::abs(z_var) < 4.0;
  }
  return ok;
}

TEST(DeferredNoise, RowsWithDataHaveTheTargetAtEveryFlush) {
  EXPECT_TRUE(MatchesTarget(RunSpans(true, Broken::kNone), true, "data"));
}

TEST(DeferredNoise, RowsWithoutDataHaveThePriorAtEveryFlush) {
  EXPECT_TRUE(MatchesTarget(RunSpans(false, Broken::kNone), false, "no data"));
}

TEST(DeferredNoise, OneStepOfNoiseASpanIsRejected) {
  EXPECT_FALSE(MatchesTarget(RunSpans(true, Broken::kOneStepOfNoise), true, "one step's noise"));
}

TEST(DeferredNoise, LeavingOutTheSatOutDriftIsRejected) {
  EXPECT_FALSE(
      MatchesTarget(RunSpans(false, Broken::kSatOutDriftLeftOut), false, "sat-out drift left out"));
}

TEST(DeferredNoise, OnlyForAMetricThatApproximatesThePrecision) {
  const Target g;
  EXPECT_TRUE(g.Sampler(true).defers_noise());
  const Sgrld plain(std::make_shared<ConstantDiagonalMetric>(g.prior.cwiseInverse()), true);
  EXPECT_FALSE(plain.defers_noise());
}

}  // namespace
}  // namespace carousel
