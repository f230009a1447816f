// Convergence diagnostics of a run's chains, as the R package posterior's summarise_draws
// computes them (util/mcmc_diagnostics.hpp), from the chains' draws files (io/draws_csv.hpp),
// and the checks of Vehtari et al. (2021), Sec. 4.3, that `carousel summary` and a run of
// --iterations auto apply.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "carousel/io/draws_csv.hpp"
#include "carousel/util/mcmc_diagnostics.hpp"

namespace carousel::analysis {

inline constexpr double kRhatLimit = 1.01;        // Vehtari et al. (2021), Sec. 4.3
inline constexpr double kEssPerChainLimit = 100;  // the same: 100 per chain for bulk and tail ESS

// One variable (column) of the draws, over every chain.
struct VariableSummary {
  std::string name;
  mcmc::Summary s;
  bool checked = true;    // not one of CmdStan's sampler diagnostics (names ending in __, but lp__)
  bool finite = true;     // no NaN or infinite draw
  bool constant = false;  // all draws equal: no R-hat or ESS
};

// Reads every chain's draws file; their headers must agree (an InputError naming the first
// column that differs otherwise).
std::vector<io::DrawsCsv> ReadChainDraws(const std::vector<std::string>& files);

// The draws per chain that all chains have; an InputError when that is no more than `warmup`.
std::size_t CommonDraws(const std::vector<io::DrawsCsv>& chains, std::size_t warmup);

// One summary per column, from draws [warmup, draws) of every chain.
std::vector<VariableSummary> SummarizeVariables(const std::vector<io::DrawsCsv>& chains,
                                                std::size_t warmup, std::size_t draws);

// Whether a checked variable fails the checks for `chains` chains (R-hat at most 1.01, bulk
// and tail ESS at least 100 per chain): draws that are not all finite do; a constant one
// (R-hat and ESS undefined) does not.
bool FailsChecks(const VariableSummary& v, std::size_t chains);

// How many checked variables of the run in `out` (all its draws) fail the checks.
std::size_t VariablesFailingChecks(const std::string& out);

}  // namespace carousel::analysis
