// SCIR: the stochastic Cox-Ingersoll-Ross process of Baker, Fearnhead, Fox and Nemeth
// (2018), "Large-scale stochastic sampling from the probability simplex", NeurIPS.
//
// A CIR process with stationary distribution Gamma(a, 1),
//   d theta = (a - theta) dt + sqrt(2 theta) dW                          (paper Eq. 2.1),
// has the exact transition over a time h (Eq. 2.2)
//   theta_{t+h} | theta_t = (1 - e^{-h}) / 2 * W,
//   W ~ noncentral chi^2(2a, 2 theta_t e^{-h} / (1 - e^{-h})).
// SCIR (Eq. 2.3) uses this transition with a replaced by an unbiased minibatch estimate
// a_hat = alpha + (N / n) sum_{i in S_m} z_i, so it has no discretisation error at any h:
// the only error is the minibatch noise, whose effect on the moments is known exactly
// (Corollary 3.2, ScirMomentsAfter below). Algorithm 1 updates every component of a
// simplex row this way and sets omega = theta / sum(theta), since independent
// Gamma(a_k, 1) variables normalised by their sum are Dirichlet(a) distributed.
// Usable for any Gamma-distributed positive parameter (Sec. 2.3), not only simplices.
//
// The noncentral chi^2 draw is exact, as a Poisson mixture:
//   N ~ Poisson(lambda / 2), lambda = 2 theta e^{-h} / (1 - e^{-h}),
//   W | N ~ chi^2(2a + 2N) = 2 Gamma(a + N, 1),
// so theta_{t+h} = (1 - e^{-h}) Gamma(a_hat + N, 1). The Gamma variate is drawn in log
// space (KeyedStream::log_gamma_variate), so tiny shapes (a_hat = 1e-6), huge shapes
// (1e6 and beyond) and theta near 0 give finite, non-negative values.
//
// Near zero. For a tiny shape a the Gamma(a) law puts most of its mass below the smallest
// double (P(X < 1e-308) is about 1 - 7e-4 at a = 1e-6), so a linear-scale value can
// underflow. Decision: ScirStep never returns 0; a value that underflows is returned as
// kScirFloor, the smallest positive normal double (about 2.2e-308). The chain is never
// stuck there: from theta = 0 (or the floor) the exact transition is a fresh
// (1 - e^{-h}) Gamma(a_hat) draw, which leaves the floor with its true probability, and
// log(theta), theta / sum(theta) and 1 / theta stay finite downstream. The floor moves
// only mass that lies below 2.2e-308 (about 1e-31 of the mass at a = 0.1). Callers that
// need those values exactly use ScirLogStep, which keeps log(theta) and has no floor.
//
// Randomness: every draw comes from the keyed stream the caller passes (DESIGN.md
// section 1: a KeyedStream, or a CellStream of util/cell_streams.hpp); a step consumes
// the stream in a fixed order (per component: the Poisson draw, then the Gamma draw), so
// the same key gives the same chain on any rank.
#pragma once

#include <cmath>
#include <cstddef>
#include <limits>

#include "carousel/util/gamma_variate.hpp"
#include "carousel/util/keyed_rng.hpp"

namespace carousel {

// Smallest value ScirStep returns (see "Near zero" above).
constexpr double kScirFloor = std::numeric_limits<double>::min();

// Poisson(mean) variate, exact for any finite mean >= 0: inversion by sequential search
// for mean < 10, otherwise PTRS, the transformed rejection method of Hormann (1993), "The
// transformed rejection method for generating Poisson random variables", Insurance:
// Mathematics and Economics 12, with the log-pmf evaluated by Loader's saddle-point
// expansion (stirlerr/bd0, as in R's dpois) so the acceptance test keeps full precision
// for huge means (1e12 and beyond). Returned as a double: integers above 2^53 are rounded
// to the nearest double, far below the Poisson standard deviation there.
// The small means are inlined (SCIR's topic-word update draws one per entry, most with a
// mean far below 1); PoissonLargeMean is PTRS and the argument check.
// Stream: KeyedStream, or any type with its uniform() (util/cell_streams.hpp).
template <typename Stream>
double PoissonLargeMean(double mean, Stream& rng);
template <typename Stream>
inline double PoissonVariate(double mean, Stream& rng) {
  if (!(mean < 10.0 && mean >= 0.0)) return PoissonLargeMean(mean, rng);
  // Inversion by sequential search from 0: P(N = k) = P(N = k - 1) * mean / k. The
  // expected number of terms is mean + 1. The loop also stops once the remaining
  // terms cannot change a double (after u has been exhausted to rounding).
  double u = rng.uniform();
  // N = 0 exactly when u <= e^{-mean}; 1 - mean <= e^{-mean} decides most draws for a
  // small mean without calling exp (the result is the same as without the shortcut).
  if (u <= 1.0 - mean) return 0.0;
  double p = std::exp(-mean);
  double k = 0.0;
  while (u > p) {
    u -= p;
    k += 1.0;
    p *= mean / k;
    if (p <= 0.0 || k > 1000.0) break;
  }
  return k;
}

namespace scir_detail {
// log P(N = k) for N ~ Poisson(mean), k a non-negative integer, mean > 0 (Loader's
// saddle-point form, accurate to rounding for any mean).
double LogPoissonPmf(double k, double mean);
[[noreturn]] void ThrowBadPoissonMean(double mean);
[[noreturn]] void ThrowBadSharedShapeInput(double theta, double base_shape, double extra);
[[noreturn]] void ThrowScirOverflow(double theta, double shape_hat);
}  // namespace scir_detail

template <typename Stream>
double PoissonLargeMean(double mean, Stream& rng) {
  if (!(mean >= 0.0) || !std::isfinite(mean)) scir_detail::ThrowBadPoissonMean(mean);
  // PTRS (Hormann 1993, Sec. 3, Algorithm PTRS), constants as published.
  const double sqrt_mean = std::sqrt(mean);
  const double b = 0.931 + 2.53 * sqrt_mean;
  const double a = -0.059 + 0.02483 * b;
  const double log_inv_alpha = std::log(1.1239 + 1.1328 / (b - 3.4));
  const double v_r = 0.9277 - 3.6224 / (b - 2.0);
  for (;;) {
    const double u = rng.uniform() - 0.5;
    const double v = rng.uniform();
    const double us = 0.5 - std::abs(u);
    const double k = std::floor((2.0 * a / us + b) * u + mean + 0.43);
    if (us >= 0.07 && v <= v_r) return k;
    if (k < 0.0 || (us < 0.013 && v > us)) continue;
    if (std::log(v) + log_inv_alpha - std::log(a / (us * us) + b) <=
        scir_detail::LogPoissonPmf(k, mean))
      return k;
  }
}

// One exact CIR transition over time h with shape a_hat (paper Eq. 2.2 / 2.3):
// theta >= 0 and finite, a_hat > 0 and finite, h > 0. Returns a value >= kScirFloor.
// Throws Error(kDiverged) for NaN/inf inputs and Error(kInternal) for other invalid ones.
double ScirStep(double theta, double shape_hat, double h, KeyedStream& rng);

// The same transition with the constants of h computed once, for many entries.
class ScirTransition {
 public:
  explicit ScirTransition(double h);                                    // h > 0 and finite
  double Step(double theta, double shape_hat, KeyedStream& rng) const;  // as ScirStep

 private:
  double h_, c_, decay_over_c_;  // h, 1 - e^{-h}, e^{-h} / (1 - e^{-h})
};

// The same transition law for many entries whose shapes are base_shape + extra with
// extra >= 0, most of them 0 (LDA's topic-word blocks: beta + count_hat, and most words
// are not in a minibatch topic). Cheaper generators, same law, different bits: the Gamma
// draw is GammaVariate (ziggurat normals and exponentials instead of Box-Muller and log U),
// and when extra = 0 and N = 0 (the Poisson draw) its constants are those of base_shape,
// computed once. The stream is consumed per entry as: the Poisson draw, then the Gamma's.
class ScirSharedShapeTransition {
 public:
  ScirSharedShapeTransition(double h, double base_shape);  // h > 0, base_shape > 0, finite
  // theta >= 0 and finite, extra >= 0 and finite; returns a value >= kScirFloor.
  // Stream: KeyedStream or a CellStream (util/cell_streams.hpp).
  template <typename Stream>
  double Step(double theta, double extra, Stream& rng) const {
    if (!(theta >= 0.0 && theta < HUGE_VAL && extra >= 0.0 && extra < HUGE_VAL))
      scir_detail::ThrowBadSharedShapeInput(theta, base_shape_, extra);
    // Eq. 2.2 as a Poisson mixture: N ~ Poisson(theta e^{-h} / (1 - e^{-h})), then
    // theta' = (1 - e^{-h}) Gamma(a_hat + N, 1).
    const double n = PoissonVariate(theta * decay_over_c_, rng);
    const double extra_n = extra + n;
    const double g = extra_n == 0.0 ? base_gamma_(rng) : GammaVariate(base_shape_ + extra_n)(rng);
    const double value = c_ * g;
    if (!(value < HUGE_VAL)) scir_detail::ThrowScirOverflow(theta, base_shape_ + extra);
    return value >= kScirFloor ? value : kScirFloor;
  }

  // The transition's constants, for code that runs Step's common case on many entries at
  // once (sampler/scir_block.cpp): base_shape, 1 - e^{-h}, e^{-h} / (1 - e^{-h}),
  // Gamma(base_shape).
  double base_shape() const { return base_shape_; }
  double c() const { return c_; }
  double decay_over_c() const { return decay_over_c_; }
  const GammaVariate& base_gamma() const { return base_gamma_; }

 private:
  double base_shape_, c_, decay_over_c_;
  GammaVariate base_gamma_;
};

// The same transition on log(theta) (log_theta = -inf is theta = 0). Exact at any scale:
// no floor. May return -inf only if the Gamma shape is below about 1e-307.
double ScirLogStep(double log_theta, double shape_hat, double h, KeyedStream& rng);

// Algorithm 1, one iteration for one simplex row of k components: theta[j] <- ScirStep(
// theta[j], shape_hat[j], h) for j = 0..k-1 in order, then, when omega is not null,
// omega[j] = theta[j] / sum(theta). shape_hat[j] = alpha_j + (N / n) * (minibatch count
// of category j). omega may alias theta only if the caller no longer needs theta.
void ScirSimplexStep(double* theta, const double* shape_hat, std::size_t k, double h,
                     KeyedStream& rng, double* omega = nullptr);

// Corollary 3.2: mean and variance of the SCIR value after `steps` steps of size h from
// theta0, when every a_hat_m is independent with mean a and variance var_shape_hat
// (var_shape_hat = 0: the exact CIR process run for time steps * h):
//   E    = theta0 e^{-Mh} + a (1 - e^{-Mh}),
//   Var  = 2 theta0 (e^{-Mh} - e^{-2Mh}) + a (1 - e^{-Mh})^2
//          + (1 - e^{-2Mh}) (1 - e^{-h}) / (1 + e^{-h}) Var[a_hat].
struct ScirMoments {
  double mean = 0.0;
  double variance = 0.0;
};
ScirMoments ScirMomentsAfter(double theta0, double a, double var_shape_hat, double h, long steps);

}  // namespace carousel
