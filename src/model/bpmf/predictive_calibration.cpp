#include "carousel/model/bpmf/predictive_calibration.hpp"

#include <cmath>
#include <cstdio>

namespace carousel {
namespace {

// The standard normal's (1 + level) / 2 quantile for each of kCentralLevels.
constexpr std::array<double, 4> kHalfWidths = {0.6744897501960817, 1.2815515655446004,
                                               1.6448536269514722, 1.9599639845400540};

}  // namespace

PredictiveCalibration CalibrationOf(const std::vector<double>& rating,
                                    const std::vector<double>& mean, const std::vector<double>& sd,
                                    double noise_variance) {
  PredictiveCalibration c;
  c.ratings = rating.size();
  if (c.ratings == 0) return c;
  const double log_two_pi = std::log(2.0 * M_PI);
  std::array<std::size_t, 4> inside{};
  double log_density = 0.0;
  for (std::size_t i = 0; i < rating.size(); ++i) {
    const double variance = sd[i] * sd[i] + noise_variance;
    const double z = (rating[i] - mean[i]) / std::sqrt(variance);
    for (std::size_t l = 0; l < kHalfWidths.size(); ++l)
      if (std::abs(z) <= kHalfWidths[l]) ++inside[l];
    log_density += -0.5 * (log_two_pi + std::log(variance) + z * z);
  }
  const double n = static_cast<double>(c.ratings);
  for (std::size_t l = 0; l < inside.size(); ++l)
    c.coverage[l] = static_cast<double>(inside[l]) / n;
  c.mean_log_density = log_density / n;
  return c;
}

std::string DescribeCalibration(const PredictiveCalibration& c) {
  char text[200];
  std::snprintf(text, sizeof text,
                "50/80/90/95%% predictive intervals cover %.1f/%.1f/%.1f/%.1f%% of %zu test "
                "ratings; mean log predictive density %.4f",
                100 * c.coverage[0], 100 * c.coverage[1], 100 * c.coverage[2], 100 * c.coverage[3],
                c.ratings, c.mean_log_density);
  return text;
}

}  // namespace carousel
