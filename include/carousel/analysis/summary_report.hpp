// The text of `carousel summary`'s report of a run's chains (chain_summary.hpp): the table as
// the R package posterior's summarise_draws prints it, the same as CSV, and the checks'
// warnings and verdict. In the library, so that any front end reports a run the same way.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "carousel/analysis/chain_summary.hpp"

namespace carousel::analysis {

// The table: a header line, then one line per variable, names left-aligned and numbers
// right-aligned in columns (NA for a NaN, as posterior prints it).
std::string SummaryTableText(const std::vector<VariableSummary>& rows);

// The table as CSV after `comments`: every number the shortest text that reads back exactly,
// NA, Inf and -Inf as R's read.csv and pandas read them.
std::string SummaryTableCsv(const std::vector<VariableSummary>& rows, const std::string& comments);

// "1 variable", "3 variables".
std::string VariablesText(std::size_t n);

// The warnings (R-hat, bulk and tail ESS, draws not finite), the notes (constant variables,
// sampler diagnostics not checked) and the verdict as its last line, for `chains` chains;
// it starts with an empty line.
std::string ChecksText(const std::vector<VariableSummary>& rows, std::size_t chains);

}  // namespace carousel::analysis
