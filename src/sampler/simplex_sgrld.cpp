#include "carousel/sampler/simplex_sgrld.hpp"

#include <cmath>
#include <limits>
#include <sstream>
#include <string>

#include "carousel/util/error.hpp"

namespace carousel {
namespace {

std::string Num(double x) {
  std::ostringstream s;
  s.precision(17);
  s << x;
  return s.str();
}

// Sums theta and count_hat and checks every input of a simplex step.
void CheckRow(const char* where, const double* theta, const double* alpha, const double* count_hat,
              std::size_t k, double eps, double* theta_sum, double* count_sum) {
  if (!(eps > 0.0) || !std::isfinite(eps)) {
    throw Error(ExitCode::kInternal,
                std::string(where) + ": step " + Num(eps) + " must be positive and finite");
  }
  double ts = 0.0, cs = 0.0;
  for (std::size_t j = 0; j < k; ++j) {
    if (!std::isfinite(theta[j]) || !std::isfinite(count_hat[j]) || !std::isfinite(alpha[j])) {
      throw Error(ExitCode::kDiverged, std::string(where) + ": non-finite input at component " +
                                           std::to_string(j) + " (theta = " + Num(theta[j]) +
                                           ", count_hat = " + Num(count_hat[j]) + ")");
    }
    if (theta[j] < 0.0 || alpha[j] <= 0.0 || count_hat[j] < 0.0) {
      throw Error(ExitCode::kInternal,
                  std::string(where) + ": need theta >= 0, alpha > 0, count_hat >= 0 at " +
                      "component " + std::to_string(j) + " (theta = " + Num(theta[j]) +
                      ", alpha = " + Num(alpha[j]) + ", count_hat = " + Num(count_hat[j]) + ")");
    }
    ts += theta[j];
    cs += count_hat[j];
  }
  if (!(ts > 0.0) || !std::isfinite(ts)) {
    throw Error(ExitCode::kDiverged,
                std::string(where) + ": sum of theta is " + Num(ts) + " (must be positive)");
  }
  *theta_sum = ts;
  *count_sum = cs;
}

}  // namespace

double SgrldComponentStep(double theta, double alpha, double count_hat, double theta_sum,
                          double count_sum, double eps, KeyedStream& rng) {
  const double omega = theta / theta_sum;
  const double drift = alpha - theta + count_hat - omega * count_sum;
  return std::abs(theta + 0.5 * eps * drift + std::sqrt(eps * theta) * rng.normal());
}

void SgrhmcComponentStep(double& theta, double& momentum, double alpha, double count_hat,
                         double pull, double eps, KeyedStream& rng) {
  const double t = theta > 0.0 ? theta : std::numeric_limits<double>::min();
  const double r = momentum;
  if (!std::isfinite(r))
    throw Error(ExitCode::kDiverged, "SGRHMC: non-finite momentum (" + Num(r) + ")");
  const double s = std::sqrt(t);
  const double force = (alpha - 0.5 + count_hat) / s - s * pull;
  double new_theta = t + eps * s * r;
  double new_r = r + eps * force - eps * t * r + std::sqrt(2.0 * eps) * s * rng.normal();
  if (new_theta < 0.0) {  // reflect at the boundary theta = 0
    new_theta = -new_theta;
    new_r = -new_r;
  }
  if (new_theta == 0.0) new_theta = std::numeric_limits<double>::min();
  theta = new_theta;
  momentum = new_r;
}

void SimplexSgrldStep(double* theta, const double* alpha, const double* count_hat, std::size_t k,
                      double eps, KeyedStream& rng) {
  double theta_sum, count_sum;
  CheckRow("SimplexSgrldStep", theta, alpha, count_hat, k, eps, &theta_sum, &count_sum);
  for (std::size_t j = 0; j < k; ++j)
    theta[j] = SgrldComponentStep(theta[j], alpha[j], count_hat[j], theta_sum, count_sum, eps, rng);
}

void SimplexSgrhmcStep(double* theta, double* momentum, const double* alpha,
                       const double* count_hat, std::size_t k, double eps, KeyedStream& rng) {
  double theta_sum, count_sum;
  CheckRow("SimplexSgrhmcStep", theta, alpha, count_hat, k, eps, &theta_sum, &count_sum);
  const double pull = 1.0 + count_sum / theta_sum;  // 1 + count_hat_. / theta_.
  for (std::size_t j = 0; j < k; ++j)
    SgrhmcComponentStep(theta[j], momentum[j], alpha[j], count_hat[j], pull, eps, rng);
}

void SimplexNormalise(const double* theta, std::size_t k, double* omega) {
  double sum = 0.0;
  for (std::size_t j = 0; j < k; ++j) sum += theta[j];
  for (std::size_t j = 0; j < k; ++j) omega[j] = theta[j] / sum;
}

}  // namespace carousel
