// The options of `carousel mf` whose defaults come from the data: step sizes and PSGLD's
// preconditioner floor, in units that carry over from ml-100k to Netflix size
// (README, "Step sizes"). The CLI and the exact-target tests both use these.
#pragma once

#include "carousel/data/mf_problem.hpp"
#include "carousel/sampler/sampler.hpp"

namespace carousel {

// The step a of a (b + t)^-c for `options.name` (and its metric) on `problem`.
double DefaultMfStep(const SamplerOptions& options, const MfProblem& problem);

// PSGLD's lambda in 1 / (lambda + sqrt(v)): 2 / (training ratings).
double DefaultRmspropLambda(const MfProblem& problem);

}  // namespace carousel
