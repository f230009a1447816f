// The predictive of a new amf entry (model/amf/amf_predictive.hpp) against its exact
// quantiles where Eq. 14 has them: alpha = 2, X ~ N(0, 2 v), and alpha = 1, X Cauchy with
// scale v (characteristic function exp(-v |t|)), for one sample and for a mixture of two.
// Tolerance: 4 standard errors of a sample quantile, sqrt(q (1 - q) / n) / f(x_q), f the
// density of |X| at the quantile x_q. Negative controls: the draws of another alpha, and a
// scale that is not v^(1/alpha), are rejected.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <vector>

#include "carousel/model/amf/amf_predictive.hpp"

namespace carousel {
namespace {

constexpr double kPi = 3.14159265358979323846;

// |X| for alpha = 1 and scale v: F(x) = (2 / pi) atan(x / v), f(x) = (2 / pi) v / (v^2 + x^2).
double CauchyModulusCdf(double x, double v) {
  return 2.0 / kPi * std::atan(x / v);
}
double CauchyModulusDensity(double x, double v) {
  return 2.0 / kPi * v / (v * v + x * x);
}
// |X| for X ~ N(0, 2 v): F(x) = erf(x / (2 sqrt(v))).
double GaussModulusCdf(double x, double v) {
  return std::erf(x / (2.0 * std::sqrt(v)));
}
double GaussModulusDensity(double x, double v) {
  const double s = std::sqrt(2.0 * v);
  return 2.0 * std::exp(-x * x / (2.0 * s * s)) / (s * std::sqrt(2.0 * kPi));
}

// The q quantile of the equal mixture over `scales` of the law with cdf F, by bisection.
double MixtureQuantile(const std::function<double(double, double)>& cdf,
                       const std::vector<double>& scales, double q) {
  double lo = 0.0, hi = 1e6;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    double f = 0.0;
    for (const double v : scales) f += cdf(mid, v);
    (f / static_cast<double>(scales.size()) < q ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

// The largest |z| = |estimate - exact| / standard error over the levels.
double WorstZ(const std::vector<double>& scales, const AmfPredictiveDraws& how,
              const std::function<double(double, double)>& cdf,
              const std::function<double(double, double)>& density) {
  const std::vector<double> levels = {0.05, 0.25, 0.5, 0.75, 0.95};
  const std::vector<double> estimate = AmfEntryQuantiles(scales, 7, how, levels);
  const double n = static_cast<double>(scales.size() * how.draws_per_sample);
  double worst = 0.0;
  for (std::size_t i = 0; i < levels.size(); ++i) {
    const double q = levels[i];
    const double exact = MixtureQuantile(cdf, scales, q);
    double f = 0.0;
    for (const double v : scales) f += density(exact, v);
    f /= static_cast<double>(scales.size());
    const double se = std::sqrt(q * (1.0 - q) / n) / f;
    worst = std::max(worst, std::abs(estimate[i] - exact) / se);
  }
  return worst;
}

AmfPredictiveDraws Draws(double alpha) {
  AmfPredictiveDraws how;
  how.alpha = alpha;
  how.seed = 11;
  how.draws_per_sample = 20000;
  return how;
}

TEST(AmfPredictive, GaussianAtAlphaTwo) {
  EXPECT_LT(WorstZ({3.0}, Draws(2.0), GaussModulusCdf, GaussModulusDensity), 4.0);
  EXPECT_LT(WorstZ({0.5, 4.0}, Draws(2.0), GaussModulusCdf, GaussModulusDensity), 4.0);
}

TEST(AmfPredictive, CauchyAtAlphaOne) {
  EXPECT_LT(WorstZ({2.0}, Draws(1.0), CauchyModulusCdf, CauchyModulusDensity), 4.0);
  EXPECT_LT(WorstZ({0.3, 5.0}, Draws(1.0), CauchyModulusCdf, CauchyModulusDensity), 4.0);
}

// The controls: draws of alpha = 1.2 against the Cauchy's quantiles, and the Gaussian's
// quantiles at the wrong scale (v^2 instead of v, as if v^(2/alpha) were v^(4/alpha)).
TEST(AmfPredictive, RejectsAnotherAlphaOrScale) {
  EXPECT_GT(WorstZ({2.0}, Draws(1.2), CauchyModulusCdf, CauchyModulusDensity), 4.0);
  const auto wrong_cdf = [](double x, double v) { return GaussModulusCdf(x, v * v); };
  const auto wrong_density = [](double x, double v) { return GaussModulusDensity(x, v * v); };
  EXPECT_GT(WorstZ({3.0}, Draws(2.0), wrong_cdf, wrong_density), 4.0);
}

// The complex model's |X| at alpha = 2: |X|^2 = 2 v E, E ~ Exp(1), so P(|X| <= x) =
// 1 - exp(-x^2 / (2 v)).
TEST(AmfPredictive, ComplexModulusAtAlphaTwo) {
  AmfPredictiveDraws how = Draws(2.0);
  how.likelihood = AmfLikelihood::kComplex;
  const auto cdf = [](double x, double v) { return 1.0 - std::exp(-x * x / (2.0 * v)); };
  const auto density = [](double x, double v) { return x / v * std::exp(-x * x / (2.0 * v)); };
  EXPECT_LT(WorstZ({1.5}, how, cdf, density), 4.0);
}

TEST(AmfPredictive, KeyedByPairAndSample) {
  const AmfPredictiveDraws how = Draws(1.5);
  const std::vector<double> a = AmfEntryQuantiles({1.0, 2.0}, 3, how, {0.5});
  EXPECT_EQ(a, AmfEntryQuantiles({1.0, 2.0}, 3, how, {0.5}));
  EXPECT_NE(a, AmfEntryQuantiles({1.0, 2.0}, 4, how, {0.5}));
}

}  // namespace
}  // namespace carousel
