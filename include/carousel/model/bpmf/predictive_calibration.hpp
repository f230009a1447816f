// How well a run's predictive distributions fit held-out ratings: the share of test ratings
// inside the central 50, 80, 90 and 95% predictive intervals, and the mean log predictive
// density. The predictive distribution of a new rating r_ij is the posterior of its mean
// mu + b_i + c_j + w_i . h_j (over the kept draws: `mean`, and `sd`, as predictions.csv
// holds them) convolved with the observation noise N(0, 1/tau). It is taken as the Gaussian
// with those two moments, mean and sd^2 + E[1/tau] (E over the kept draws); the mixture over
// draws that it stands for is close to Gaussian where, as here, the noise dominates.
// A calibrated model covers each level's share of ratings, up to Monte Carlo error.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <vector>

namespace carousel {

inline constexpr std::array<double, 4> kCentralLevels = {0.5, 0.8, 0.9, 0.95};

struct PredictiveCalibration {
  std::size_t ratings = 0;
  std::array<double, 4> coverage{};  // share of ratings inside each kCentralLevels interval
  double mean_log_density = 0.0;     // (1 / n) sum log N(r; mean, sd^2 + noise_variance)
};

// `rating`, `mean`, `sd` alike in size (one entry per test rating); noise_variance > 0.
PredictiveCalibration CalibrationOf(const std::vector<double>& rating,
                                    const std::vector<double>& mean, const std::vector<double>& sd,
                                    double noise_variance);

// "50/80/90/95% predictive intervals cover 49.7/80.1/89.9/94.6% of N test ratings; mean log
// predictive density -1.234".
std::string DescribeCalibration(const PredictiveCalibration& c);

}  // namespace carousel
