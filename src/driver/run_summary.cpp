#include "carousel/driver/run_summary.hpp"

#include <algorithm>
#include <cstdio>

#include "carousel/analysis/chain_summary.hpp"
#include "carousel/analysis/chains_calibration.hpp"
#include "carousel/analysis/chains_perplexity.hpp"
#include "carousel/analysis/run_layout.hpp"
#include "carousel/analysis/summary_report.hpp"
#include "carousel/io/atomic_file.hpp"
#include "carousel/io/draws_csv.hpp"
#include "carousel/io/text_output.hpp"
#include "carousel/version.hpp"

namespace carousel::driver {
namespace {

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

void PrintRunSummary(const std::vector<std::string>& inputs, std::size_t warmup,
                     const std::string& csv) {
  const std::vector<std::string> files = analysis::ChainDrawsFiles(inputs);
  const std::vector<io::DrawsCsv> chains = analysis::ReadChainDraws(files);
  const std::size_t draws = analysis::CommonDraws(chains, warmup);
  NoteUnevenChains(chains, draws);
  const std::vector<analysis::VariableSummary> rows =
      analysis::SummarizeVariables(chains, warmup, draws);

  const std::size_t m = chains.size();
  const std::size_t kept = draws - warmup;
  std::string left_out;
  if (warmup > 0)
    left_out = " (after leaving out " + std::to_string(warmup) +
               (warmup == 1 ? " warm-up draw)" : " warm-up draws)");
  std::printf("carousel summary: %zu %s of %zu draws%s, %s\n", m, m == 1 ? "chain" : "chains", kept,
              left_out.c_str(), analysis::VariablesText(rows.size()).c_str());
  for (std::size_t c = 0; c < m; ++c) std::printf("  chain %zu: %s\n", c + 1, files[c].c_str());
  std::printf("\n");
  std::fputs(analysis::SummaryTableText(rows).c_str(), stdout);

  if (!csv.empty()) {
    std::string files_text;
    for (const std::string& f : files) files_text += (files_text.empty() ? "" : " ") + f;
    const std::string comments = io::CommentBlock({{"carousel summary", kVersion},
                                                   {"chains", std::to_string(m)},
                                                   {"files", files_text},
                                                   {"draws per chain", std::to_string(kept)},
                                                   {"warmup left out", std::to_string(warmup)}});
    io::WriteFileAtomically(csv, analysis::SummaryTableCsv(rows, comments));
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
  std::fputs(analysis::ChecksText(rows, m).c_str(), stdout);
}

}  // namespace carousel::driver
