// `carousel summary OUT`: convergence diagnostics of a run's chains, as the R package
// posterior's summarise_draws prints them (util/mcmc_diagnostics.hpp), from the draws files
// OUT/draws/chain-<n>.csv (io/draws_csv.hpp) or CSV files named on the command line.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iterator>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "carousel/cli/chains_calibration.hpp"
#include "carousel/cli/chains_perplexity.hpp"
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

namespace fs = std::filesystem;

constexpr double kRhatLimit = 1.01;        // Vehtari et al. (2021), Sec. 4.3
constexpr double kEssPerChainLimit = 100;  // the same: 100 per chain for bulk and tail ESS
constexpr std::size_t kListed = 10;        // variables named per warning

// The number n of a file named chain-<n>.csv, or -1.
long long ChainNumber(const std::string& name) {
  const std::string prefix = "chain-", suffix = ".csv";
  if (name.size() <= prefix.size() + suffix.size() || name.compare(0, prefix.size(), prefix) != 0 ||
      name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
    return -1;
  const std::string digits =
      name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
  if (digits.size() > 18 ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return -1;
  return std::stoll(digits);
}

// The chain files of a run's output directory: DIR/draws/chain-<n>.csv (or DIR/chain-<n>.csv
// when DIR is the draws directory itself), by chain number.
std::vector<std::string> ChainFilesOf(const std::string& dir) {
  const fs::path draws = fs::path(dir) / "draws";
  std::error_code error;
  const fs::path where = fs::is_directory(draws, error) ? draws : fs::path(dir);
  std::vector<std::pair<long long, std::string>> found;
  for (fs::directory_iterator it(where, error), end; !error && it != end; it.increment(error)) {
    const long long number = ChainNumber(it->path().filename().string());
    if (number >= 0 && it->is_regular_file(error)) found.emplace_back(number, it->path().string());
  }
  if (error) throw InputError(where.string(), "cannot list: " + error.message());
  if (found.empty())
    throw InputError(dir, "no draws files: expected " + draws.string() + "/chain-<n>.csv");
  std::sort(found.begin(), found.end());
  std::vector<std::string> files;
  for (auto& [number, path] : found) files.push_back(std::move(path));
  return files;
}

bool IsSamplerDiagnostic(const std::string& name) {
  return name.size() > 2 && name.compare(name.size() - 2, 2, "__") == 0 && name != "lp__";
}

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

struct Row {
  std::string name;
  mcmc::Summary s;
  bool checked = true;    // not one of CmdStan's sampler diagnostics
  bool finite = true;     // no NaN or infinite draw
  bool constant = false;  // all draws equal: no R-hat or ESS
};

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

// The chain files the inputs name: a directory's chains by number, files as they are.
std::vector<std::string> ChainFiles(const std::vector<std::string>& inputs) {
  std::vector<std::string> files;
  for (const std::string& input : inputs) {
    std::error_code error;
    if (fs::is_directory(input, error)) {
      for (std::string& f : ChainFilesOf(input)) files.push_back(std::move(f));
    } else {
      files.push_back(input);
    }
  }
  return files;
}

// Reads every chain; their headers must agree. Notes on stderr what was left out.
std::vector<io::DrawsCsv> ReadChains(const std::vector<std::string>& files) {
  std::vector<io::DrawsCsv> chains;
  for (const std::string& file : files) {
    chains.push_back(io::ReadDrawsCsv(file));
    const io::DrawsCsv& c = chains.back();
    const io::DrawsCsv& first = chains.front();
    if (c.partial_last_line)
      std::fprintf(stderr, "carousel summary: note: %s: left out its unfinished last line\n",
                   file.c_str());
    if (c.columns == first.columns) continue;
    std::size_t j = 0;
    while (j < c.columns.size() && j < first.columns.size() && c.columns[j] == first.columns[j])
      ++j;
    const auto name = [j](const io::DrawsCsv& d) {
      return j < d.columns.size() ? "'" + d.columns[j] + "'" : std::string("none");
    };
    throw InputError(file + ":" + std::to_string(c.header_line),
                     "the header differs from that of " + first.path + ": column " +
                         std::to_string(j + 1) + " is " + name(c) + " here and " + name(first) +
                         " there");
  }
  return chains;
}

// The draws per chain that all chains have; throws when no more than `warmup`.
std::size_t CommonDraws(const std::vector<io::DrawsCsv>& chains, std::size_t warmup) {
  const auto [shortest, longest] = std::minmax_element(
      chains.begin(), chains.end(),
      [](const io::DrawsCsv& a, const io::DrawsCsv& b) { return a.draws() < b.draws(); });
  const std::size_t draws = shortest->draws();
  if (draws == 0) throw InputError(shortest->path, "no draws");
  if (draws <= warmup)
    throw InputError(shortest->path, "only " + std::to_string(draws) +
                                         " draws, not more than --warmup " +
                                         std::to_string(warmup));
  if (longest->draws() > draws)
    std::fprintf(stderr,
                 "carousel summary: note: the chains have %zu to %zu draws; using the first %zu "
                 "of each\n",
                 draws, longest->draws(), draws);
  return draws;
}

// One row per column, from draws [warmup, draws) of every chain.
std::vector<Row> SummarizeColumns(const std::vector<io::DrawsCsv>& chains, std::size_t warmup,
                                  std::size_t draws) {
  std::vector<Row> rows;
  const std::vector<std::string>& columns = chains.front().columns;
  for (std::size_t j = 0; j < columns.size(); ++j) {
    mcmc::Chains x;
    for (const io::DrawsCsv& c : chains)
      x.emplace_back(c.values[j].begin() + static_cast<std::ptrdiff_t>(warmup),
                     c.values[j].begin() + static_cast<std::ptrdiff_t>(draws));
    Row r;
    r.name = columns[j];
    r.s = mcmc::Summarize(x);
    r.checked = !IsSamplerDiagnostic(r.name);
    r.finite = mcmc::AllFinite(x);
    r.constant = r.finite && mcmc::IsConstant(x);
    rows.push_back(std::move(r));
  }
  return rows;
}

// Whether a checked variable fails the checks (Vehtari et al. 2021: R-hat at most 1.01, bulk
// and tail ESS at least 100 per chain): draws that are not all finite do; a constant one
// (R-hat and ESS undefined) does not.
bool Fails(const Row& r, double ess_limit) {
  if (!r.finite) return true;
  if (r.constant) return false;
  return !(r.s.rhat <= kRhatLimit) || !(r.s.ess_bulk >= ess_limit) || !(r.s.ess_tail >= ess_limit);
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
    failing += Fails(r, ess_limit) ? 1 : 0;
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

}  // namespace

std::size_t VariablesFailingChecks(const std::string& out) {
  const std::vector<io::DrawsCsv> chains = ReadChains(ChainFiles({out}));
  const std::vector<Row> rows = SummarizeColumns(chains, 0, CommonDraws(chains, 0));
  const double ess_limit = kEssPerChainLimit * static_cast<double>(chains.size());
  return static_cast<std::size_t>(std::count_if(
      rows.begin(), rows.end(), [&](const Row& r) { return r.checked && Fails(r, ess_limit); }));
}

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

  const std::vector<std::string> files = ChainFiles(inputs);
  const std::vector<io::DrawsCsv> chains = ReadChains(files);
  const std::size_t draws = CommonDraws(chains, warmup);
  const std::vector<Row> rows = SummarizeColumns(chains, warmup, draws);

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
          ChainsCalibration(files, chains, warmup))
    std::printf(
        "\ncalibration on the test set (the chains' predictions pooled, with the noise "
        "1/tau): %s\n",
        DescribeCalibration(*calibration).c_str());
  if (const std::optional<ChainsPerplexity> perplexity = PerplexityOfChains(files))
    std::printf("\n%s\n", DescribePerplexity(*perplexity).c_str());
  PrintChecks(rows, m);
  return 0;  // mixed or not: the verdict is the last line
}

}  // namespace carousel::cli
