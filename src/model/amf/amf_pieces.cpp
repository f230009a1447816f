// The pieces of alpha-stable MF (see amf_pieces.hpp; HAMCMC Sec. 4.2, Eq. 14-15).
#include "carousel/model/amf/amf_pieces.hpp"

#include <algorithm>
#include <cmath>

#include "carousel/util/error.hpp"
#include "carousel/util/keyed_rng.hpp"
#include "carousel/util/positive_stable.hpp"

namespace carousel {

namespace {
void CheckAlpha(double alpha) {
  if (!(alpha > 0.0 && alpha <= 2.0))
    throw Error(ExitCode::kInternal, "alpha-stable MF: alpha must lie in (0, 2]");
}
}  // namespace

double AmfScale(const float* w, const float* h, int k) {
  double v = 0.0;
  for (int f = 0; f < k; ++f) v += static_cast<double>(w[f]) * h[f];
  return std::max(v, 1e-12);
}

double AmfPhiPrior(double alpha, KeyedStream& rng) {
  CheckAlpha(alpha);
  // Phi = 2 A (the factor 2 is the paper's scale 2 cos(pi alpha/4)^(2/alpha), header).
  return 2.0 * PositiveStable(0.5 * alpha, rng);
}

double AmfPhiLogLaplace(double alpha, double s) {
  return -std::pow(2.0 * s, 0.5 * alpha);
}

double AmfDrawEntry(double v, double alpha, KeyedStream& rng) {
  const double phi = AmfPhiPrior(alpha, rng);
  return std::sqrt(phi) * std::pow(v, 1.0 / alpha) * rng.normal();
}

const char* AmfLikelihoodName(AmfLikelihood likelihood) {
  return likelihood == AmfLikelihood::kComplex
             ? "complex: X_ij ~ N_c(0, Phi_ij v_ij^(2/alpha)), log N_c = -log(pi S) - |x|^2 / S"
             : "real: X_ij ~ N(0, Phi_ij v_ij^(2/alpha)), log N = -log(2 pi S) / 2 - x^2 / (2 S)";
}

double AmfDrawComplexModulus(double v, double alpha, KeyedStream& rng) {
  const double phi = AmfPhiPrior(alpha, rng);
  return std::sqrt(phi * std::pow(v, 2.0 / alpha) * -std::log(rng.uniform()));
}

double AmfEntryLogLikelihood(double x, double v, double phi, double alpha,
                             AmfLikelihood likelihood) {
  constexpr double kPi = 3.14159265358979323846;
  const double variance = phi * std::pow(v, 2.0 / alpha);
  if (likelihood == AmfLikelihood::kComplex) return -std::log(kPi * variance) - x * x / variance;
  return -0.5 * std::log(2.0 * kPi * variance) - 0.5 * x * x / variance;
}

double AmfEntryLogLikelihoodDv(double x, double v, double phi, double alpha,
                               AmfLikelihood likelihood) {
  // The complex density is the real one squared in the normaliser and doubled in the
  // exponent's |x|^2 / S, so its derivative is twice the real one's.
  const double c = likelihood == AmfLikelihood::kComplex ? 2.0 : 1.0;
  return c * (-1.0 / v + x * x * std::pow(v, -2.0 / alpha - 1.0) / phi) / alpha;
}

double AmfPhiMetropolisStep(double phi, double x, double v, double alpha, KeyedStream& rng,
                            PhiFault fault, bool* accepted, AmfLikelihood likelihood) {
  // A non-finite datum or scale is a diverged chain (W or H); a non-positive one is a bug of
  // the caller (mirroring keeps W, H >= 0 and v = 0 has no likelihood).
  if (!std::isfinite(x) || !std::isfinite(v) || !std::isfinite(phi))
    throw Error(ExitCode::kDiverged, "alpha-stable MF: non-finite x, v or Phi in the Phi step");
  if (!(v > 0.0) || !(phi > 0.0))
    throw Error(ExitCode::kInternal, "alpha-stable MF: v and Phi must be positive");
  const double proposal = AmfPhiPrior(alpha, rng);
  const double u = rng.uniform();
  // log l(Phi') - log l(Phi), l(Phi) = Phi^(-p) exp(-2 p x^2 / (2 Phi s^2)) with p = 1/2 (real)
  // or 1 (complex: Phi^-1 exp(-|x|^2 / (Phi s^2))) (header); in this form a proposal that
  // overflowed to +inf gives -c (1/inf - 1/phi) - inf = -inf.
  const double p = likelihood == AmfLikelihood::kComplex ? 1.0 : 0.5;
  const double c = p * x * x / std::pow(v, 2.0 / alpha);
  double log_ratio = -p * std::log(proposal / phi) - c * (1.0 / proposal - 1.0 / phi);
  if (fault == PhiFault::kInvertedRatio) log_ratio = -log_ratio;
  const bool accept =
      fault == PhiFault::kAlwaysAccept || log_ratio >= 0.0 || std::log(u) < log_ratio;
  if (accepted) *accepted = accept;
  return accept ? proposal : phi;
}

double MirroredLangevinStep(double theta, double gradient, double step, double noise,
                            MirrorFault fault) {
  const double next = theta + step * gradient + std::sqrt(2.0 * step) * noise;
  return fault == MirrorFault::kClipAtZero ? std::max(0.0, next) : std::abs(next);
}

}  // namespace carousel
