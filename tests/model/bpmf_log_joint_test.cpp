// LogJointDensity (Stan's lp__ of the draws file) against the log densities written out
// term by term, with every constant: differences between two states must agree, since the
// function drops only terms that depend on neither the factors nor the precisions.
#include <gtest/gtest.h>

#include <cmath>

#include "carousel/model/bpmf/bpmf.hpp"

namespace carousel {
namespace {

constexpr double kPi = 3.141592653589793;

// log N(x | 0, 1/precision) summed over `count` values with sum of squares `sum_sq`.
double NormalLogDensity(double precision, double count, double sum_sq) {
  return count * 0.5 * (std::log(precision) - std::log(2 * kPi)) - 0.5 * precision * sum_sq;
}
// log Gamma(x | shape a, rate b).
double GammaLogDensity(double x, double a, double b) {
  return a * std::log(b) - std::lgamma(a) + (a - 1) * std::log(x) - b * x;
}

double Exact(const BpmfPriors& p, const BpmfHyper& h, const HyperStats& s) {
  double lp = NormalLogDensity(h.tau, s.n, s.sse) + NormalLogDensity(h.lambda_w, s.w_count, s.w2) +
              NormalLogDensity(h.lambda_h, s.h_count, s.h2) +
              NormalLogDensity(h.lambda_b, s.b_count, s.b2) +
              NormalLogDensity(h.lambda_c, s.c_count, s.c2);
  for (double x : {h.tau, h.lambda_w, h.lambda_h, h.lambda_b, h.lambda_c})
    lp += GammaLogDensity(x, p.a0, p.b0);
  return lp;
}

TEST(BpmfLogJoint, DiffersFromTheExactLogDensityByAConstant) {
  BpmfPriors priors;
  priors.a0 = 2.0;
  priors.b0 = 0.5;
  const HyperStats s1{1200.0, 1000.0, 40.0, 300.0, 5.0, 30.0, 80.0, 500.0, 9.0, 50.0};
  const HyperStats s2{900.0, 1000.0, 70.0, 300.0, 2.0, 30.0, 60.0, 500.0, 12.0, 50.0};
  const BpmfHyper h1{1.3, 4.0, 2.5, 6.0, 3.0};
  const BpmfHyper h2{0.8, 7.0, 1.5, 2.0, 9.0};
  const double constant = Exact(priors, h1, s1) - LogJointDensity(priors, h1, s1);
  EXPECT_NEAR(Exact(priors, h2, s2) - LogJointDensity(priors, h2, s2), constant, 1e-9);
  EXPECT_NEAR(Exact(priors, h1, s2) - LogJointDensity(priors, h1, s2), constant, 1e-9);
  EXPECT_NEAR(Exact(priors, h2, s1) - LogJointDensity(priors, h2, s1), constant, 1e-9);
}

}  // namespace
}  // namespace carousel
