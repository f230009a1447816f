// `carousel summary OUT`: convergence diagnostics of a run's chains, from the draws files
// OUT/draws/chain-<n>.csv or CSV files named on the command line; what it prints is
// driver/run_summary.hpp's.
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "carousel/cli/command_support.hpp"
#include "carousel/cli/commands.hpp"
#include "carousel/driver/run_summary.hpp"

namespace carousel::cli {

int RunSummaryCommand(const std::vector<std::string>& args) {
  CLI::App app{
      "carousel summary: convergence diagnostics of a run's chains (rank-normalised split R-hat, "
      "bulk and tail ESS; Vehtari et al. 2021), like R's posterior::summarise_draws",
      "carousel summary"};
  SetUpCommandApp(app);
  std::vector<std::string> inputs;
  std::string csv;
  std::size_t warmup = 0;
  app.add_option("inputs", inputs,
                 "a run's output directory (reads its draws/chain-<n>.csv, by n), or draws CSV "
                 "files, one per chain")
      ->required()
      ->type_name("OUT|FILE")
      ->check(NonEmpty());
  app.add_option("--csv", csv, "also write the table to this CSV file")
      ->type_name("FILE")
      ->check(NonEmpty());
  app.add_option("--warmup", warmup, "leave out the first N draws of every chain")->type_name("N");
  ParseOrThrow(app, args, "carousel summary");

  driver::PrintRunSummary(inputs, warmup, csv);
  return 0;  // mixed or not: the verdict is the last line
}

}  // namespace carousel::cli
