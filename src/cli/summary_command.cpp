// `carousel summary OUT`: convergence diagnostics of a run's chains, as the R package
// posterior's summarise_draws prints them (analysis/chain_summary.hpp), from the draws files
// OUT/draws/chain-<n>.csv or CSV files named on the command line; the table, the test set's
// calibration or the held-out perplexity where the run has one, and the checks' verdict.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "carousel/analysis/chain_summary.hpp"
#include "carousel/analysis/chains_calibration.hpp"
#include "carousel/analysis/chains_perplexity.hpp"
#include "carousel/analysis/run_layout.hpp"
#include "carousel/cli/command_support.hpp"
#include "carousel/cli/commands.hpp"
#include "carousel/io/atomic_file.hpp"
#include "carousel/io/draws_csv.hpp"
#include "carousel/io/text_output.hpp"
#include "carousel/util/error.hpp"
#include "carousel/util/mcmc_diagnostics.hpp"
#include "carousel/version.hpp"

namespace carousel::cli {
namespace {

using analysis::kEssPerChainLimit;
using analysis::kRhatLimit;
using Row = analysis::VariableSummary;

constexpr std::size_t kListed = 10;  // variables named per warning

// A number for the printed table: NA for NaN, as posterior prints it.
std::string Cell(double value, const char* format) {
  if (std::isnan(value)) return "NA";
  if (std::isinf(value)) return value > 0 ? "Inf" : "-Inf";
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, value);
  return buffer;
}

// A number for the CSV table: the shortest text that reads back exactly; NA, Inf, -Inf as
// R's read.csv and pandas read them.
std::string CsvCell(double value) {
  if (std::isnan(value)) return "NA";
  if (std::isinf(value)) return value > 0 ? "Inf" : "-Inf";
  return io::FormatReal(value);
}

std::string CsvName(const std::string& name) {
  if (name.find_first_of(",\"\n\r") == std::string::npos) return name;
  std::string quoted = "\"";
  for (char c : name) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

const char* const kColumns[] = {"variable", "mean", "sd",       "q5",       "q50",
                                "q95",      "rhat", "ess_bulk", "ess_tail", "mcse_mean"};

std::vector<std::string> PrintedCells(const Row& r) {
  return {r.name,
          Cell(r.s.mean, "%.4g"),
          Cell(r.s.sd, "%.4g"),
          Cell(r.s.q5, "%.4g"),
          Cell(r.s.q50, "%.4g"),
          Cell(r.s.q95, "%.4g"),
          Cell(r.s.rhat, "%.3f"),
          Cell(r.s.ess_bulk, "%.0f"),
          Cell(r.s.ess_tail, "%.0f"),
          Cell(r.s.mcse_mean, "%.2g")};
}

void PrintTable(const std::vector<Row>& rows) {
  std::vector<std::vector<std::string>> cells;
  cells.emplace_back(std::begin(kColumns), std::end(kColumns));
  for (const Row& r : rows) cells.push_back(PrintedCells(r));
  std::vector<std::size_t> width(cells.front().size(), 0);
  for (const auto& line : cells)
    for (std::size_t j = 0; j < line.size(); ++j) width[j] = std::max(width[j], line[j].size());
  for (const auto& line : cells) {
    std::string text;
    for (std::size_t j = 0; j < line.size(); ++j) {
      const std::string pad(width[j] - line[j].size(), ' ');
      text += j == 0 ? line[j] + pad : "  " + pad + line[j];  // names left, numbers right
    }
    while (!text.empty() && text.back() == ' ') text.pop_back();
    std::printf("%s\n", text.c_str());
  }
}

std::string CsvTable(const std::vector<Row>& rows, const std::string& comments) {
  std::string text = comments;
  for (std::size_t j = 0; j < std::size(kColumns); ++j)
    text += (j ? "," : "") + std::string(kColumns[j]);
  text += "\n";
  for (const Row& r : rows) {
    text += CsvName(r.name);
    for (double v : {r.s.mean, r.s.sd, r.s.q5, r.s.q50, r.s.q95, r.s.rhat, r.s.ess_bulk,
                     r.s.ess_tail, r.s.mcse_mean})
      text += "," + CsvCell(v);
    text += "\n";
  }
  return text;
}

// "name (value), ..." for the first kListed of `names`, then how many more.
std::string Listing(const std::vector<std::pair<std::string, std::string>>& named) {
  std::string text;
  for (std::size_t i = 0; i < named.size() && i < kListed; ++i) {
    text += (i ? ", " : "") + named[i].first;
    if (!named[i].second.empty()) text += " (" + named[i].second + ")";
  }
  if (named.size() > kListed) text += ", and " + std::to_string(named.size() - kListed) + " more";
  return text;
}

std::string Variables(std::size_t n) {
  return std::to_string(n) + (n == 1 ? " variable" : " variables");
}

// The warnings and the verdict. CmdStan's sampler diagnostics (names ending in __, but lp__)
// are not checked.
void PrintChecks(const std::vector<Row>& rows, std::size_t chains) {
  const double ess_limit = kEssPerChainLimit * static_cast<double>(chains);
  using Named = std::vector<std::pair<std::string, std::string>>;
  Named high_rhat, low_bulk, low_tail, not_finite, constant, skipped;
  std::size_t checked = 0, failing = 0;
  for (const Row& r : rows) {
    if (!r.checked) {
      skipped.emplace_back(r.name, "");
      continue;
    }
    ++checked;
    failing += analysis::FailsChecks(r, chains) ? 1 : 0;
    if (!r.finite) {
      not_finite.emplace_back(r.name, "");
      continue;
    }
    if (r.constant) {
      constant.emplace_back(r.name, "");
      continue;
    }
    // NA fails too: a variable constant within each chain but not across them has none.
    if (!(r.s.rhat <= kRhatLimit)) high_rhat.emplace_back(r.name, Cell(r.s.rhat, "%.3f"));
    if (!(r.s.ess_bulk >= ess_limit)) low_bulk.emplace_back(r.name, Cell(r.s.ess_bulk, "%.0f"));
    if (!(r.s.ess_tail >= ess_limit)) low_tail.emplace_back(r.name, Cell(r.s.ess_tail, "%.0f"));
  }
  const auto warn = [checked](const Named& list, const std::string& what) {
    if (list.empty()) return;
    std::printf("warning: %s for %s of %zu: %s\n", what.c_str(), Variables(list.size()).c_str(),
                checked, Listing(list).c_str());
  };
  const std::string limit = Cell(ess_limit, "%.0f");
  const bool rhat_na = std::any_of(high_rhat.begin(), high_rhat.end(),
                                   [](const auto& named) { return named.second == "NA"; });
  std::printf("\n");
  warn(high_rhat, rhat_na ? "R-hat above 1.01 or NA" : "R-hat above 1.01");
  warn(low_bulk, "ess_bulk below " + limit + " (100 per chain)");
  warn(low_tail, "ess_tail below " + limit + " (100 per chain)");
  warn(not_finite, "NaN or infinite draws");
  if (!constant.empty())
    std::printf("note: %s constant in every draw, so R-hat and ESS are undefined (NA): %s\n",
                Variables(constant.size()).c_str(), Listing(constant).c_str());
  if (!skipped.empty())
    std::printf("note: not checked, as sampler diagnostics (names ending in __): %s\n",
                Listing(skipped).c_str());
  if (failing == 0)
    std::printf("The chains mixed: R-hat <= 1.01 and ess_bulk, ess_tail >= %s for all %s.\n",
                limit.c_str(), Variables(checked - constant.size()).c_str());
  else
    std::printf(
        "The chains have NOT mixed: %zu of %s fail the checks above; run the chains longer "
        "(or look at the warned variables' traces) before using the draws.\n",
        failing, Variables(checked).c_str());
}

// Notes on stderr what the summary leaves out: unfinished last lines, and the draws of the
// longer chains beyond the shortest's.
void NoteUnevenChains(const std::vector<io::DrawsCsv>& chains, std::size_t draws) {
  std::size_t longest = draws;
  for (const io::DrawsCsv& c : chains) {
    if (c.partial_last_line)
      std::fprintf(stderr, "carousel summary: note: %s: left out its unfinished last line\n",
                   c.path.c_str());
    longest = std::max(longest, c.draws());
  }
  if (longest > draws)
    std::fprintf(stderr,
                 "carousel summary: note: the chains have %zu to %zu draws; using the first %zu "
                 "of each\n",
                 draws, longest, draws);
}

}  // namespace

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

  const std::vector<std::string> files = analysis::ChainDrawsFiles(inputs);
  const std::vector<io::DrawsCsv> chains = analysis::ReadChainDraws(files);
  const std::size_t draws = analysis::CommonDraws(chains, warmup);
  NoteUnevenChains(chains, draws);
  const std::vector<Row> rows = analysis::SummarizeVariables(chains, warmup, draws);

  const std::size_t m = chains.size();
  const std::size_t kept = draws - warmup;
  std::string left_out;
  if (warmup > 0)
    left_out = " (after leaving out " + std::to_string(warmup) +
               (warmup == 1 ? " warm-up draw)" : " warm-up draws)");
  std::printf("carousel summary: %zu %s of %zu draws%s, %s\n", m, m == 1 ? "chain" : "chains", kept,
              left_out.c_str(), Variables(rows.size()).c_str());
  for (std::size_t c = 0; c < m; ++c) std::printf("  chain %zu: %s\n", c + 1, files[c].c_str());
  std::printf("\n");
  PrintTable(rows);

  if (!csv.empty()) {
    std::string files_text;
    for (const std::string& f : files) files_text += (files_text.empty() ? "" : " ") + f;
    const std::string comments = io::CommentBlock({{"carousel summary", kVersion},
                                                   {"chains", std::to_string(m)},
                                                   {"files", files_text},
                                                   {"draws per chain", std::to_string(kept)},
                                                   {"warmup left out", std::to_string(warmup)}});
    io::WriteFileAtomically(csv, CsvTable(rows, comments));
  }
  if (const std::optional<PredictiveCalibration> calibration =
          analysis::ChainsCalibration(files, chains, warmup))
    std::printf(
        "\ncalibration on the test set (the chains' predictions pooled, with the noise "
        "1/tau): %s\n",
        DescribeCalibration(*calibration).c_str());
  if (const std::optional<analysis::ChainsPerplexity> perplexity =
          analysis::PerplexityOfChains(files))
    std::printf("\n%s\n", analysis::DescribePerplexity(*perplexity).c_str());
  PrintChecks(rows, m);
  return 0;  // mixed or not: the verdict is the last line
}

}  // namespace carousel::cli
