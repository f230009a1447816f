// Gamma(shape, 1) variates for a shape fixed in advance, with the constants of the method
// computed once and the normals and exponentials drawn by the ziggurat (util/ziggurat.hpp).
//
// shape >= 1: Marsaglia and Tsang (2000), "A simple method for generating gamma variables",
//   ACM TOMS 26(3): d = shape - 1/3, c = 1 / sqrt(9 d); x ~ N(0, 1), v = (1 + c x)^3,
//   accept d v when U < 1 - 0.0331 x^4 (squeeze) or log U < x^2 / 2 + d (1 - v + log v).
// shape < 1: the same paper's boost, Gamma(shape) = Gamma(shape + 1) U^(1 / shape). When
//   1 / shape is an integer n <= 64 (LDA's default beta = 0.1 gives 10), U^n is n's
//   binary powering of a uniform: a handful of multiplies instead of exp and a ziggurat
//   exponential, which cost about a seventh of SCIR's topic-word update on KOS. Otherwise
//   U^(1 / shape) = exp(-E / shape) for E = -log U ~ Exp(1) drawn by the ziggurat. Both are
//   the same law to rounding.
//
// The law is that of KeyedStream::gamma_linear (same method, different normal and
// exponential generators, so different bits). Like gamma_linear it may underflow to 0 for
// tiny shapes; callers apply a floor (sampler/scir.hpp).
#pragma once

#include <cmath>

#include "carousel/util/keyed_rng.hpp"
#include "carousel/util/ziggurat.hpp"

namespace carousel {

class GammaVariate {
 public:
  explicit GammaVariate(double shape)  // shape > 0 and finite (not checked here)
      : boost_(shape < 1.0),
        inv_shape_(1.0 / shape),
        power_(boost_ && inv_shape_ <= 64.0 && inv_shape_ == std::floor(inv_shape_)
                   ? static_cast<unsigned>(inv_shape_)
                   : 0u),
        d_((boost_ ? shape + 1.0 : shape) - 1.0 / 3.0),
        c_(1.0 / std::sqrt(9.0 * d_)) {}

  template <typename Stream>  // KeyedStream or a CellStream (util/cell_streams.hpp)
  double operator()(Stream& rng) const {
    const double g = MarsagliaTsang(rng);
    if (!boost_) return g;
    if (power_ > 0) return g * IntegerPower(rng.uniform(), power_);
    return g * std::exp(-ZigguratExponential(rng) * inv_shape_);
  }

  // The method's constants, for code that runs its common case on many variates at once
  // (sampler/scir_block.cpp): Marsaglia-Tsang's d and c, and the boost's integer power
  // (0 when there is no boost or 1 / shape is not an integer up to 64).
  double d() const { return d_; }
  double c() const { return c_; }
  bool boost() const { return boost_; }
  unsigned boost_power() const { return power_; }

  // Marsaglia and Tsang's second acceptance test, for a uniform u, x^2, d and v = (1 + c x)^3:
  // log u < x^2 / 2 + d (1 - v + log v).
  static bool PassesLogTest(double u, double x2, double d, double v) {
    return std::log(u) < 0.5 * x2 + d * (1.0 - v + std::log(v));
  }

 private:
  static double IntegerPower(double u, unsigned n) {  // u^n by binary powering, n >= 1
    double result = 1.0;
    for (; n > 1; n >>= 1) {
      if (n & 1u) result *= u;
      u *= u;
    }
    return result * u;
  }

  template <typename Stream>
  double MarsagliaTsang(Stream& rng) const {
    for (;;) {
      double x, v;
      do {
        x = ZigguratNormal(rng);
        v = 1.0 + c_ * x;
      } while (v <= 0.0);
      v = v * v * v;
      const double u = rng.uniform();
      const double x2 = x * x;
      if (u < 1.0 - 0.0331 * x2 * x2 || PassesLogTest(u, x2, d_, v)) return d_ * v;
    }
  }

  bool boost_;
  double inv_shape_;
  unsigned power_;  // 1 / shape when it is an integer up to 64, else 0
  double d_, c_;
};

}  // namespace carousel
