#include "carousel/model/amf/amf_defaults.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "carousel/model/bpmf/mf_defaults.hpp"

namespace carousel {
namespace {

// SGLD: mf's 0.5 / (largest degree) left the posterior on alpha = 2 data (the curvature of
// log N(x; 0, 2 v) in W_ik is about degree / (2 W_ik^2), not BPMF's tau degree |h|^2); a
// hundredth of it recovered v = (WH)_ij there (correlation 0.89 with the truth).
double SgldStep(const SamplerOptions&, double degree) {
  return 0.005 / degree;
}

// HAMCMC from H^0 = gamma I warms up as SGLD with step eps gamma (hamcmc.hpp), then
// preconditions with L-BFGS (M = 3, lambda = 10). On the rank-1 alpha = 2 recovery data of
// tests/mpi/amf.sh (degree 120; 3000 iterations, 2 ranks) a = c / degree gave the
// correlation of the fitted v with the truth 0.66, 0.84, 0.89, 0.90, 0.90, 0.90, 0.90 for
// c = 0.002, 0.005, 0.01, 0.02, 0.05, 0.2, 0.3, and the chain broke down (correlation about
// 0, log-likelihood -1e5 against -2.06e4) at c >= 0.5. On the alpha = 1.5, K = 3 data of its
// invariance check (degree 36) the log-likelihood stayed at psgld's level (about -3060) for
// c <= 0.1 and drifted off from c = 0.2 (-3300 .. -9700). c = 0.05 is 4 times below that,
// and 10 times below the breakdown.
double HamcmcStep(const SamplerOptions& options, double degree) {
  constexpr double kHamcmcStepPerDegree = 0.05;
  return kHamcmcStepPerDegree / degree / options.initial_scale;
}

// SGHMC and SGNHT: mf's 0.6 / sqrt(degree) diverged (SGNHT) or left the posterior (SGHMC,
// log-likelihood -7200) on the alpha = 1.5 data; c / sqrt(degree) with c = 0.03 kept psgld's
// level there (sghmc degraded from c = 0.1, sgnht diverged at c = 0.3) and gave correlation
// 0.89 on the alpha = 2 data.
double MomentumStep(const SamplerOptions&, double degree) {
  constexpr double kMomentumStepPerSqrtDegree = 0.03;
  return kMomentumStepPerSqrtDegree / std::sqrt(degree);
}

struct AmfStepRule {
  const char* sampler;
  double (*step)(const SamplerOptions&, double largest_degree);
};
constexpr AmfStepRule kAmfStepRules[] = {
    {"sgld", SgldStep},
    {"hamcmc", HamcmcStep},
    {"sghmc", MomentumStep},
    {"sgnht", MomentumStep},
};

}  // namespace

double DefaultAmfStep(const SamplerOptions& options, const MfProblem& problem, int tiles) {
  const double degree = static_cast<double>(std::max<std::uint64_t>(problem.max_degree, 1));
  for (const AmfStepRule& rule : kAmfStepRules)
    if (options.name == rule.sampler) return rule.step(options, degree);
  return DefaultMfStep(options, problem, tiles);
}

}  // namespace carousel
