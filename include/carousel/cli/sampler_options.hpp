// The sampler options of a command, added from the sampler registry
// (sampler/registry.hpp), where each is declared once.
#pragma once

#include <string>
#include <vector>

#include "carousel/sampler/registry.hpp"

namespace CLI {
class App;
}  // namespace CLI

namespace carousel::cli {

// Adds --sampler (the samplers of `kind` blocks, with `extra_names` such as mf's gibbs
// reference) and, for factor and sphere blocks, the registry options of those samplers, bound
// to `options`.
// --help shows each option's default and bounds.
void AddSamplerOptions(CLI::App& app, SamplerOptions& options, BlockKind kind,
                       const std::vector<std::string>& extra_names = {});

// After parsing: the sampler's name is known (else UsageError with the known names and the
// closest one), and every option is within its bounds.
void CheckSamplerChoice(const SamplerOptions& options, BlockKind kind,
                        const std::vector<std::string>& extra_names = {});

}  // namespace carousel::cli
