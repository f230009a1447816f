#include "carousel/util/gig_variate.hpp"

#include <cmath>

namespace carousel {
namespace {

// psi(y) = l(mode) - l(y) >= 0 for l(y) = p y - omega cosh y, written with
// cosh y - cosh m = 2 sinh((y + m) / 2) sinh((y - m) / 2) so that it keeps its digits near
// the mode when omega is large.
struct LogGigShape {
  double p, omega, mode;
  double Psi(double y) const {
    return omega * 2.0 * std::sinh(0.5 * (y + mode)) * std::sinh(0.5 * (y - mode)) - p * (y - mode);
  }
  double Slope(double y) const { return p - omega * std::sinh(y); }  // l'(y)
};

// The distance d > 0 from the mode, on the side `direction` (+1 or -1), where psi has risen
// to 1: doubling, then bisection. Any d > 0 gives a valid envelope; this one a good one.
double DistanceToDropOfOne(const LogGigShape& g, double direction) {
  double lo = 0.0, hi = 1.0 / std::sqrt(g.omega * std::cosh(g.mode));
  while (g.Psi(g.mode + direction * hi) < 1.0) {
    lo = hi;
    hi *= 2.0;
  }
  for (int i = 0; i < 50; ++i) {
    const double mid = 0.5 * (lo + hi);
    (g.Psi(g.mode + direction * mid) < 1.0 ? lo : hi) = mid;
  }
  return hi;
}

}  // namespace

double LogGigVariate(double p, double omega, KeyedStream& rng) {
  const LogGigShape g{p, omega, std::asinh(p / omega)};
  const double left = g.mode - DistanceToDropOfOne(g, -1.0);
  const double right = g.mode + DistanceToDropOfOne(g, 1.0);
  // The tangents of -psi at `left` and `right` (psi = 1 there) bound the tails: for y past
  // `right`, exp(-psi(y)) <= exp(-1 - rate_right (y - right)); mirrored on the left.
  const double rate_left = g.Slope(left);     // > 0: the log-density rises towards the mode
  const double rate_right = -g.Slope(right);  // > 0: it falls past the mode
  const double tail = std::exp(-1.0);
  const double flat_mass = right - left;
  const double left_mass = tail / rate_left, right_mass = tail / rate_right;
  const double total = flat_mass + left_mass + right_mass;
  for (;;) {
    const double piece = rng.uniform() * total;
    double y, log_envelope;
    if (piece < flat_mass) {
      y = left + rng.uniform() * flat_mass;
      log_envelope = 0.0;
    } else {
      const double e = -std::log(rng.uniform());  // Exp(1)
      const bool on_left = piece < flat_mass + left_mass;
      y = on_left ? left - e / rate_left : right + e / rate_right;
      log_envelope = -1.0 - e;
    }
    if (std::log(rng.uniform()) <= -g.Psi(y) - log_envelope) return y;
  }
}

double GigVariate(double p, double a, double b, KeyedStream& rng) {
  return std::sqrt(b / a) * std::exp(LogGigVariate(p, std::sqrt(a * b), rng));
}

}  // namespace carousel
