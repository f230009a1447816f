// The pieces of alpha-stable non-negative matrix factorisation (alpha-MF; Simsekli et al.
// 2015, in the conditionally Gaussian form of HAMCMC, Simsekli et al. 2016, Sec. 4.2,
// Eq. 14-15), real-valued:
//
//   W_ik, H_kj >= 0,   v_ij = sum_k W_ik H_kj,
//   X_ij | W, H ~ S_alpha(v_ij^(1/alpha), 0, 0)                        (Eq. 14)
//
// (symmetric alpha-stable, characteristic function E[exp(i t X)] = exp(-v |t|^alpha)), written
// with the product property of stable laws (Samorodnitsky and Taqqu 1994, Prop. 1.3.1;
// Kuruoglu 1999) as
//
//   Phi_ij ~ S_{alpha/2}(2 cos(pi alpha / 4)^(2/alpha), 1, 0),
//   X_ij | W, H, Phi ~ N(0, Phi_ij v_ij^(2/alpha))                      (Eq. 15)
//
// Why this scale. For a = alpha/2 < 1, S_a(gamma, 1, 0) has Laplace transform
// exp(-gamma^a s^a / cos(pi a / 2)) (S&T Prop. 1.2.12); with gamma = 2 cos(pi alpha/4)^(2/alpha)
// that is E[exp(-s Phi)] = exp(-(2 s)^(alpha/2)), so Phi = 2 A with A the standard positive
// stable of positive_stable.hpp. Then E[exp(i t X)] = E[exp(-t^2 Phi v^(2/alpha) / 2)]
// = exp(-(t^2 v^(2/alpha))^(alpha/2)) = exp(-v |t|^alpha): X is S_alpha(v^(1/alpha)) as Eq. 14
// says. At alpha = 2 Phi = 2 surely and X ~ N(0, 2 v) (the Gaussian variance model).
// The paper's data are complex (STFT coefficients): X_ij | W, H, Phi ~ N_c(0, Phi s^2), the
// circular complex Gaussian with E|x|^2 = Phi s^2, log N_c(x; 0, S) = -log(pi S) - |x|^2 / S.
// Only |x| enters it, so complex data are kept as moduli. AmfLikelihood picks the real or the
// complex form in every piece below; the Phi prior is the same for both.
//
// The Metropolis step for Phi_ij (HAMCMC Sec. 4.2: "the proposal is the prior"). Its
// conditional is p(Phi | x, v) ∝ p(Phi) l(Phi), l(Phi) = N(x; 0, Phi s^2), s^2 = v^(2/alpha).
// An independence proposal Phi' ~ p(Phi') has Metropolis-Hastings ratio
//
//   p(Phi') l(Phi') q(Phi) / (p(Phi) l(Phi) q(Phi')) = l(Phi') / l(Phi),   q = p,
//
// so the prior density (no closed form) cancels and only the Gaussian likelihood ratio is
// needed: log l(Phi) = -log(Phi) / 2 - x^2 / (2 Phi s^2) + const (real), and
// log l(Phi) = -log(Phi) - |x|^2 / (Phi s^2) + const (complex).
//
// W and H are sampled by SG-MCMC on their full conditionals with mirroring (Patterson and
// Teh 2013, Sec. 3.1; HAMCMC Sec. 4.2): a Langevin step whose result is replaced by its
// absolute value. Reflecting at 0 keeps the target invariant in the limit of small steps
// (the reflected diffusion's generator has the Neumann boundary condition, and the density
// folded onto [0, inf) is the target's), whereas clipping at 0 puts an atom at 0.
#pragma once

#include <cstdint>

namespace carousel {

class KeyedStream;

// Which Gaussian Eq. 15 means: real N(0, S) for real data, circular complex N_c(0, S) for
// complex data (the paper's), given |x|.
enum class AmfLikelihood { kReal, kComplex };
const char* AmfLikelihoodName(AmfLikelihood likelihood);

// v = (WH)_ij = sum_k w[k] h[k] over the K factors, summed in double. It must be positive for
// Eq. 15 to have a density; mirrored factors are >= 0 and almost surely not all 0, but float
// underflow can give 0, so v is kept off it (at 1e-12).
double AmfScale(const float* w, const float* h, int k);

// A draw of Phi from its prior (Eq. 15): 2 A, A with Laplace transform exp(-s^(alpha/2)).
// alpha in (0, 2]; may overflow to +inf for alpha below about 0.1.
double AmfPhiPrior(double alpha, KeyedStream& rng);

// log E[exp(-s Phi)] = -(2 s)^(alpha/2) under the prior.
double AmfPhiLogLaplace(double alpha, double s);

// X_ij drawn from Eq. 14 by way of Eq. 15 (Phi, then a Gaussian).
double AmfDrawEntry(double v, double alpha, KeyedStream& rng);

// |X_ij| of a complex entry drawn from Eq. 15 (Phi from its prior, then N_c(0, Phi s^2):
// |x|^2 = Phi s^2 E, E ~ Exp(1)).
double AmfDrawComplexModulus(double v, double alpha, KeyedStream& rng);

// log N(x; 0, phi v^(2/alpha)) (real) or log N_c(x; 0, phi v^(2/alpha)) with x = |X_ij|
// (complex), the entry's log likelihood given Phi (Eq. 15).
double AmfEntryLogLikelihood(double x, double v, double phi, double alpha,
                             AmfLikelihood likelihood = AmfLikelihood::kReal);

// d/dv of AmfEntryLogLikelihood: c (-1/v + x^2 v^(-2/alpha - 1) / phi) / alpha with c = 1
// (real) or 2 (complex). The gradient for W_ik is its sum over j times H_kj, for H_kj its
// sum over i times W_ik.
double AmfEntryLogLikelihoodDv(double x, double v, double phi, double alpha,
                               AmfLikelihood likelihood = AmfLikelihood::kReal);

// Deliberately broken variants, for the negative controls of the tests only.
enum class PhiFault {
  kNone,
  kAlwaysAccept,   // keep every proposal: the chain is the prior
  kInvertedRatio,  // accept with l(Phi) / l(Phi')
};

// One Metropolis step of Phi_ij with W, H fixed (v = (WH)_ij): proposal from the prior,
// acceptance with the likelihood ratio (derivation above). Randomness: a proposal (two
// uniforms) then one uniform, from `rng`. `accepted`, if given, is set. Throws Error with
// kDiverged for a non-finite x, v or phi and kInternal for v <= 0 or phi <= 0.
double AmfPhiMetropolisStep(double phi, double x, double v, double alpha, KeyedStream& rng,
                            PhiFault fault = PhiFault::kNone, bool* accepted = nullptr,
                            AmfLikelihood likelihood = AmfLikelihood::kReal);

enum class MirrorFault {
  kNone,
  kClipAtZero,  // max(0, theta) instead of |theta|
};

// One mirrored SGLD step of a non-negative scalar: |theta + step g + sqrt(2 step) noise|,
// g the (stochastic) gradient of the log target at theta, noise a standard normal.
double MirroredLangevinStep(double theta, double gradient, double step, double noise,
                            MirrorFault fault = MirrorFault::kNone);

}  // namespace carousel
