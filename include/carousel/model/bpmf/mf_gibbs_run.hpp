// `carousel mf --sampler gibbs`: the exact Gibbs sampler for the same BPMF model
// (bpmf_gibbs.hpp), run on one process over the data `carousel mf` loaded, writing the
// trace.csv and predictions.csv an SG-MCMC run writes.
#pragma once

#include <string>

#include "carousel/io/mf_loader.hpp"
#include "carousel/model/bpmf/mf_config.hpp"

namespace carousel {

// Runs it into `out` with `comments` as the outputs' '#' lines; returns the exit code.
int RunGibbsReference(const std::string& out, const MfConfig& config, const io::LoadedMf& data,
                      const std::string& comments, bool quiet);

}  // namespace carousel
