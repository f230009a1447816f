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

double AmfEntryLogLikelihood(double x, double v, double phi, double alpha) {
  const double variance = phi * std::pow(v, 2.0 / alpha);
  return -0.5 * std::log(2.0 * 3.14159265358979323846 * variance) - 0.5 * x * x / variance;
}

double AmfEntryLogLikelihoodDv(double x, double v, double phi, double alpha) {
  return (-1.0 / v + x * x * std::pow(v, -2.0 / alpha - 1.0) / phi) / alpha;
}

double AmfPhiMetropolisStep(double phi, double x, double v, double alpha, KeyedStream& rng,
                            PhiFault fault, bool* accepted) {
  // A non-finite datum or scale is a diverged chain (W or H); a non-positive one is a bug of
  // the caller (mirroring keeps W, H >= 0 and v = 0 has no likelihood).
  if (!std::isfinite(x) || !std::isfinite(v) || !std::isfinite(phi))
    throw Error(ExitCode::kDiverged, "alpha-stable MF: non-finite x, v or Phi in the Phi step");
  if (!(v > 0.0) || !(phi > 0.0))
    throw Error(ExitCode::kInternal, "alpha-stable MF: v and Phi must be positive");
  const double proposal = AmfPhiPrior(alpha, rng);
  const double u = rng.uniform();
  // log l(Phi') - log l(Phi), l(Phi) = Phi^(-1/2) exp(-x^2 / (2 Phi s^2)) (header); in this
  // form a proposal that overflowed to +inf gives -x^2/(2 s^2) (1/inf - 1/phi) - inf = -inf.
  const double c = 0.5 * x * x / std::pow(v, 2.0 / alpha);
  double log_ratio = -0.5 * std::log(proposal / phi) - c * (1.0 / proposal - 1.0 / phi);
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
