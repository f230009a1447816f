// The samples that finished `carousel mf` or `carousel amf` runs saved (model.json, samples/
// and the id maps in each chain's --out; doc/outputs.md), every chain's pooled, for
// `carousel predict` (analysis/factor_predictions.hpp). A chain's model.json that is
// missing or wrong is an InputError naming the file, line and key.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "carousel/io/id_map.hpp"
#include "carousel/model/amf/amf_predictive.hpp"
#include "carousel/model/bpmf/bpmf.hpp"

namespace carousel::analysis {

// What prediction needs of a run: model.json's summaries and the saved samples' files.
struct SavedFactorRuns {
  bool amf = false;          // a carousel amf run (else mf)
  AmfPredictiveDraws entry;  // amf: its alpha and likelihood
  bool dense = false;        // amf: dense input, whose ids are the row and column indices
  float mu = 0.0f, lo = 0.0f, hi = 0.0f;
  double noise_variance = 1.0;  // 1 / tau, tau the posterior mean of the noise precision
  BpmfShape shape;
  std::uint32_t users = 0, items = 0;
  std::vector<std::uint64_t> iterations;
  std::vector<std::string> w_files, h_files;
};

// The runs `chain_dirs` (analysis/run_layout.hpp, ChainDirectories), pooled: their model.json
// must agree on the data and the shape; the samples are every chain's in order, and the noise
// variance is the mean of theirs.
SavedFactorRuns ReadSavedFactorRuns(const std::vector<std::string>& chain_dirs);

// The ids of the rows (users) or columns (items) of the run in `run`: its id map, or for amf's
// dense input the indices 0, 1, ... that name them.
io::IdMap SavedRunIds(const std::string& run, const SavedFactorRuns& model, bool rows);

// One factor of a saved sample: rows x width float32, as model.json says.
std::vector<float> ReadSavedFactor(const std::string& path, std::uint32_t rows, int width);

}  // namespace carousel::analysis
