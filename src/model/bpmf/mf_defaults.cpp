#include "carousel/model/bpmf/mf_defaults.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "carousel/model/tile_model.hpp"
#include "carousel/sampler/diagonal_metric.hpp"
#include "carousel/util/error.hpp"

namespace carousel {

namespace {

// What the step rules read: the sampler's options, N training ratings, the largest degree
// (at least 1) and the gradient scale N / |minibatch|.
struct StepInputs {
  const SamplerOptions& options;
  double n, degree, gradient_scale;
};

// PSGLD: the drift per step is about a N per coordinate at any data size, but RMSprop's
// v starts from the first gradient and follows the later ones over about 1000 steps,
// while the curvature of a heavily rated item's factors grows with its degree as the
// factors grow from their initial values. 0.05 / N was validated up to the 25M ratings of
// bench/run_scale_bench.sh (largest degree 128,595); on 100M ratings (274,763) it left the
// posterior at iteration 10, as did 0.69 times it, while 0.35 times it was stable. Above
// 2^17 ratings per row the step therefore shrinks like 1 / (largest degree), the bound of
// a step without preconditioner (sgld below).
double PsgldStep(const StepInputs& in) {
  constexpr double kValidatedDegree = 131072.0;
  return 0.05 / in.n * std::min(1.0, kValidatedDegree / in.degree);
}

// SGHMC, SGNHT and HAMCMC carry momentum or curvature pairs from step to step, and the
// minibatch gradient's noise grows with the gradient scale s: at their 2-strata steps
// SGHMC left the posterior on ml-100k with 8 tiles, and all three with 16. Beyond 2
// strata their steps shrink like sqrt(2 / s), chosen on a validation split of u1.base
// (--test-fraction 0.1, seeds 1 and 2): stable at 4, 8 and 16 tiles, with posterior-mean
// RMSEs equal to (SGHMC, SGNHT: 0.9292 against 0.9295 at 8 tiles) or better than (HAMCMC
// at 16 tiles: 0.9210 against 0.9345) those of 2 / s. SGLD, PSGLD and SGRHMC were stable at
// 16 tiles at their own steps, and any shrinking made their posterior means worse.
double MomentumScale(const StepInputs& in) {
  return std::sqrt(std::min(1.0, 2.0 / in.gradient_scale));
}
double MomentumStep(const StepInputs& in) {
  return 0.6 / std::sqrt(in.degree) * MomentumScale(in);
}

// With the Fisher metric eps G^-1 times the curvature is about eps on every row at any
// data size. With Euler's noise 0.05 was stable on a validation split of the 25M ratings
// (K = 32), where 0.1 diverged from the initial factors; on ml-100k it gives the
// posterior-mean RMSE of the rating-count metric at 0.15. The "ou" transition (sgrld.hpp)
// with the warm-up below reaches a given posterior-mean RMSE there soonest at 0.3 of
// {0.2, 0.3, 0.5}; 0.5 left the posterior, and Euler's noise at 0.3 and 0.5 widens the
// posterior (lower tau, worse posterior mean; doc/mf.md, "Step sizes"). Those figures are for
// 2 strata; the minibatch gradient's own noise widens the chain by a factor that grows
// with eps (gradient_scale - 1) (sgrld.hpp), so beyond 2 strata (or with a smaller
// --minibatch) the step shrinks like 2 / gradient_scale: the same drift per pass over the
// data. At 0.3 on ml-100k with 16 tiles the chain left the posterior at iteration 20, and
// with 4 and 8 tiles its posterior mean was worse than at 2 / gradient_scale (doc/mf.md, "Step
// sizes"). The rating-count metric ignores the scale of the factors, and 0.15 diverged on 25M.
double SgrldStep(const StepInputs& in) {
  const SamplerOptions& options = in.options;
  if (!options.metric || options.metric->name() != "fisher") return 0.15;
  if (options.transition != "ou") return 0.05;
  return 0.3 * std::min(1.0, 2.0 / in.gradient_scale);
}

// HAMCMC from H0 = gamma G^-1 warms up as SGRLD with step eps gamma; 0.2 was chosen on a
// validation split of ml-100k u1.base (doc/mf.md, "Step sizes"). From the Fisher H0 0.2 was also
// stable there with --trust 1 (0.3 diverged); --trust 10 allows 0.5, and 0.35 with M = 3 gave the
// lowest validation RMSE of the grid M in {3, 4}, trust in {1, 10}, step in {0.2, 0.35, 0.5}.
double HamcmcStep(const StepInputs& in) {
  const SamplerOptions& options = in.options;
  if (options.initial_metric == "fisher" && options.trust >= 10.0)
    return 0.35 / options.initial_scale * MomentumScale(in);
  if (options.initial_metric != "identity") return 0.2 / options.initial_scale * MomentumScale(in);
  return 0.5 / in.degree * MomentumScale(in);  // H starts as the identity
}

double SgrhmcStep(const StepInputs&) {
  return 0.02;
}
double SgldStep(const StepInputs& in) {
  return 0.5 / in.degree;
}

// The warm-up from a sixth of the step: 0.05 / 0.3, the largest step that was stable from the
// initial factors on the 25M validation split. 30 iterations of geometric growth were enough
// there (the full step at once left the posterior at iteration 8) and on ml-100k, and the
// default burn-in of `carousel mf` (30 passes over the data) holds them.
constexpr std::uint64_t kSgrldWarmup = 30;

// For SGRLD every iteration beat every 10th on 25M ratings at 2 tiles (LIBMF's best validation
// RMSE at iteration 107 against 117), but with 16 tiles on ml-100k the precisions then followed
// the small early factors so closely that the chain stayed in the funnel of shrunk factors
// (posterior mean 0.955, the biases' alone); once per pass gave 0.925 (doc/mf.md, "Model").
// The other samplers keep the 10 their default steps were validated with; the rule was not
// validated for them.
constexpr std::uint64_t kHyperEveryIterations = 10;

// mf's defaults per sampler: each factor sampler of the registry has a row.
struct MfSamplerDefaults {
  const char* sampler;
  double (*step)(const StepInputs&);
  std::uint64_t warmup;  // iterations of the step's warm-up
  bool hyper_per_pass;   // the precisions' Gibbs step once per pass, else every 10th
  const char* metric;    // the metric G(theta) (bpmf_metric.hpp) a Riemannian sampler uses
  bool exact_reference;  // mf's own sampler: the exact Gibbs sampler, in one process
};
// Every sampler carries the rating-count metric unless it is SGRLD: a metric an unrelated
// sampler never reads (SamplerInfo::riemannian) stays the one such runs have always carried.
constexpr MfSamplerDefaults kMfSamplerDefaults[] = {
    {"psgld", PsgldStep, 0, false, "rating-count", false},
    {"sghmc", MomentumStep, 0, false, "rating-count", false},
    {"sgnht", MomentumStep, 0, false, "rating-count", false},
    {"sgrld", SgrldStep, kSgrldWarmup, true, "fisher", false},
    {"hamcmc", HamcmcStep, 0, false, "rating-count", false},
    {"sgrhmc", SgrhmcStep, 0, false, "rating-count", false},
    {"sgld", SgldStep, 0, false, "rating-count", false},
    // The Gibbs reference takes no step; its config.toml has recorded SGLD's, and still does.
    {"gibbs", SgldStep, 0, false, "rating-count", true},
};

const MfSamplerDefaults& DefaultsOf(const std::string& sampler) {
  for (const MfSamplerDefaults& d : kMfSamplerDefaults)
    if (sampler == d.sampler) return d;
  throw Error(ExitCode::kInternal, "carousel mf has no defaults for sampler '" + sampler + "'");
}

}  // namespace

// Default step sizes, in units that carry over between data sizes (doc/mf.md, "Step sizes").
// Samplers without a preconditioner must keep eps below the inverse curvature of the
// most-rated row or column, tau * degree * |h|^2 (first order: eps ~ 1/degree; with
// momentum the stability limit is on eps^2 * curvature: eps ~ 1/sqrt(degree)). PSGLD's
// preconditioner scales each coordinate by 1/sqrt(mean squared per-rating gradient), so
// its step is given per rating; the rating-count metric of SGRLD/SGRHMC divides by the
// degree already, so their steps are plain numbers. Measured on ml-100k (doc/mf.md, "Step sizes").
double DefaultMfStep(const SamplerOptions& options, const MfProblem& problem,
                     double gradient_scale) {
  const StepInputs in{options, static_cast<double>(problem.train_count),
                      static_cast<double>(std::max<std::uint64_t>(problem.max_degree, 1)),
                      gradient_scale};
  return DefaultsOf(options.name).step(in);
}

std::string DefaultMfMetric(const std::string& sampler) {
  return DefaultsOf(sampler).metric;
}

std::vector<std::string> MfOwnSamplers() {
  std::vector<std::string> names;
  for (const MfSamplerDefaults& d : kMfSamplerDefaults)
    if (d.exact_reference) names.push_back(d.sampler);
  return names;
}

bool IsMfGibbsReference(const std::string& sampler) {
  for (const MfSamplerDefaults& d : kMfSamplerDefaults)
    if (sampler == d.sampler) return d.exact_reference;
  return false;
}

std::uint64_t DefaultMfStepWarmup(const SamplerOptions& options) {
  return DefaultsOf(options.name).warmup;
}

std::uint64_t DefaultMfHyperEvery(const SamplerOptions& options, int tiles) {
  return DefaultsOf(options.name).hyper_per_pass ? static_cast<std::uint64_t>(std::max(tiles, 1))
                                                 : kHyperEveryIterations;
}

// An iteration works on one stratum, 1/B of the data: with 8 tiles on the 25M validation
// split the sample RMSE levelled off only at about iteration 200, and a 400-iteration run's
// posterior mean scored 0.9363 after a 60-iteration burn-in against 0.9317 after 240 (30
// passes, what 60 iterations are at 2 tiles). At one tile 30 passes are 30 iterations, which
// end with SGRLD's warm-up: on ml-100k validation splits (u1-u5.base, --test-fraction 0.1,
// seeds 1-3, 1000 iterations) the posterior mean then scored better than after 60 in 15 of
// 15 pairs (0.90735 against 0.90790 on average) and reached 0.95 at iteration 36 instead of
// 67 (bench/README, "ml-100k against bpmf").
std::uint64_t DefaultMfBurnIn(int tiles, std::uint64_t iterations) {
  return BurnInOfPasses(kMfBurnInPasses, tiles, iterations);
}

// PSGLD's floor lambda in H = 1 / (lambda + sqrt(v)), with v the running mean square of
// the per-rating mean gradient g_bar = lik_sum / |minibatch|. A row's g_bar is about its
// ratings in the minibatch over the minibatch size, so it shrinks like 1/N as the data
// grows; a fixed floor (Li et al.'s 1e-5) then dominates sqrt(v) for almost every row at
// Netflix size and PSGLD becomes SGLD with a step N times too small (on 25M ratings the
// factors hardly left their initial values in 150 iterations). The floor is therefore
// given per rating, like the step: lambda = c / N is c in units of the full-data gradient
// N g_bar. c = 2 was chosen from 0.8, 2 and 8 on validation splits (doc/mf.md, "Step sizes").
namespace {
constexpr double kRmspropFloorPerRating = 2.0;
}  // namespace

double DefaultRmspropLambda(const MfProblem& problem) {
  const std::uint64_t n = std::max<std::uint64_t>(problem.train_count, 1);
  return kRmspropFloorPerRating / static_cast<double>(n);
}

std::uint64_t DefaultMomentsEvery(const MfProblem& problem, int width) {
  constexpr double kDrawsPerParameterPerRating = 6.0;  // see the header
  constexpr double kMostEvery = 10.0;
  const double parameters = (static_cast<double>(problem.rows) + problem.cols) * width;
  const double ratings = static_cast<double>(std::max<std::uint64_t>(problem.train_count, 1));
  const double every = std::ceil(kDrawsPerParameterPerRating * parameters / ratings);
  return static_cast<std::uint64_t>(std::clamp(every, 1.0, kMostEvery));
}

std::uint64_t DeferredNoiseSpan(double step) {
  constexpr double kSpanTime = 0.3;
  // a small tolerance: 0.3 / 0.0375 is 7.9999... in floating point
  const double k = step > 0.0 ? std::floor(kSpanTime / step * (1.0 + 1e-9)) : 1.0;
  return static_cast<std::uint64_t>(std::clamp(k, 1.0, 1e9));
}

}  // namespace carousel
