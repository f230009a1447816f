// `carousel predict`: predictive summaries of (user, item) pairs from the samples that a
// finished `carousel mf` or `carousel amf` run saved (by default a run keeps some,
// DefaultKeepSamples); a run of several chains (--chains) gives all its chains' samples,
// pooled. What the columns are: analysis/factor_predictions.hpp. One process; one sample's W
// and H in memory at a time, plus one float per pair and sample.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>
#include <vector>

#include "carousel/analysis/factor_predictions.hpp"
#include "carousel/analysis/run_layout.hpp"
#include "carousel/analysis/saved_factor_runs.hpp"
#include "carousel/cli/command_support.hpp"
#include "carousel/cli/commands.hpp"
#include "carousel/data/mf_problem.hpp"
#include "carousel/io/atomic_file.hpp"
#include "carousel/io/ratings_reader.hpp"
#include "carousel/io/text_output.hpp"
#include "carousel/util/error.hpp"
#include "carousel/version.hpp"

namespace carousel::cli {
namespace {

struct PredictOptions {
  std::string run, pairs;
  std::string out = "predicted_ratings.csv";
  std::string format = "auto";
  double level = 0.9;
};

PredictOptions Parse(const std::vector<std::string>& args) {
  PredictOptions o;
  CLI::App app{
      "carousel predict: posterior predictive summaries of (user, item) pairs from the samples "
      "of a finished carousel mf or amf run, every chain's pooled (one process)",
      "carousel predict"};
  SetUpCommandApp(app);
  app.add_option("--run", o.run,
                 "the --out directory of a finished carousel mf or amf run (of one chain or "
                 "several)")
      ->required()
      ->check(NonEmpty());
  app.add_option("--pairs", o.pairs,
                 "(user, item) pairs in any ratings format carousel mf reads, input ids (amf "
                 "on a dense .npy: row and column indices); a rating column is optional and "
                 "ignored")
      ->required()
      ->check(NonEmpty());
  app.add_option("--format", o.format, "auto|movielens|whitespace|csv|mtx (of --pairs)");
  app.add_option("--out", o.out,
                 "predictions: CSV user,item,mean,sd,lower,upper (of the mean rating), "
                 "sd_rating,lower_rating,upper_rating (of a new rating: with the noise 1/tau); "
                 "amf: row,col,mean,sd,lower,upper (of v = (WH)_ij), median_entry,lower_entry,"
                 "upper_entry (of a new entry's |X_ij|)")
      ->check(NonEmpty());
  app.add_option("--level", o.level, "probability of the central interval [lower, upper]");
  ParseOrThrow(app, args, "carousel predict");
  io::ParseRatingsFormat(o.format);
  if (!(o.level > 0.0 && o.level < 1.0))
    throw UsageError(
        "--level", "must lie strictly between 0 and 1 (e.g. 0.9), not " + io::FormatReal(o.level));
  return o;
}

}  // namespace

int RunPredictCommand(const std::vector<std::string>& args) {
  const PredictOptions o = Parse(args);
  const std::vector<std::string> runs = analysis::ChainDirectories(o.run);
  const analysis::SavedFactorRuns model = analysis::ReadSavedFactorRuns(runs);
  const io::IdMap users = analysis::SavedRunIds(runs.front(), model, true);
  const io::IdMap items = analysis::SavedRunIds(runs.front(), model, false);
  const io::RatingsFile pairs =
      io::ReadRatings(o.pairs, io::ParseRatingsFormat(o.format), io::RatingField::kOptional);
  const std::size_t n = pairs.ratings.size();
  std::vector<std::uint32_t> row(n), col(n);
  std::size_t cold = 0;
  for (std::size_t p = 0; p < n; ++p) {
    row[p] = users.Find(pairs.ratings[p].user).value_or(kUnknownId);
    col[p] = items.Find(pairs.ratings[p].item).value_or(kUnknownId);
    if (row[p] == kUnknownId || col[p] == kUnknownId) ++cold;
  }
  const std::size_t samples = model.iterations.size();
  std::string csv =
      io::CommentBlock({{"carousel", kVersion},
                        {"command", "carousel predict " + JoinArgs(args)},
                        {"run", o.run},
                        {"pairs", o.pairs},
                        {"chains", std::to_string(runs.size())},
                        {"samples", std::to_string(samples)},
                        {"level", io::FormatReal(o.level)},
                        {"cold_pairs", std::to_string(cold)},
                        {model.amf ? "alpha" : "noise_variance",
                         io::FormatReal(model.amf ? model.entry.alpha : model.noise_variance)}});
  csv += analysis::PredictionColumns(model);
  csv += analysis::PredictionLines(pairs, analysis::SamplePredictions(model, row, col), model,
                                   o.level);
  io::WriteFileAtomically(o.out, csv);
  std::printf(
      "carousel predict: %zu pairs (%zu with a user or item the run never saw) from %zu samples "
      "of %zu chain(s) of %s; written to %s\n",
      n, cold, samples, runs.size(), o.run.c_str(), o.out.c_str());
  return 0;
}

}  // namespace carousel::cli
