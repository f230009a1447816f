// What every rank of a SAM run must know of the whole corpus before the model is built:
// the counts, an order-free checksum of the documents (for checkpoints), the mean direction m
// of the training documents (main paper Sec. 4; supplement F.3: "m set to the normalized
// mean of training documents"), and the held-out documents themselves, which every column
// block needs at each evaluation (sam_model.hpp).
#pragma once

#include <cstdint>
#include <vector>

#include "carousel/comm/communicator.hpp"
#include "carousel/model/sam/sam_config.hpp"
#include "carousel/model/sam/sam_model.hpp"

namespace carousel {

enum class SamRole : std::uint8_t { kTrain, kHeldOut, kExcluded };

// A document's role: excluded without entries (no kept word), else held out with
// probability test_fraction, keyed by (split_seed, document) alone.
SamRole SamRoleOf(const TfIdfCorpus& share, std::uint32_t document, const SamConfig& config);

// The held-out documents of the whole corpus, every rank the same: in order of their row
// block, then id.
struct SamHeldOut {
  std::vector<std::uint32_t> ids;
  std::vector<int> row_block;
  std::vector<std::uint64_t> start;  // ids.size() + 1
  std::vector<std::uint32_t> word;
  std::vector<double> value;
};

struct SamSurvey {
  SamCounts counts;
  std::uint64_t checksum = 0;
  std::vector<double> mean_direction;  // m, V entries
  SamHeldOut held_out;
};

// Collective. `share` holds the documents of this rank's row blocks of the tile grid with
// `config.tiles` blocks per side.
SamSurvey SurveySamCorpus(Communicator& comm, const TfIdfCorpus& share, const SamConfig& config);

}  // namespace carousel
