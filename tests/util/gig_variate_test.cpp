// GIG variates (util/gig_variate.hpp) against the exact moments of their law, by
// quadrature: the log-variate's mean and second moment within 4 Monte Carlo standard errors,
// over shapes from nearly flat to sharply peaked and skewed. The same check rejects draws
// whose p is off by a tenth of a standard deviation's worth.
#include "carousel/util/gig_variate.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace carousel {
namespace {

struct Moments {
  double mean, second;
};

// E[y] and E[y^2] under exp(p y - omega cosh y), by the trapezoid rule on a grid that spans
// everywhere the log-density is within 60 of its mode.
Moments ExactMoments(double p, double omega) {
  const double mode = std::asinh(p / omega);
  const auto log_density = [&](double y) {
    return p * (y - mode) - omega * 2.0 * std::sinh(0.5 * (y + mode)) * std::sinh(0.5 * (y - mode));
  };
  double lo = mode - 1e-3, hi = mode + 1e-3;
  while (log_density(lo) > -60.0) lo = mode - 2.0 * (mode - lo);
  while (log_density(hi) > -60.0) hi = mode + 2.0 * (hi - mode);
  const int n = 400000;
  const double dy = (hi - lo) / n;
  double z = 0.0, m1 = 0.0, m2 = 0.0;
  for (int i = 0; i <= n; ++i) {
    const double y = lo + i * dy, w = (i == 0 || i == n ? 0.5 : 1.0) * std::exp(log_density(y));
    z += w;
    m1 += w * y;
    m2 += w * y * y;
  }
  return {m1 / z, m2 / z};
}

// The larger |z| of the sample mean and second moment of `draws` against `exact`.
double LargestZ(const std::vector<double>& draws, const Moments& exact) {
  const double n = static_cast<double>(draws.size());
  double s1 = 0.0, s2 = 0.0, s3 = 0.0, s4 = 0.0;
  for (double y : draws) {
    s1 += y;
    s2 += y * y;
    s3 += y * y * y;
    s4 += y * y * y * y;
  }
  const double mean = s1 / n, second = s2 / n;
  const double var1 = exact.second - exact.mean * exact.mean;
  const double var2 = s4 / n - second * second;  // of y^2, from the sample
  return std::max(std::abs(mean - exact.mean) / std::sqrt(var1 / n),
                  std::abs(second - exact.second) / std::sqrt(var2 / n));
}

std::vector<double> Draws(double p, double omega, std::uint64_t seed, int n) {
  std::vector<double> y(static_cast<std::size_t>(n));
  KeyedStream rng(seed, Purpose::kTest, 0, 0);
  for (double& v : y) v = LogGigVariate(p, omega, rng);
  return y;
}

struct Shape {
  double p, omega;
};
// Nearly flat (omega small), the ridge move's (p = 0, omega 2 b0 sqrt(lambda_w lambda_h)),
// skewed (p > 0, p < 0), and sharply peaked far from 0.
const Shape kShapes[] = {{0.0, 0.05}, {0.0, 13.6}, {2.5, 1.0}, {-3.0, 0.5}, {-353.0, 800.0}};
constexpr int kDraws = 40000;

TEST(GigVariate, LogVariatesHaveTheExactMoments) {
  std::uint64_t seed = 1;
  for (const Shape& s : kShapes)
    EXPECT_LT(LargestZ(Draws(s.p, s.omega, seed++, kDraws), ExactMoments(s.p, s.omega)), 4.0)
        << "p " << s.p << ", omega " << s.omega;
}

// Negative control: draws for p + delta, delta a tenth of a standard deviation of y over
// its variance (the mean moves by about 0.1 sd, 20 standard errors), are rejected.
TEST(GigVariate, TheCheckRejectsAShiftedP) {
  std::uint64_t seed = 1;
  for (const Shape& s : kShapes) {
    const Moments exact = ExactMoments(s.p, s.omega);
    const double sd = std::sqrt(exact.second - exact.mean * exact.mean);
    const double delta = 0.1 / sd;
    EXPECT_GT(LargestZ(Draws(s.p + delta, s.omega, seed++, kDraws), exact), 4.0)
        << "p " << s.p << ", omega " << s.omega;
  }
}

TEST(GigVariate, VariateIsTheScaledExponentialOfTheLogVariate) {
  KeyedStream a(7, Purpose::kTest, 1, 0), b(7, Purpose::kTest, 1, 0);
  const double p = 0.5, alpha = 3.0, beta = 12.0;
  for (int i = 0; i < 100; ++i)
    EXPECT_DOUBLE_EQ(
        GigVariate(p, alpha, beta, a),
        std::sqrt(beta / alpha) * std::exp(LogGigVariate(p, std::sqrt(alpha * beta), b)));
}

}  // namespace
}  // namespace carousel
