// --keep-samples, which mf and amf share: whole draws of W and H kept in samples/ for
// carousel predict (doc/outputs.md, "samples/").
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <memory>
#include <string>

#include "carousel/cli/run_config.hpp"
#include "carousel/comm/communicator.hpp"
#include "carousel/model/bpmf/mf_outputs.hpp"

namespace carousel::cli {

// Declares --keep-samples into `keep` (< 0 until given); `default_text` is its --help default.
void AddKeepSamplesOption(CLI::App& app, long long& keep, const std::string& default_text);

// The number of samples to keep: the one given, or else `from_data` (DefaultKeepSamples, or 0
// where the sampler keeps none), recorded for config.toml.
std::uint64_t ResolveKeepSamples(long long given, std::uint64_t from_data, RunConfig& run_config);

// Rank 0's writer of `keep` samples of a rows x width W into `out`/samples/, and nullptr on
// the other ranks or when none are kept; the model's sample sink. Collective.
std::unique_ptr<io::SampleWriter> StartSampleWriter(Communicator& comm, const std::string& out,
                                                    std::uint64_t keep, std::uint32_t rows,
                                                    int width);

}  // namespace carousel::cli
