// Kanter's representation of positive stable variates (see positive_stable.hpp).
#include "carousel/util/positive_stable.hpp"

#include <cmath>

#include "carousel/util/error.hpp"
#include "carousel/util/keyed_rng.hpp"

namespace carousel {

namespace {
constexpr double kPi = 3.14159265358979323846;
}  // namespace

double LogPositiveStable(double a, KeyedStream& rng) {
  if (!(a > 0.0 && a <= 1.0))
    throw Error(ExitCode::kInternal, "positive stable: index must lie in (0, 1]");
  // Two draws always, so that the stream's position does not depend on a.
  const double u = kPi * rng.uniform();  // (0, pi): the uniforms are never 0 or 1
  const double e = -std::log(rng.uniform());
  if (a == 1.0) return 0.0;
  // In logs: sin(a u) / sin(u)^(1/a) * (sin((1-a) u) / E)^((1-a)/a).
  return std::log(std::sin(a * u)) - std::log(std::sin(u)) / a +
         (1.0 - a) / a * (std::log(std::sin((1.0 - a) * u)) - std::log(e));
}

double PositiveStable(double a, KeyedStream& rng) {
  return std::exp(LogPositiveStable(a, rng));
}

double LogZolotarev(double a, double u) {
  return a / (1.0 - a) * std::log(std::sin(a * u)) + std::log(std::sin((1.0 - a) * u)) -
         std::log(std::sin(u)) / (1.0 - a);
}

}  // namespace carousel
