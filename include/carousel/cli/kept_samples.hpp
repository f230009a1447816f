// The writer of --keep-samples, which mf and amf share: whole draws of W and H kept in
// samples/ for carousel predict (doc/outputs.md, "samples/"; the option:
// model/sample_plan.hpp).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "carousel/comm/communicator.hpp"
#include "carousel/model/bpmf/mf_outputs.hpp"

namespace carousel::cli {

// Rank 0's writer of `keep` samples of a rows x width W into `out`/samples/, and nullptr on
// the other ranks or when none are kept; the model's sample sink. Collective.
std::unique_ptr<io::SampleWriter> StartSampleWriter(Communicator& comm, const std::string& out,
                                                    std::uint64_t keep, std::uint32_t rows,
                                                    int width);

}  // namespace carousel::cli
