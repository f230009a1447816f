// What `carousel summary` prints of a run's chains (analysis/chain_summary.hpp): the
// diagnostics table as the R package posterior's summarise_draws prints it, the test set's
// calibration or the held-out perplexity where the run has one, and the checks' verdict;
// also what a run of several chains prints when they have finished.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace carousel::driver {

// The summary of the chains in `inputs` (a run's output directory, whose draws/chain-<n>.csv
// it reads, or draws CSV files, one per chain) on stdout, leaving out each chain's first
// `warmup` draws; with `csv`, the table into that file too. Notes on stderr what it leaves
// out.
void PrintRunSummary(const std::vector<std::string>& inputs, std::size_t warmup,
                     const std::string& csv);

}  // namespace carousel::driver
