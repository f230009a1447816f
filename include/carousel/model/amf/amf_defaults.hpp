// The default step of `carousel amf` for each factor sampler, from the data (doc/amf.md).
#pragma once

#include "carousel/data/mf_problem.hpp"
#include "carousel/sampler/sampler.hpp"

namespace carousel {

// The step a of a (b + t)^-c for `options.name` on `problem` with `tiles` tiles per side.
// Samplers whose mf default does not carry over to the alpha-stable likelihood have their
// own rule; the others take mf's (DefaultMfStep, given per entry as mf's is per rating).
double DefaultAmfStep(const SamplerOptions& options, const MfProblem& problem, int tiles);

}  // namespace carousel
