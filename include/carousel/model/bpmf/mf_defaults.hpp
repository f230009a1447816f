// The options of `carousel mf` whose defaults come from the data: step sizes and PSGLD's
// preconditioner floor, in units that carry over from ml-100k to Netflix size
// (doc/mf.md, "Step sizes"). The CLI and the exact-target tests both use these.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "carousel/data/mf_problem.hpp"
#include "carousel/sampler/sampler.hpp"

namespace carousel {

// The step a of a (b + t)^-c for `options.name` (and its metric) on `problem`, when each
// iteration's gradient is scaled by gradient_scale = N / |minibatch| (tiles per side over
// the --minibatch fraction).
double DefaultMfStep(const SamplerOptions& options, const MfProblem& problem,
                     double gradient_scale);

// The metric G(theta) (bpmf_metric.hpp) the sampler uses when --metric is not given:
// "fisher" for SGRLD, "rating-count" for the others.
std::string DefaultMfMetric(const std::string& sampler);

// Whether `sampler` is mf's exact Gibbs reference (--sampler gibbs, one process only,
// mf_gibbs_run.hpp) rather than a sampler of the registry.
bool IsMfGibbsReference(const std::string& sampler);
// The samplers `carousel mf` takes besides the registry's factor samplers: {"gibbs"}.
std::vector<std::string> MfOwnSamplers();

// The step's warm-up (step_size.hpp): the step grows geometrically from a sixth of its value,
// over DefaultMfStepWarmup iterations: 30 for SGRLD, 0 (none) for the other samplers.
inline constexpr double kMfStepWarmupStart = 1.0 / 6.0;
std::uint64_t DefaultMfStepWarmup(const SamplerOptions& options);

// Iterations between Gibbs steps of the precisions: once per pass over the data (the tiles
// per side) for SGRLD, every 10th for the other samplers, whose steps were validated so.
std::uint64_t DefaultMfHyperEvery(const SamplerOptions& options, int tiles);

// The burn-in when --burn-in is not given: 30 passes over the data, i.e. 30 iterations per
// tile per side; at most half of the iterations (so a short run keeps draws).
inline constexpr std::uint64_t kMfBurnInPasses = 30;
// An evaluation, and after burn-in a kept draw (--thin follows --eval-every), once per pass
// over the data: every row is brought up to date then (DESIGN.md section 9), which costs
// about one step of every row, so a pass costs about the work its data require at any tile
// count. A draw per iteration cost a whole update of W per iteration (doc/mf.md, "Defaults").
inline constexpr std::uint64_t kMfEvalEveryPasses = 1;
std::uint64_t DefaultMfBurnIn(int tiles, std::uint64_t iterations);

// Deferred noise (DESIGN.md section 9): the iterations between two draws of every row's
// noise. Drawing k steps' noise at once is exact for a Gaussian whose precision the metric
// matches; a mismatch of the metric weighs more as k eps grows (as k eps -> 0 any metric
// gives the law of the steps drawn one by one). k eps <= 0.3, the time of one default step
// at 1 or 2 tiles (which draws its noise every iteration), keeps the deferral's sensitivity
// at that of the 2-tile default: k = max(1, floor(0.3 / eps)), two draws a pass at the
// default step of more tiles (eps = 0.6 / tiles).
std::uint64_t DeferredNoiseSpan(double step);

// Every how many kept draws one enters the posterior moments of the factors (W_mean, W_var,
// H_mean, H_var and the biases'); every kept draw enters the predictions, the draws file and
// the precisions' means. Adding a draw streams 36 bytes per parameter through memory (the
// factors read, two double sums read and written), which costs a pass more the more
// parameters it has per rating: on the 25M Netflix-shaped ratings at K = 32 (0.66 parameters
// a rating) 14-18% of a pass at 64 tiles, measured (doc/mf.md, "Defaults"). So a draw enters
// every ceil(6 parameters / ratings) kept draws (4 there: 2.5% of a pass, measured), at most every
// 10th; parameters = (users + items) x (K + bias). The rule reads the whole problem, never a
// rank's share, so the outputs do not depend on the rank count, and not --iterations, so a
// run extended later keeps the same draws.
std::uint64_t DefaultMomentsEvery(const MfProblem& problem, int width);

// PSGLD's lambda in 1 / (lambda + sqrt(v)): 2 / (training ratings).
double DefaultRmspropLambda(const MfProblem& problem);

}  // namespace carousel
