#include "carousel/util/ziggurat.hpp"

#include <cmath>

namespace carousel {
namespace {

// Layers of equal area v under f on [0, inf) (Marsaglia and Tsang 2000, Sec. 2), from the
// published r; tail_area = integral of f beyond r, f_inverse the inverse of f on [0, inf).
template <typename F, typename FInverse>
ZigguratTable Build(double r, double tail_area, F f, FInverse f_inverse) {
  ZigguratTable z;
  z.r = r;
  z.v = r * f(r) + tail_area;
  z.x[0] = z.v / f(r);
  z.x[1] = r;
  for (int i = 1; i < ZigguratTable::kLayers; ++i) {
    const double next = f(z.x[i]) + z.v / z.x[i];
    z.x[i + 1] = next >= 1.0 ? 0.0 : f_inverse(next);
  }
  z.x[ZigguratTable::kLayers] = 0.0;
  for (int i = 0; i <= ZigguratTable::kLayers; ++i) z.f[i] = f(z.x[i]);
  z.f[0] = 0.0;  // the base's floor
  return z;
}

}  // namespace

const ZigguratTable kNormalZiggurat = Build(
    3.6541528853610088,
    std::sqrt(std::acos(-1.0) / 2.0) * std::erfc(3.6541528853610088 / std::sqrt(2.0)),
    [](double x) { return std::exp(-0.5 * x * x); },
    [](double y) { return std::sqrt(-2.0 * std::log(y)); });

const ZigguratTable kExponentialZiggurat = Build(
    7.69711747013104972, std::exp(-7.69711747013104972), [](double x) { return std::exp(-x); },
    [](double y) { return -std::log(y); });

}  // namespace carousel
