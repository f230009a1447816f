// Predictive calibration (model/bpmf/predictive_calibration.hpp) of ratings drawn from the
// very predictive distributions it assumes: each coverage within 4 binomial standard errors
// of its level, and the mean log density within 4 standard errors of its expectation. The
// same check rejects the calibration taken without the noise (the sd of the mean alone, as
// predictions.csv gives it).
#include "carousel/model/bpmf/predictive_calibration.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "carousel/util/keyed_rng.hpp"

namespace carousel {
namespace {

struct Ratings {
  std::vector<double> rating, mean, sd;
  double expected_log_density = 0.0;  // the average of E[log N(r; mean, sd^2 + noise)]
};

constexpr double kNoise = 0.7;

Ratings DrawnFromThePredictive(int n) {
  Ratings r;
  KeyedStream rng(11, Purpose::kTest, 0, 0);
  for (int i = 0; i < n; ++i) {
    const double mean = 1.0 + 4.0 * rng.uniform(), sd = 0.5 * rng.uniform();
    const double variance = sd * sd + kNoise;
    r.mean.push_back(mean);
    r.sd.push_back(sd);
    r.rating.push_back(mean + std::sqrt(variance) * rng.normal());
    r.expected_log_density += -0.5 * (std::log(2 * M_PI * variance) + 1.0) / n;
  }
  return r;
}

// The largest |z| of the coverages against their levels and of the mean log density
// against its expectation (its sd per rating is 1/sqrt(2), that of -z^2/2 for z ~ N(0,1)).
double LargestZ(const PredictiveCalibration& c, double expected_log_density) {
  const double n = static_cast<double>(c.ratings);
  double largest = std::abs(c.mean_log_density - expected_log_density) / std::sqrt(0.5 / n);
  for (std::size_t l = 0; l < kCentralLevels.size(); ++l) {
    const double level = kCentralLevels[l];
    largest =
        std::max(largest, std::abs(c.coverage[l] - level) / std::sqrt(level * (1 - level) / n));
  }
  return largest;
}

TEST(PredictiveCalibration, RatingsFromThePredictiveAreCovered) {
  const Ratings r = DrawnFromThePredictive(50000);
  const PredictiveCalibration c = CalibrationOf(r.rating, r.mean, r.sd, kNoise);
  EXPECT_EQ(c.ratings, 50000u);
  EXPECT_LT(LargestZ(c, r.expected_log_density), 4.0);
}

// Negative control: without the noise the intervals are far too narrow.
TEST(PredictiveCalibration, TheCheckRejectsIntervalsWithoutTheNoise) {
  const Ratings r = DrawnFromThePredictive(50000);
  const PredictiveCalibration c = CalibrationOf(r.rating, r.mean, r.sd, 1e-12);
  EXPECT_GT(LargestZ(c, r.expected_log_density), 4.0);
  EXPECT_LT(c.coverage[3], 0.5);
}

TEST(PredictiveCalibration, DescribesItselfInOneLine) {
  PredictiveCalibration c;
  c.ratings = 20000;
  c.coverage = {0.497, 0.801, 0.899, 0.946};
  c.mean_log_density = -1.31734;
  EXPECT_EQ(DescribeCalibration(c),
            "50/80/90/95% predictive intervals cover 49.7/80.1/89.9/94.6% of 20000 test "
            "ratings; mean log predictive density -1.3173");
}

}  // namespace
}  // namespace carousel
