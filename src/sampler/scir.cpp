#include "carousel/sampler/scir.hpp"

#include <cmath>
#include <sstream>
#include <string>

#include "carousel/util/error.hpp"

namespace carousel {
namespace {

constexpr double kLnSqrt2Pi = 0.918938533204672741780329736406;  // log(sqrt(2 pi))

// Loader (2000), "Fast and accurate computation of binomial probabilities": the error of
// Stirling's formula, stirlerr(n) = log(n!) - [(n + 1/2) log n - n + log sqrt(2 pi)],
// for integer n >= 1. Series in 1/n for n > 15; direct (no cancellation to speak of,
// the terms are below 50) for small n.
double StirlingError(double n) {
  constexpr double s0 = 1.0 / 12, s1 = 1.0 / 360, s2 = 1.0 / 1260, s3 = 1.0 / 1680, s4 = 1.0 / 1188;
  if (n <= 15.0) return std::lgamma(n + 1.0) - (n + 0.5) * std::log(n) + n - kLnSqrt2Pi;
  const double nn = n * n;
  if (n > 500) return (s0 - s1 / nn) / n;
  if (n > 80) return (s0 - (s1 - s2 / nn) / nn) / n;
  if (n > 35) return (s0 - (s1 - (s2 - s3 / nn) / nn) / nn) / n;
  return (s0 - (s1 - (s2 - (s3 - s4 / nn) / nn) / nn) / nn) / n;
}

// Loader's deviance term bd0(x, m) = x log(x / m) + m - x, computed without the
// cancellation of the direct formula when x is close to m.
double Bd0(double x, double m) {
  if (std::abs(x - m) < 0.1 * (x + m)) {
    double v = (x - m) / (x + m);
    double s = (x - m) * v;
    double ej = 2.0 * x * v;
    v *= v;
    for (int j = 1; j < 1000; ++j) {
      ej *= v;
      const double s1 = s + ej / (2 * j + 1);
      if (s1 == s) return s1;
      s = s1;
    }
    return s;
  }
  return x * std::log(x / m) + m - x;
}

std::string Num(double x) {
  std::ostringstream s;
  s.precision(17);
  s << x;
  return s.str();
}

// Inputs of a SCIR step: NaN/inf are numerical divergence, other bad values are bugs.
void CheckScirArguments(const char* where, double theta_or_log, bool log_scale, double shape_hat,
                        double h) {
  const bool theta_bad = log_scale ? (std::isnan(theta_or_log) || theta_or_log == HUGE_VAL)
                                   : !std::isfinite(theta_or_log);
  if (theta_bad || !std::isfinite(shape_hat) || !std::isfinite(h)) {
    throw Error(ExitCode::kDiverged, std::string(where) + ": non-finite input (" +
                                         (log_scale ? "log_theta = " : "theta = ") +
                                         Num(theta_or_log) + ", shape_hat = " + Num(shape_hat) +
                                         ", h = " + Num(h) + ")");
  }
  if ((!log_scale && theta_or_log < 0.0) || shape_hat <= 0.0 || h <= 0.0) {
    throw Error(ExitCode::kInternal,
                std::string(where) + ": need theta >= 0, shape_hat > 0 and h > 0 (" +
                    (log_scale ? "log_theta = " : "theta = ") + Num(theta_or_log) +
                    ", shape_hat = " + Num(shape_hat) + ", h = " + Num(h) + ")");
  }
}

}  // namespace

namespace scir_detail {

// The saddle-point form -stirlerr(k) - bd0(k, mean) - log sqrt(2 pi k).
double LogPoissonPmf(double k, double mean) {
  if (k == 0.0) return -mean;
  return -StirlingError(k) - Bd0(k, mean) - kLnSqrt2Pi - 0.5 * std::log(k);
}

void ThrowBadPoissonMean(double mean) {
  throw Error(ExitCode::kDiverged,
              "PoissonVariate: mean = " + Num(mean) + " (must be finite and >= 0)");
}

void ThrowBadSharedShapeInput(double theta, double base_shape, double extra) {
  CheckScirArguments("ScirStep", theta, false, base_shape + extra, 1.0);
  throw Error(ExitCode::kInternal, "ScirStep: negative extra shape " + Num(extra));
}

void ThrowScirOverflow(double theta, double shape_hat) {
  throw Error(ExitCode::kDiverged, "ScirStep: value overflowed (theta = " + Num(theta) +
                                       ", shape_hat = " + Num(shape_hat) + ")");
}

}  // namespace scir_detail

double ScirLogStep(double log_theta, double shape_hat, double h, KeyedStream& rng) {
  CheckScirArguments("ScirLogStep", log_theta, true, shape_hat, h);
  const double c = -std::expm1(-h);  // 1 - e^{-h}, accurate for small h
  const double log_c = std::log(c);
  // lambda / 2 = theta e^{-h} / (1 - e^{-h}); exp(-inf) = 0 handles theta = 0.
  const double half_lambda = std::exp(log_theta - h - log_c);
  const double n = PoissonVariate(half_lambda, rng);
  return log_c + rng.log_gamma_variate(shape_hat + n);
}

ScirTransition::ScirTransition(double h)
    : h_(h), c_(-std::expm1(-h)), decay_over_c_(std::exp(-h) / c_) {
  CheckScirArguments("ScirTransition", 0.0, false, 1.0, h);
}

double ScirTransition::Step(double theta, double shape_hat, KeyedStream& rng) const {
  CheckScirArguments("ScirStep", theta, false, shape_hat, h_);
  const double half_lambda = theta * decay_over_c_;
  const double n = PoissonVariate(half_lambda, rng);
  const double value = c_ * rng.gamma_linear(shape_hat + n);
  if (!(value < HUGE_VAL)) scir_detail::ThrowScirOverflow(theta, shape_hat);
  return value >= kScirFloor ? value : kScirFloor;
}

ScirSharedShapeTransition::ScirSharedShapeTransition(double h, double base_shape)
    : base_shape_(base_shape),
      c_(-std::expm1(-h)),
      decay_over_c_(std::exp(-h) / c_),
      base_gamma_(base_shape) {
  CheckScirArguments("ScirSharedShapeTransition", 0.0, false, base_shape, h);
}

double ScirStep(double theta, double shape_hat, double h, KeyedStream& rng) {
  return ScirTransition(h).Step(theta, shape_hat, rng);
}

void ScirSimplexStep(double* theta, const double* shape_hat, std::size_t k, double h,
                     KeyedStream& rng, double* omega) {
  const ScirTransition transition(h);
  double sum = 0.0;
  for (std::size_t j = 0; j < k; ++j) {
    theta[j] = transition.Step(theta[j], shape_hat[j], rng);
    sum += theta[j];
  }
  if (omega == nullptr) return;
  for (std::size_t j = 0; j < k; ++j) omega[j] = theta[j] / sum;
}

ScirMoments ScirMomentsAfter(double theta0, double a, double var_shape_hat, double h, long steps) {
  const double t = h * static_cast<double>(steps);
  const double e1 = std::exp(-t), e2 = std::exp(-2.0 * t);
  const double one_minus_e1 = -std::expm1(-t);
  ScirMoments m;
  m.mean = theta0 * e1 + a * one_minus_e1;
  m.variance = 2.0 * theta0 * (e1 - e2) + a * one_minus_e1 * one_minus_e1 +
               -std::expm1(-2.0 * t) * std::tanh(0.5 * h) * var_shape_hat;
  return m;
}

}  // namespace carousel
