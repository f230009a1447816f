// `carousel mf --sampler gibbs`: the exact Gibbs sampler for the same BPMF model, the
// reference against which the SG-MCMC samplers are checked. One process; test ratings of
// unseen users or items are left out of its RMSE and predicted by the training mean.
#include "carousel/model/bpmf/mf_gibbs_run.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "carousel/io/atomic_file.hpp"
#include "carousel/model/bpmf/bpmf_gibbs.hpp"
#include "carousel/model/bpmf/mf_outputs.hpp"

namespace carousel {

int RunGibbsReference(const std::string& out, const MfConfig& config, const io::LoadedMf& data,
                      const std::string& comments, bool quiet) {
  GibbsOptions options;
  options.rank = config.shape.rank;
  options.sweeps = static_cast<int>(config.chain.iterations);
  options.burn_in = static_cast<int>(config.chain.burn_in);
  options.priors = config.priors;
  options.seed = config.chain.seed;
  options.min_rating = data.problem.lo;
  options.max_rating = data.problem.hi;

  std::vector<Rating> test;
  std::vector<std::size_t> known;
  for (std::size_t k = 0; k < data.problem.test.size(); ++k) {
    const TestRating& t = data.problem.test[k];
    if (t.row == kUnknownId || t.col == kUnknownId) continue;
    test.push_back({t.row, t.col, t.value});
    known.push_back(k);
  }
  const auto start = std::chrono::steady_clock::now();
  // One process holds every rating; sorted by (user, item), so that the sums within a row
  // or column do not depend on the order of the file's lines.
  const TileGrid grid = MfGrid(data.problem, config.chain.tiles, config.chain.split_seed);
  RatingMatrix train{data.problem.rows, data.problem.cols, {}};
  for (std::size_t part = 0; part < data.share.parts.size(); ++part)
    for (const LocalRating& r : data.share.parts[part])
      train.entries.push_back(data.share.Global(grid, part, r));
  std::sort(train.entries.begin(), train.entries.end(), [](const Rating& a, const Rating& b) {
    return a.row != b.row ? a.row < b.row : a.col < b.col;
  });
  const GibbsResult result = RunBpmfGibbs(train, test, options);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  io::EnsureDirectory(out);
  std::vector<TraceRow> trace;
  for (std::size_t s = 0; s < result.rmse_sample.size(); ++s) {
    TraceRow row;
    row.iteration = s + 1;
    row.seconds = seconds * static_cast<double>(s + 1) / result.rmse_sample.size();
    row.rmse_sample = result.rmse_sample[s];
    row.rmse_mean = result.rmse_mean[s];
    row.rmse_train = std::nan("");
    row.samples = s + 1 > config.chain.burn_in ? s + 1 - config.chain.burn_in : 0;
    // The Gibbs reference reports the precisions of its last sweep only; earlier rows say
    // "not recorded" rather than showing the prior's starting values.
    const double nan = std::nan("");
    row.hyper =
        s + 1 == result.rmse_sample.size() ? result.last_hyper : BpmfHyper{nan, nan, nan, nan, nan};
    trace.push_back(row);
  }
  io::WriteTrace(out + "/trace.csv", comments, trace);
  MfPosterior posterior;
  posterior.pred_mean.assign(data.problem.test.size(), data.problem.mu);
  posterior.pred_sd.assign(data.problem.test.size(), 0.0);
  for (std::size_t e = 0; e < known.size(); ++e) {
    posterior.pred_mean[known[e]] = result.pred_mean[e];
    posterior.pred_sd[known[e]] = std::sqrt(result.pred_var[e]);
  }
  // One process: its share of the test set is the whole of it, in order.
  io::WritePredictions(out + "/predictions.csv", comments, io::HeldTestSet(data), posterior);
  if (!quiet)
    std::printf(
        "carousel mf --sampler gibbs: %zu sweeps in %.2f s; test RMSE %.4f (posterior "
        "mean, %zu test ratings with known user and item)\n",
        result.rmse_mean.size(), seconds, result.rmse_mean.back(), test.size());
  return 0;
}

}  // namespace carousel
