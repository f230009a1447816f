// Exact standard normal and exponential variates by the ziggurat method of Marsaglia and
// Tsang (2000), "The ziggurat method for generating random variables", J. Stat. Softw. 5(8),
// with 256 layers and one 64-bit word of a KeyedStream per attempt: the low 8 bits pick the
// layer, bit 8 the sign (normal), the top 53 bits the uniform position in the layer.
//
// Why: Box-Muller (KeyedStream::normal) costs a log, a sqrt and a sincos per pair, and
// log(U) an exponential; here about 99% of draws cost one multiply and one comparison
// (the point lies in the layer's core, under the density). The rest test the wedge
// against the density or draw from the tail (Marsaglia's tail method for the normal,
// memorylessness for the exponential), so the law is exact: each layer has the same area
// v and a point uniform in the union of layers is uniform under the density.
//
// The layers are built at start-up from the published r (the base's right end); v is
// computed from r so the base, tail included, has area v exactly, and the boundaries follow
// x_{i+1} = f^-1(f(x_i) + v / x_i); the last is set to 0, so the top layer is closed by the
// density itself (its area matches v to rounding; tests/util/ziggurat_test.cpp checks it).
// The streams these functions draw from are the callers' (keyed: DESIGN.md section 1);
// KeyedStream::normal() is unchanged, so other samplers' chains keep their bits.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "carousel/util/keyed_rng.hpp"

namespace carousel {

struct ZigguratTable {
  static constexpr int kLayers = 256;
  // x[0] = v / f(r) (the base's width as a rectangle), x[1] = r, ..., x[256] = 0.
  double x[kLayers + 1];
  double f[kLayers + 1];  // f(x[i]), f unnormalised: f(0) = 1
  double r = 0.0, v = 0.0;
};

// Built during static initialisation (src/util/ziggurat.cpp); not for use before main().
extern const ZigguratTable kNormalZiggurat;       // f(x) = exp(-x^2 / 2), r = 3.6541528853610088
extern const ZigguratTable kExponentialZiggurat;  // f(x) = exp(-x), r = 7.69711747013104972

// x with its sign bit flipped when `flip` is 1 (no branch: the sign bit is a coin flip).
inline double WithSign(double x, std::uint64_t flip) {
  std::uint64_t b;
  std::memcpy(&b, &x, sizeof b);
  b ^= flip << 63;
  std::memcpy(&x, &b, sizeof b);
  return x;
}

// Deliberately broken variants, for the tests' negative controls only.
enum class ZigguratFault {
  kNone,
  kNoWedgeTest,  // accept every point of a layer: too much mass near the layers' ends
  kNoTail,       // the base's tail returned as r: no mass beyond r
};

// Standard normal N(0, 1).
// Stream: KeyedStream, or any type with its bits() and uniform() (util/cell_streams.hpp).
template <ZigguratFault kFault = ZigguratFault::kNone, typename Stream>
inline double ZigguratNormal(Stream& rng) {
  const ZigguratTable& z = kNormalZiggurat;
  for (;;) {
    const std::uint64_t bits = rng.bits();
    const int i = static_cast<int>(bits & 0xff);
    const std::uint64_t flip = (bits >> 8) & 1;
    const double u = static_cast<double>(bits >> 11) * 0x1.0p-53;  // [0, 1)
    const double x = u * z.x[i];
    if (x < z.x[i + 1]) return WithSign(x, flip);  // core: under the density
    if (kFault == ZigguratFault::kNoWedgeTest && i != 0) return WithSign(x, flip);
    if (i == 0) {
      if (kFault == ZigguratFault::kNoTail) return WithSign(z.r, flip);
      // Tail beyond r (Marsaglia 1964): x = -log(U1) / r, accept when -2 log(U2) > x^2.
      double t, y;
      do {
        t = -std::log(rng.uniform()) / z.r;
        y = -std::log(rng.uniform());
      } while (y + y <= t * t);
      return WithSign(z.r + t, flip);
    }
    // Wedge: a uniform height between the layer's floor f(x[i]) and ceiling f(x[i+1]).
    if (z.f[i] + rng.uniform() * (z.f[i + 1] - z.f[i]) < std::exp(-0.5 * x * x))
      return WithSign(x, flip);
  }
}

// Standard exponential Exp(1).
template <typename Stream>
inline double ZigguratExponential(Stream& rng) {
  const ZigguratTable& z = kExponentialZiggurat;
  double shift = 0.0;  // tails passed so far: Exp(1) beyond r is r + Exp(1)
  for (;;) {
    const std::uint64_t bits = rng.bits();
    const int i = static_cast<int>(bits & 0xff);
    const double u = static_cast<double>(bits >> 11) * 0x1.0p-53;
    const double x = u * z.x[i];
    if (x < z.x[i + 1]) return shift + x;
    if (i == 0) {
      shift += z.r;
      continue;
    }
    if (z.f[i] + rng.uniform() * (z.f[i + 1] - z.f[i]) < std::exp(-x)) return shift + x;
  }
}

}  // namespace carousel
