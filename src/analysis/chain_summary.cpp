#include "carousel/analysis/chain_summary.hpp"

#include <algorithm>
#include <iterator>

#include "carousel/analysis/run_layout.hpp"
#include "carousel/util/error.hpp"

namespace carousel::analysis {
namespace {

bool IsSamplerDiagnostic(const std::string& name) {
  return name.size() > 2 && name.compare(name.size() - 2, 2, "__") == 0 && name != "lp__";
}

}  // namespace

std::vector<io::DrawsCsv> ReadChainDraws(const std::vector<std::string>& files) {
  std::vector<io::DrawsCsv> chains;
  for (const std::string& file : files) {
    chains.push_back(io::ReadDrawsCsv(file));
    const io::DrawsCsv& c = chains.back();
    const io::DrawsCsv& first = chains.front();
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

std::size_t CommonDraws(const std::vector<io::DrawsCsv>& chains, std::size_t warmup) {
  const auto shortest = std::min_element(
      chains.begin(), chains.end(),
      [](const io::DrawsCsv& a, const io::DrawsCsv& b) { return a.draws() < b.draws(); });
  const std::size_t draws = shortest->draws();
  if (draws == 0) throw InputError(shortest->path, "no draws");
  if (draws <= warmup)
    throw InputError(shortest->path, "only " + std::to_string(draws) +
                                         " draws, not more than --warmup " +
                                         std::to_string(warmup));
  return draws;
}

std::vector<VariableSummary> SummarizeVariables(const std::vector<io::DrawsCsv>& chains,
                                                std::size_t warmup, std::size_t draws) {
  std::vector<VariableSummary> rows;
  const std::vector<std::string>& columns = chains.front().columns;
  for (std::size_t j = 0; j < columns.size(); ++j) {
    mcmc::Chains x;
    for (const io::DrawsCsv& c : chains)
      x.emplace_back(c.values[j].begin() + static_cast<std::ptrdiff_t>(warmup),
                     c.values[j].begin() + static_cast<std::ptrdiff_t>(draws));
    VariableSummary r;
    r.name = columns[j];
    r.s = mcmc::Summarize(x);
    r.checked = !IsSamplerDiagnostic(r.name);
    r.finite = mcmc::AllFinite(x);
    r.constant = r.finite && mcmc::IsConstant(x);
    rows.push_back(std::move(r));
  }
  return rows;
}

bool FailsChecks(const VariableSummary& v, std::size_t chains) {
  const double ess_limit = kEssPerChainLimit * static_cast<double>(chains);
  if (!v.finite) return true;
  if (v.constant) return false;
  return !(v.s.rhat <= kRhatLimit) || !(v.s.ess_bulk >= ess_limit) || !(v.s.ess_tail >= ess_limit);
}

std::size_t VariablesFailingChecks(const std::string& out) {
  const std::vector<io::DrawsCsv> chains = ReadChainDraws(ChainDrawsFiles({out}));
  const std::vector<VariableSummary> rows = SummarizeVariables(chains, 0, CommonDraws(chains, 0));
  return static_cast<std::size_t>(std::count_if(
      rows.begin(), rows.end(),
      [&](const VariableSummary& v) { return v.checked && FailsChecks(v, chains.size()); }));
}

}  // namespace carousel::analysis
