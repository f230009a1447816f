#include "carousel/analysis/summary_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <utility>

#include "carousel/io/text_output.hpp"
#include "carousel/util/printf_text.hpp"

namespace carousel::analysis {
namespace {

using Row = VariableSummary;

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

}  // namespace

std::string SummaryTableText(const std::vector<Row>& rows) {
  std::vector<std::vector<std::string>> cells;
  cells.emplace_back(std::begin(kColumns), std::end(kColumns));
  for (const Row& r : rows) cells.push_back(PrintedCells(r));
  std::vector<std::size_t> width(cells.front().size(), 0);
  for (const auto& line : cells)
    for (std::size_t j = 0; j < line.size(); ++j) width[j] = std::max(width[j], line[j].size());
  std::string table;
  for (const auto& line : cells) {
    std::string text;
    for (std::size_t j = 0; j < line.size(); ++j) {
      const std::string pad(width[j] - line[j].size(), ' ');
      text += j == 0 ? line[j] + pad : "  " + pad + line[j];  // names left, numbers right
    }
    while (!text.empty() && text.back() == ' ') text.pop_back();
    table += text + "\n";
  }
  return table;
}

std::string SummaryTableCsv(const std::vector<Row>& rows, const std::string& comments) {
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

namespace {

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

}  // namespace

std::string VariablesText(std::size_t n) {
  return std::to_string(n) + (n == 1 ? " variable" : " variables");
}

// CmdStan's sampler diagnostics (names ending in __, but lp__) are not checked.
std::string ChecksText(const std::vector<Row>& rows, std::size_t chains) {
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
    failing += FailsChecks(r, chains) ? 1 : 0;
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
  std::string text = "\n";
  const auto warn = [&](const Named& list, const std::string& what) {
    if (list.empty()) return;
    text += PrintfText("warning: %s for %s of %zu: %s\n", what.c_str(),
                       VariablesText(list.size()).c_str(), checked, Listing(list).c_str());
  };
  const std::string limit = Cell(ess_limit, "%.0f");
  const bool rhat_na = std::any_of(high_rhat.begin(), high_rhat.end(),
                                   [](const auto& named) { return named.second == "NA"; });
  warn(high_rhat, rhat_na ? "R-hat above 1.01 or NA" : "R-hat above 1.01");
  warn(low_bulk, "ess_bulk below " + limit + " (100 per chain)");
  warn(low_tail, "ess_tail below " + limit + " (100 per chain)");
  warn(not_finite, "NaN or infinite draws");
  if (!constant.empty())
    text += PrintfText("note: %s constant in every draw, so R-hat and ESS are undefined (NA): %s\n",
                       VariablesText(constant.size()).c_str(), Listing(constant).c_str());
  if (!skipped.empty())
    text += PrintfText("note: not checked, as sampler diagnostics (names ending in __): %s\n",
                       Listing(skipped).c_str());
  if (failing == 0)
    text += PrintfText("The chains mixed: R-hat <= 1.01 and ess_bulk, ess_tail >= %s for all %s.\n",
                       limit.c_str(), VariablesText(checked - constant.size()).c_str());
  else
    text += PrintfText(
        "The chains have NOT mixed: %zu of %s fail the checks above; run the chains longer "
        "(or look at the warned variables' traces) before using the draws.\n",
        failing, VariablesText(checked).c_str());
  return text;
}

}  // namespace carousel::analysis
