// End-to-end accuracy of the engine against the oracle noise floor (DESIGN.md section 5).
//
// Data: GenerateMf with 600 users x 500 items, 150000 ratings (half of the cells: the
// densest the generator allows), rank 5, noise 0.5, seed 5; 10% held out by a keyed
// split. The floor is the RMSE of the oracle (the true clipped mean, known to the
// generator) on the held-out ratings: no predictor beats it on average.
//
// Why this size: the exact posterior mean carries estimation error of about
// sigma^2 (K+1) (1/deg_user + 1/deg_item) in squared error, so the 5%-of-floor
// criterion is only reachable with dense data. Measured with the exact Gibbs sampler
// (200 sweeps, seed fixed): 400 x 300 x 30000 ratings -> 1.101 x floor, 400 x 300 x 60000
// -> 1.041, 500 x 400 x 80000 -> 1.040, 600 x 500 x 150000 -> 1.028. At the last size the
// criterion is met with room by the exact posterior (GibbsIsWithinFivePercentHere), so
// the engine is held to it honestly.
//
// The criterion is the specification's (5% of the noise floor), not a tolerance tuned
// here. Measured (seed fixed; floor 0.5628 on 15100 held-out ratings): psgld 1.029 x floor,
// sgld 1.028, exact Gibbs 1.028. The engine's Monte Carlo error is therefore below the
// 0.1% by which it differs from the exact posterior mean, far inside the 2% margin.
//
// A posterior-mean RMSE is insensitive to variance errors (SGLD with doubled noise stays
// at 1.03 x floor; variances are checked by engine_vs_gibbs_test.cpp), so the broken
// sampler this check must reject is one that breaks the mean: SGLD that forgets the
// N / |minibatch| scale of the likelihood gradient, run on 10% minibatches (it then sees
// a tenth of the data): 1.177 x floor, against 1.030 for the correct SGLD on the same
// minibatches.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "carousel/comm/communicator.hpp"
#include "carousel/engine/tile_engine.hpp"
#include "carousel/model/bpmf/bpmf_gibbs.hpp"
#include "carousel/model/bpmf/bpmf_model.hpp"
#include "carousel/model/bpmf/mf_generator.hpp"
#include "carousel/util/keyed_rng.hpp"

namespace carousel {
namespace {

constexpr int kRank = 5;
constexpr double kCriterion = 1.05;  // the specification: within 5% of the noise floor

struct Data {
  RatingMatrix train;
  MfProblem problem;  // for the engine's grid (one tile, seed 3)
  TileShare share;
  std::vector<Rating> test;  // the same ratings, for RunBpmfGibbs
  double floor = 0.0;        // oracle RMSE on the held-out ratings
  std::uint64_t max_degree = 1;
};

const Data& SharedData() {
  static const Data data = [] {
    MfGeneratorOptions g;
    g.users = 600;
    g.items = 500;
    g.ratings = 150000;
    g.rank = kRank;
    g.noise = 0.5;
    g.seed = 5;
    const GeneratedRatings gen = GenerateMf(g);
    Data d;
    d.train.rows = g.users;
    d.train.cols = g.items;
    std::vector<std::uint64_t> row_degree(g.users, 0), col_degree(g.items, 0);
    std::vector<Rating> held_out;
    double oracle_sse = 0.0;
    for (std::size_t t = 0; t < gen.rating.size(); ++t) {
      const Rating r{gen.user[t], gen.item[t], gen.rating[t]};
      if (KeyedStream(g.seed, Purpose::kSplit, t, 0).uniform() < 0.1) {
        held_out.push_back(r);
        const double miss = gen.oracle[t] - gen.rating[t];
        oracle_sse += miss * miss;
      } else {
        d.train.entries.push_back(r);
        d.max_degree = std::max({d.max_degree, ++row_degree[r.row], ++col_degree[r.col]});
      }
    }
    d.floor = std::sqrt(oracle_sse / static_cast<double>(held_out.size()));
    std::vector<TestRating> test;
    for (const Rating& r : held_out) {
      // A user or item without training ratings is predicted from what is known of it.
      test.push_back({row_degree[r.row] ? r.row : kUnknownId,
                      col_degree[r.col] ? r.col : kUnknownId, r.value});
    }
    d.problem = WholeMfProblem(d.train, std::move(test), 1, 3, &d.share);
    d.problem.lo = 1.0f;  // the rating scale, whatever the sample's extremes
    d.problem.hi = 5.0f;
    d.test = held_out;
    return d;
  }();
  return data;
}

struct Outcome {
  double rmse_mean = 0.0, seconds = 0.0;
  std::uint64_t samples = 0;
};

Outcome RunEngine(const MfConfig& config) {
  const auto start = std::chrono::steady_clock::now();
  auto comm = MakeSerialCommunicator();
  BpmfModel model(config, SharedData().problem, SharedData().share);
  TileEngine engine(*comm, model, config.chain);
  engine.Run(EngineCallbacks{});
  Outcome o;
  o.rmse_mean = model.trace().back().rmse_mean;
  o.samples = model.trace().back().samples;
  o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return o;
}

// The CLI's defaults (src/cli/mf_command.cpp): sampled precisions, biases on, one tile,
// full strata, psgld step 0.05 / N_train, sgld step 0.5 / max degree.
MfConfig DefaultConfig(const std::string& sampler) {
  const Data& d = SharedData();
  MfConfig c;
  c.shape.rank = kRank;
  c.shape.bias = true;
  c.sampler.name = sampler;
  c.step.a = sampler == "sgld" ? 0.5 / static_cast<double>(d.max_degree)
                               : 0.05 / static_cast<double>(d.problem.train_count);
  c.chain.iterations = 1000;
  c.chain.burn_in = 250;
  c.chain.eval_every = 10;
  c.chain.seed = 3;
  c.chain.split_seed = 3;  // the grid the problem was cut with
  return c;
}

std::string Report(const std::string& label, const Outcome& o) {
  const Data& d = SharedData();
  std::ostringstream s;
  s << std::setprecision(4) << "[" << label << "] posterior-mean test RMSE " << o.rmse_mean << " = "
    << o.rmse_mean / d.floor << " x noise floor " << d.floor << " (" << d.test.size()
    << " held-out ratings, " << o.samples << " samples, " << o.seconds << " s)";
  std::cout << s.str() << "\n";
  return s.str();
}

TEST(EngineAccuracy, PsgldWithinFivePercentOfTheNoiseFloor) {
  const Outcome o = RunEngine(DefaultConfig("psgld"));
  const std::string r = Report("psgld", o);
  RecordProperty("report", r);
  EXPECT_LT(o.rmse_mean, kCriterion * SharedData().floor) << r;
}

TEST(EngineAccuracy, SgldWithinFivePercentOfTheNoiseFloor) {
  const Outcome o = RunEngine(DefaultConfig("sgld"));
  const std::string r = Report("sgld", o);
  RecordProperty("report", r);
  EXPECT_LT(o.rmse_mean, kCriterion * SharedData().floor) << r;
}

// The exact sampler at the same size: shows the criterion is attainable here.
TEST(EngineAccuracy, GibbsIsWithinFivePercentHere) {
  const Data& d = SharedData();
  const auto start = std::chrono::steady_clock::now();
  GibbsOptions o;
  o.rank = kRank;
  o.sweeps = 200;
  o.burn_in = 50;
  o.seed = 1;
  // RunBpmfGibbs needs known ids: drop held-out ratings of ids unseen in training.
  std::vector<Rating> test;
  for (std::size_t t = 0; t < d.test.size(); ++t)
    if (d.problem.test[t].row != kUnknownId && d.problem.test[t].col != kUnknownId)
      test.push_back(d.test[t]);
  const GibbsResult g = RunBpmfGibbs(d.train, test, o);
  Outcome out;
  out.rmse_mean = g.rmse_mean.back();
  out.samples = static_cast<std::uint64_t>(o.sweeps - o.burn_in);
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::string r = Report("gibbs", out);
  RecordProperty("report", r);
  EXPECT_LT(out.rmse_mean, kCriterion * d.floor) << r;
}

// The broken sampler: SGLD on 10% minibatches whose likelihood gradient misses the
// N / |minibatch| = 10 scale. With fixed precisions that is exactly a configuration: the
// engine computes scale * tau * sum(residual * h), so tau' = tau / scale gives the
// unscaled gradient (up to float rounding). Both chains use the generator's precisions
// (tau = 3 with the rounding variance, lambda = sqrt(5) / 0.65, lambda_bias = 1 / 0.35^2).
TEST(EngineAccuracy, CheckRejectsSgldThatForgetsTheMinibatchScale) {
  constexpr double kFraction = 0.1;
  MfConfig good = DefaultConfig("sgld");
  good.minibatch = kFraction;
  good.priors.sample_hyper = false;
  const double lambda = std::sqrt(static_cast<double>(kRank)) / 0.65, lambda_bias = 1 / 0.1225;
  good.priors.initial = BpmfHyper{3.0, lambda, lambda, lambda_bias, lambda_bias};
  MfConfig bad = good;
  bad.priors.initial.tau *= kFraction;  // scale = 1 / kFraction with one tile

  const Outcome o_good = RunEngine(good);
  const std::string r_good = Report("sgld, 10% minibatches", o_good);
  const Outcome o_bad = RunEngine(bad);
  const std::string r =
      r_good + "\n" + Report("sgld, 10% minibatches, forgets N/|minibatch|", o_bad);
  RecordProperty("report", r);
  EXPECT_LT(o_good.rmse_mean, kCriterion * SharedData().floor) << r;
  EXPECT_GE(o_bad.rmse_mean, kCriterion * SharedData().floor)
      << "the noise-floor check must reject the broken sampler\n"
      << r;
}

}  // namespace
}  // namespace carousel
