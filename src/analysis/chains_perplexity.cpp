#include "carousel/analysis/chains_perplexity.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "carousel/analysis/run_layout.hpp"

namespace carousel::analysis {
namespace {

namespace fs = std::filesystem;

// The last value of trace.csv's `perplexity` column in the run that holds `draws_file`
// (its draws/, links followed), if there is one.
std::optional<double> LastPerplexity(const std::string& draws_file) {
  const std::optional<std::string> chain = ChainDirOfDraws(draws_file);
  if (!chain) return std::nullopt;
  std::ifstream in(fs::path(*chain) / "trace.csv");
  if (!in) return std::nullopt;
  std::string line, last;
  long column = -1;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (column < 0) {  // the header
      std::istringstream names(line);
      std::string name;
      for (long c = 0; std::getline(names, name, ','); ++c)
        if (name == "perplexity") column = c;
      if (column < 0) return std::nullopt;
      continue;
    }
    last = line;
  }
  if (last.empty()) return std::nullopt;
  std::istringstream fields(last);
  std::string field;
  for (long c = 0; c <= column; ++c)
    if (!std::getline(fields, field, ',')) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(field.c_str(), &end);
  if (end == field.c_str() || !std::isfinite(value)) return std::nullopt;
  return value;
}

}  // namespace

std::optional<ChainsPerplexity> PerplexityOfChains(const std::vector<std::string>& files) {
  ChainsPerplexity p;
  for (const std::string& file : files) {
    const std::optional<double> value = LastPerplexity(file);
    if (!value) return std::nullopt;
    p.per_chain.push_back(*value);
  }
  if (p.per_chain.empty()) return std::nullopt;
  const double m = static_cast<double>(p.per_chain.size());
  for (double v : p.per_chain) p.mean += v / m;
  double squares = 0.0;
  for (double v : p.per_chain) squares += (v - p.mean) * (v - p.mean);
  p.standard_error = m > 1 ? std::sqrt(squares / (m - 1) / m) : std::nan("");
  return p;
}

std::string DescribePerplexity(const ChainsPerplexity& p) {
  std::string text = "held-out perplexity of each chain's posterior mean:";
  char number[64];
  for (std::size_t c = 0; c < p.per_chain.size(); ++c) {
    std::snprintf(number, sizeof number, "%s %.1f", c == 0 ? "" : ",", p.per_chain[c]);
    text += number;
  }
  if (p.per_chain.size() > 1) {
    std::snprintf(number, sizeof number, "; mean %.1f, standard error %.1f across the %zu chains",
                  p.mean, p.standard_error, p.per_chain.size());
    text += number;
  }
  return text;
}

}  // namespace carousel::analysis
