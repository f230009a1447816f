// The engine's SG-MCMC posterior against the exact Gibbs sampler (DESIGN.md section 5,
// tier 2), on a small simulated problem: 100 users x 80 items, 4000 ratings, rank 3,
// noise 0.5, biases on, 10% held out.
//
// Hyperparameters are FIXED (tau = 3, lambda_w = lambda_h = sqrt(3) / 0.65,
// lambda_b = lambda_c = 1 / 0.35^2: the generator's values, tau including the rounding
// variance 1/12). Reasons: (1) with sampled hyperparameters the engine draws tau from the
// minibatch SSE every hyper_every iterations while Gibbs draws it from the full SSE every
// sweep, a second approximation that would blur the comparison of the samplers; (2) with
// fixed precisions, "the same sampler with its noise variance doubled" is an exact change
// of configuration (DoubledNoiseConfig below), which is how the broken sampler reaches
// the engine (the engine builds its sampler with MakeSampler).
//
// What is compared: the posterior predictive mean and variance of each test rating
// (MfPosterior::pred_mean / pred_sd, clipped predictions, one sample per iteration).
// Monte Carlo error:
//   - engine: the run is stopped every L iterations (kRequestStop, then Run again), and
//     the running sums in Posterior() give the means of each batch of L draws: batch
//     means (mc_stats.hpp) per test rating and for the average predictive variance;
//   - Gibbs: 8 independent chains (seeds), their spread.
// Discretisation bias is MEASURED: each sampler runs at eps/2 and eps/4 (eps = the
// default step), and the first-order extrapolation to eps -> 0,
//   x_0 = 2 x(eps/4) - x(eps/2),
// must agree with Gibbs within 4 Monte Carlo standard errors (of the extrapolated values,
// which are about 2.2 times those of one run). The bias at eps/4 is x(eps/2) - x(eps/4).
//   - variances: V = mean over test ratings of the predictive variance (a linear
//     functional of batch means after linearisation, so its standard error is exact);
//   - means: MAD = mean over test ratings of |m_0 - m_gibbs|; under "no bias" its
//     distribution follows from the estimated covariance of the Monte Carlo errors (batch
//     means and replicate deviations, which keep the correlations between test ratings):
//     it is simulated, and MAD must stay below E[MAD_null] + 4 sd[MAD_null].
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "../sampler/mc_stats.hpp"
#include "carousel/comm/communicator.hpp"
#include "carousel/engine/tile_engine.hpp"
#include "carousel/model/bpmf/bpmf.hpp"
#include "carousel/model/bpmf/bpmf_gibbs.hpp"
#include "carousel/model/bpmf/bpmf_metric.hpp"
#include "carousel/model/bpmf/bpmf_model.hpp"
#include "carousel/model/bpmf/mf_defaults.hpp"
#include "carousel/model/bpmf/mf_generator.hpp"
#include "carousel/sampler/sampler.hpp"
#include "carousel/util/keyed_rng.hpp"

namespace carousel {
namespace {

constexpr int kRank = 3;
constexpr double kZ = 4.0;
constexpr int kBatches = 40;           // batches per engine run
constexpr std::uint64_t kBatch = 300;  // iterations per batch at eps/2 (x2 at eps/4)
constexpr int kGibbsChains = 8;
constexpr int kGibbsSweeps = 800;

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

struct Data {
  RatingMatrix train;
  MfProblem problem;  // for the engine's grid (one tile, seed 5)
  TileShare share;
  std::vector<Rating> test;  // the same ratings as problem.test, for RunBpmfGibbs
  std::uint64_t max_degree = 1;
};

Data MakeData() {
  MfGeneratorOptions g;
  g.users = 100;
  g.items = 80;
  g.ratings = 4000;
  g.rank = kRank;
  g.noise = 0.5;
  g.seed = 9;
  const GeneratedRatings gen = GenerateMf(g);
  Data d;
  d.train.rows = g.users;
  d.train.cols = g.items;
  std::vector<Rating> held_out;
  std::vector<std::uint64_t> row_degree(g.users, 0), col_degree(g.items, 0);
  for (std::size_t t = 0; t < gen.rating.size(); ++t) {
    const Rating r{gen.user[t], gen.item[t], gen.rating[t]};
    if (KeyedStream(g.seed, Purpose::kSplit, t, 0).uniform() < 0.1) {
      held_out.push_back(r);
    } else {
      d.train.entries.push_back(r);
      d.max_degree = std::max({d.max_degree, ++row_degree[r.row], ++col_degree[r.col]});
    }
  }
  // Test ratings of users and items seen in training (both samplers then predict them
  // the same way; the others would only test the prior).
  std::vector<TestRating> test;
  for (const Rating& r : held_out) {
    if (row_degree[r.row] == 0 || col_degree[r.col] == 0) continue;
    d.test.push_back(r);
    test.push_back({r.row, r.col, r.value});
  }
  d.problem = WholeMfProblem(d.train, std::move(test), 1, 5, &d.share);
  d.problem.lo = 1.0f;  // the rating scale, whatever the sample's extremes
  d.problem.hi = 5.0f;
  return d;
}

BpmfPriors FixedPriors() {
  BpmfPriors p;
  p.use_bias = true;
  p.sample_hyper = false;
  const double lambda_factor = std::sqrt(static_cast<double>(kRank)) / 0.65;
  const double lambda_bias = 1.0 / (0.35 * 0.35);
  p.initial = BpmfHyper{3.0, lambda_factor, lambda_factor, lambda_bias, lambda_bias};
  return p;
}

MfConfig BaseConfig(const std::string& sampler, double step, double rmsprop_alpha) {
  MfConfig c;
  c.shape.rank = kRank;
  c.shape.bias = true;
  c.priors = FixedPriors();
  c.sampler.name = sampler;
  c.sampler.rmsprop_alpha = rmsprop_alpha;
  c.step.a = step;
  c.chain.tiles = 1;
  c.minibatch = 1.0;
  c.chain.eval_every = 1;
  c.chain.seed = 5;
  c.chain.split_seed = 5;  // the grid the problem was cut with
  return c;
}

// The broken sampler: the same sampler with its injected noise variance doubled,
// 2 eps D -> 4 eps D, written as a configuration. With every precision halved the
// gradient g = -grad U~ halves exactly (tau and lambda enter linearly; halving is exact
// in floating point), so
//   SGLD at step 2 eps:  2 eps (g / 2) + sqrt(2 (2 eps)) xi  =  eps g + sqrt(2) sqrt(2 eps) xi;
//   PSGLD at step eps with rmsprop_lambda / 2: g_bar halves, so sqrt(v) halves and
//     D' = 1 / ((lambda + sqrt(v)) / 2) = 2 D: eps D' g / 2 = eps D g and the noise
//     variance is 2 eps D' = 2 (2 eps D).
// DoubledNoiseConfigIsExactlyTheDoubledNoiseSampler checks this on one step.
MfConfig DoubledNoiseConfig(MfConfig c) {
  BpmfHyper& h = c.priors.initial;
  h.tau /= 2;
  h.lambda_w /= 2;
  h.lambda_h /= 2;
  h.lambda_b /= 2;
  h.lambda_c /= 2;
  c.sampler.rmsprop_lambda /= 2;
  if (c.sampler.name == "sgld") c.step.a *= 2;
  return c;
}

// ---------------------------------------------------------------------------------------
// Gibbs reference: 8 chains, computed once.

struct Reference {
  std::vector<double> mean;                     // per test rating
  std::vector<std::vector<double>> chain_mean;  // [chain][test rating]
  double v = 0.0, v_se = 0.0;                   // average predictive variance
  double seconds = 0.0;
};

const Data& SharedData() {
  static const Data data = MakeData();
  return data;
}

const Reference& GibbsReference() {
  static const Reference ref = [] {
    const Data& d = SharedData();
    const auto start = std::chrono::steady_clock::now();
    Reference r;
    const std::size_t n = d.test.size();
    r.mean.assign(n, 0.0);
    std::vector<double> chain_v;
    for (int chain = 0; chain < kGibbsChains; ++chain) {
      GibbsOptions o;
      o.rank = kRank;
      o.sweeps = kGibbsSweeps;
      o.burn_in = 100;
      o.priors = FixedPriors();
      o.seed = 100 + static_cast<std::uint64_t>(chain);
      const GibbsResult g = RunBpmfGibbs(d.train, d.test, o);
      r.chain_mean.push_back(g.pred_mean);
      double v = 0.0;
      for (std::size_t t = 0; t < n; ++t) {
        r.mean[t] += g.pred_mean[t] / kGibbsChains;
        v += g.pred_var[t] / static_cast<double>(n);
      }
      chain_v.push_back(v);
    }
    const mc::Estimate v = mc::IndependentMean(chain_v);
    r.v = v.mean;
    r.v_se = v.se;
    r.seconds = Seconds(start);
    return r;
  }();
  return ref;
}

// ---------------------------------------------------------------------------------------
// Engine runs with batch means.

struct SgRun {
  std::vector<std::vector<double>> batch_mean, batch_sq;  // [batch][test rating]
  std::vector<double> mean, var;                          // whole run
  double seconds = 0.0;
  std::uint64_t iterations = 0;
};

SgRun RunEngine(const Data& d, MfConfig c, std::uint64_t batch, int batches) {
  c.chain.eval_every = 1;
  c.chain.iterations = c.chain.burn_in + batch * static_cast<std::uint64_t>(batches);
  const auto start = std::chrono::steady_clock::now();
  auto comm = MakeSerialCommunicator();
  BpmfModel model(c, d.problem, d.share);
  TileEngine engine(*comm, model, c.chain);
  std::uint64_t done = 0;
  EngineCallbacks callbacks;
  callbacks.on_iteration = [&](std::uint64_t iteration, double) { done = iteration; };
  // Stop at the end of each batch; Run() resumes where it stopped.
  callbacks.requests = [&] {
    return done > c.chain.burn_in && (done - c.chain.burn_in) % batch == 0
               ? static_cast<int>(kRequestStop)
               : 0;
  };
  const std::size_t n = d.problem.test.size();
  std::vector<double> sum(n, 0.0), sum_sq(n, 0.0);
  double previous = 0.0;
  SgRun run;
  while (static_cast<int>(run.batch_mean.size()) < batches) {
    engine.Run(callbacks);
    const MfPosterior post = model.Posterior();
    const double count = static_cast<double>(post.samples);
    std::vector<double> m(n), q(n);
    for (std::size_t t = 0; t < n; ++t) {
      const double s1 = count * post.pred_mean[t];
      const double s2 =
          count * (post.pred_sd[t] * post.pred_sd[t] + post.pred_mean[t] * post.pred_mean[t]);
      m[t] = (s1 - sum[t]) / (count - previous);
      q[t] = (s2 - sum_sq[t]) / (count - previous);
      sum[t] = s1;
      sum_sq[t] = s2;
    }
    previous = count;
    run.batch_mean.push_back(std::move(m));
    run.batch_sq.push_back(std::move(q));
    run.mean = post.pred_mean;
    run.var.resize(n);
    for (std::size_t t = 0; t < n; ++t) run.var[t] = post.pred_sd[t] * post.pred_sd[t];
  }
  run.iterations = engine.iteration();
  run.seconds = Seconds(start);
  return run;
}

// Average predictive variance V = mean_t var_t with its batch-means standard error: with
// p_b,t, q_b,t the batch means of the prediction and its square and m_t the run's mean,
// V = mean_t (mean_b q_b,t - m_t^2) ~ mean_b y_b + const, y_b = mean_t (q_b,t - 2 m_t p_b,t).
mc::Estimate AverageVariance(const SgRun& run) {
  const std::size_t n = run.mean.size();
  std::vector<double> y(run.batch_mean.size(), 0.0);
  for (std::size_t b = 0; b < y.size(); ++b)
    for (std::size_t t = 0; t < n; ++t)
      y[b] +=
          (run.batch_sq[b][t] - 2.0 * run.mean[t] * run.batch_mean[b][t]) / static_cast<double>(n);
  mc::Estimate e = mc::IndependentMean(y);
  e.mean = 0.0;
  for (double v : run.var) e.mean += v / static_cast<double>(n);
  return e;
}

// A Monte Carlo error vector with the estimated covariance of a mean: from B batch means
// (or B independent chains) x_b, sum_b g_b (x_b - xbar) / sqrt(B (B - 1)), g_b ~ N(0, 1).
struct ErrorModel {
  std::vector<std::vector<double>> deviations;  // already divided by sqrt(B (B - 1))
  double weight = 1.0;

  static ErrorModel From(const std::vector<std::vector<double>>& pieces, double weight) {
    ErrorModel e;
    e.weight = weight;
    const std::size_t b = pieces.size(), n = pieces[0].size();
    std::vector<double> mean(n, 0.0);
    for (const auto& x : pieces)
      for (std::size_t t = 0; t < n; ++t) mean[t] += x[t] / static_cast<double>(b);
    const double norm = std::sqrt(static_cast<double>(b) * static_cast<double>(b - 1));
    for (const auto& x : pieces) {
      std::vector<double> dev(n);
      for (std::size_t t = 0; t < n; ++t) dev[t] = (x[t] - mean[t]) / norm;
      e.deviations.push_back(std::move(dev));
    }
    return e;
  }
};

// Distribution of MAD = mean_t |sum_k weight_k error_k,t| under "no bias": mean and sd
// over simulated error vectors.
mc::Estimate NullMad(const std::vector<ErrorModel>& models, std::uint64_t seed) {
  const std::size_t n = models[0].deviations[0].size();
  constexpr int kSimulations = 4000;
  std::vector<double> mads;
  std::vector<double> e(n);
  for (int s = 0; s < kSimulations; ++s) {
    KeyedStream rng(seed, Purpose::kTest, 7, static_cast<std::uint64_t>(s));
    std::fill(e.begin(), e.end(), 0.0);
    for (const ErrorModel& m : models)
      for (const auto& dev : m.deviations) {
        const double g = m.weight * rng.normal();
        for (std::size_t t = 0; t < n; ++t) e[t] += g * dev[t];
      }
    double mad = 0.0;
    for (double x : e) mad += std::abs(x) / static_cast<double>(n);
    mads.push_back(mad);
  }
  mc::Estimate out = mc::IndependentMean(mads);
  out.se *= std::sqrt(static_cast<double>(kSimulations));  // the sd of MAD, not of its mean
  return out;
}

double Mad(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0.0;
  for (std::size_t t = 0; t < a.size(); ++t) s += std::abs(a[t] - b[t]);
  return s / static_cast<double>(a.size());
}

// RMS over test ratings of the change of the predictive mean from eps/2 to eps/4 (the
// first-order bias at eps/4), with the Monte Carlo part removed: sqrt(max(0, mean_t d_t^2 -
// mean_t (se2_t^2 + se4_t^2))).
double MeasuredMeanBias(const SgRun& half, const SgRun& quarter) {
  const std::size_t n = half.mean.size();
  double sq = 0.0, noise = 0.0;
  for (std::size_t t = 0; t < n; ++t) {
    const double d = half.mean[t] - quarter.mean[t];
    std::vector<double> a, b;
    for (const auto& x : half.batch_mean) a.push_back(x[t]);
    for (const auto& x : quarter.batch_mean) b.push_back(x[t]);
    const double sa = mc::IndependentMean(a).se, sb = mc::IndependentMean(b).se;
    sq += d * d / static_cast<double>(n);
    noise += (sa * sa + sb * sb) / static_cast<double>(n);
  }
  return std::sqrt(std::max(0.0, sq - noise));
}

struct Verdict {
  bool means_ok = false, variance_ok = false;
  double variance_z = 0.0;  // (extrapolated V - Gibbs V) / its standard error
  std::string report;
};

// Runs `config` at eps/2 and eps/4 (eps = config.step.a) and compares with Gibbs.
// `batch_scale` < 1 shortens the runs (a broken sampler needs less evidence).
Verdict CompareWithGibbs(const std::string& label, const MfConfig& config, double batch_scale) {
  const Data& d = SharedData();
  const Reference& ref = GibbsReference();
  std::vector<SgRun> runs;
  for (int halvings = 1; halvings <= 2; ++halvings) {
    MfConfig c = config;
    const double div = static_cast<double>(1 << halvings);
    c.step.a = config.step.a / div;
    // Burn-in and batches grow with 1/step: the same number of effective draws each.
    c.chain.burn_in = static_cast<std::uint64_t>(2000 * div);
    const auto batch = static_cast<std::uint64_t>(batch_scale * kBatch * div / 2);
    runs.push_back(RunEngine(d, c, batch, kBatches));
  }
  const SgRun& half = runs[0];
  const SgRun& quarter = runs[1];
  const std::size_t n = ref.mean.size();

  // Variances.
  const mc::Estimate v2 = AverageVariance(half), v4 = AverageVariance(quarter);
  // Batches long enough? Merging them in pairs must leave the standard errors about the same.
  auto merged = [](const SgRun& run) {
    SgRun m = run;
    m.batch_mean.clear();
    m.batch_sq.clear();
    for (std::size_t b = 0; b + 1 < run.batch_mean.size(); b += 2) {
      std::vector<double> p(run.mean.size()), q(run.mean.size());
      for (std::size_t t = 0; t < p.size(); ++t) {
        p[t] = 0.5 * (run.batch_mean[b][t] + run.batch_mean[b + 1][t]);
        q[t] = 0.5 * (run.batch_sq[b][t] + run.batch_sq[b + 1][t]);
      }
      m.batch_mean.push_back(std::move(p));
      m.batch_sq.push_back(std::move(q));
    }
    return m;
  };
  const double v2_se_merged = AverageVariance(merged(half)).se;
  const double v4_se_merged = AverageVariance(merged(quarter)).se;
  const double v0 = 2.0 * v4.mean - v2.mean;
  const double v0_se = std::sqrt(4.0 * v4.se * v4.se + v2.se * v2.se);
  const double v_se = std::hypot(v0_se, ref.v_se);
  Verdict verdict;
  verdict.variance_ok = std::abs(v0 - ref.v) <= kZ * v_se;
  verdict.variance_z = (v0 - ref.v) / v_se;

  // Means.
  std::vector<double> m0(n);
  for (std::size_t t = 0; t < n; ++t) m0[t] = 2.0 * quarter.mean[t] - half.mean[t];
  const double mad0 = Mad(m0, ref.mean);
  const ErrorModel e2 = ErrorModel::From(half.batch_mean, -1.0);
  const ErrorModel e4 = ErrorModel::From(quarter.batch_mean, 2.0);
  const ErrorModel eg = ErrorModel::From(ref.chain_mean, -1.0);
  const mc::Estimate null0 = NullMad({e2, e4, eg}, 1);
  verdict.means_ok = mad0 <= null0.mean + kZ * null0.se;
  const mc::Estimate null2 = NullMad({ErrorModel::From(half.batch_mean, 1.0), eg}, 2);
  const mc::Estimate null4 = NullMad({ErrorModel::From(quarter.batch_mean, 1.0), eg}, 3);

  std::ostringstream r;
  r << std::setprecision(4) << "[" << label << "] " << n << " test ratings; Gibbs " << kGibbsChains
    << " x " << kGibbsSweeps << " sweeps (" << ref.seconds << " s)\n"
    << "  runs: eps/2 = " << config.step.a / 2 << " (" << half.iterations << " it, " << half.seconds
    << " s), eps/4 = " << config.step.a / 4 << " (" << quarter.iterations << " it, "
    << quarter.seconds << " s)\n"
    << "  average predictive variance: Gibbs " << ref.v << " +- " << ref.v_se << "; eps/2 "
    << v2.mean << " +- " << v2.se << " (x" << v2.mean / ref.v << "), eps/4 " << v4.mean << " +- "
    << v4.se << " (x" << v4.mean / ref.v << "); extrapolated " << v0 << " +- " << v0_se << " (x"
    << v0 / ref.v << ", z = " << (v0 - ref.v) / v_se << ")"
    << "; measured bias at eps/4: " << (v2.mean - v4.mean) / ref.v * 100 << "% of V"
    << "; se with batches twice as long: " << v2_se_merged << ", " << v4_se_merged << "\n"
    << "  predictive means, MAD to Gibbs: eps/2 " << Mad(half.mean, ref.mean) << " (null "
    << null2.mean << " +- " << null2.se << "), eps/4 " << Mad(quarter.mean, ref.mean) << " (null "
    << null4.mean << " +- " << null4.se << "), extrapolated " << mad0 << " (null " << null0.mean
    << " +- " << null0.se << ", bound " << null0.mean + kZ * null0.se
    << "); measured RMS bias of the means at eps/4: " << MeasuredMeanBias(half, quarter)
    << "; posterior predictive sd (Gibbs) " << std::sqrt(ref.v) << "\n"
    << "  verdict: variance " << (verdict.variance_ok ? "ok" : "REJECTED") << ", means "
    << (verdict.means_ok ? "ok" : "REJECTED") << "\n";
  verdict.report = r.str();
  std::cout << verdict.report;
  return verdict;
}

// The CLI's defaults for this data (mf_defaults.hpp): step, PSGLD's floor and, for SGRLD,
// the Fisher metric.
MfConfig DefaultConfig(const std::string& sampler, double rmsprop_alpha) {
  MfConfig c = BaseConfig(sampler, 0.0, rmsprop_alpha);
  if (sampler == "sgrld") c.sampler.metric = std::make_shared<ExpectedFisherMetric>();
  c.sampler.rmsprop_lambda = DefaultRmspropLambda(SharedData().problem);
  c.step.a = DefaultMfStep(c.sampler, SharedData().problem, c.chain.tiles / c.minibatch);
  return c;
}

// ---------------------------------------------------------------------------------------

// One step of the real samplers under DoubledNoiseConfig's transformation equals the
// doubled-noise update computed by hand (same noise numbers).
TEST(EngineVsGibbs, DoubledNoiseConfigIsExactlyTheDoubledNoiseSampler) {
  const int rows = 4, cols = 4;
  KeyedStream rng(3, Purpose::kTest, 0, 0);
  Matrix theta(rows, cols), lik(rows, cols);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      theta(r, c) = static_cast<float>(rng.normal());
      lik(r, c) = static_cast<float>(10.0 * rng.normal());  // = tau * sum of residual terms
    }
  const std::vector<std::uint32_t> ids = {3, 1, 4, 1};
  const BpmfShape shape{cols - 1, true};
  const double scale = 2.0, batch = 50.0, step = 0.01;
  for (const std::string name : {"sgld", "psgld"}) {
    MfConfig good = BaseConfig(name, step, 0.99);
    const MfConfig bad = DoubledNoiseConfig(good);
    const auto sampler_good = MakeSampler(good.sampler);
    const auto sampler_bad = MakeSampler(bad.sampler);
    const BpmfHyper& hg = good.priors.initial;
    const BpmfHyper& hb = bad.priors.initial;
    const Eigen::VectorXf prior_bad = PriorPrecision(shape, hb.lambda_w, hb.lambda_b);
    const Matrix lik_bad = lik * static_cast<float>(hb.tau / hg.tau);
    BlockState block{theta, {}};
    sampler_bad->InitAux(block);
    const NoiseKey noise{9, Purpose::kNoiseRow, 17, &ids};
    sampler_bad->Step(block, BlockGradient{lik_bad, scale, batch, prior_bad}, bad.step.a, noise);
    const Eigen::VectorXf prior = PriorPrecision(shape, hg.lambda_w, hg.lambda_b);
    Eigen::ArrayXf xi;
    noise.FillRows(0, rows, cols, xi);  // the rows' noise, as the samplers draw it
    for (int r = 0; r < rows; ++r) {
      for (int c = 0; c < cols; ++c) {
        const double g = scale * lik(r, c) - prior[c] * theta(r, c);
        const double g_bar = lik(r, c) / batch;  // first step: v = g_bar^2
        const double dd =
            name == "sgld" ? 1.0 : 1.0 / (good.sampler.rmsprop_lambda + std::abs(g_bar));
        const double expected =
            theta(r, c) + step * dd * g + std::sqrt(2.0 * (2.0 * step * dd)) * xi[r * cols + c];
        EXPECT_NEAR(block.theta(r, c), expected, 1e-5 * (1.0 + std::abs(expected)))
            << name << " row " << r << " col " << c;
      }
    }
  }
}

TEST(EngineVsGibbs, SgldMatchesGibbs) {
  const MfConfig c = DefaultConfig("sgld", 0.99);
  const Verdict v = CompareWithGibbs("sgld", c, 1.0);
  RecordProperty("report", v.report);
  EXPECT_TRUE(v.variance_ok) << v.report;
  EXPECT_TRUE(v.means_ok) << v.report;
}

TEST(EngineVsGibbs, SgldCheckRejectsDoubledNoise) {
  const MfConfig c = DefaultConfig("sgld", 0.99);
  const Verdict v = CompareWithGibbs("sgld, noise variance x2", DoubledNoiseConfig(c), 1.0);
  RecordProperty("report", v.report);
  EXPECT_FALSE(v.variance_ok) << v.report;
  EXPECT_FALSE(v.means_ok) << v.report;
}

// SGRLD with the expected-Fisher metric (bpmf_metric.hpp), the metric that follows the
// scale of the factors: its Gamma is zero because a row's metric depends only on its
// partners, hyperparameters and rating count. DoubledNoiseConfig doubles its noise exactly
// as for PSGLD: halving tau and the lambdas halves the gradient and G = lambda + n tau m.
TEST(EngineVsGibbs, SgrldFisherMetricMatchesGibbs) {
  const MfConfig c = DefaultConfig("sgrld", 0.99);
  const Verdict v = CompareWithGibbs("sgrld fisher", c, 1.0);
  RecordProperty("report", v.report);
  EXPECT_TRUE(v.variance_ok) << v.report;
  EXPECT_TRUE(v.means_ok) << v.report;
}

// The variance check rejects the doubled noise (measured: x1.89 of Gibbs's variance,
// z = 27). The means check does not, and is not asserted: with this metric the doubled
// noise leaves the predictive means within their Monte Carlo error (the SGLD and PSGLD
// controls above show that check rejecting a broken sampler).
TEST(EngineVsGibbs, SgrldFisherCheckRejectsDoubledNoise) {
  const MfConfig c = DefaultConfig("sgrld", 0.99);
  const Verdict v = CompareWithGibbs("sgrld fisher, noise variance x2", DoubledNoiseConfig(c), 1.0);
  RecordProperty("report", v.report);
  EXPECT_FALSE(v.variance_ok) << v.report;
}

// PSGLD with rmsprop_alpha = 0.999: v averages the squared gradients over ~1000
// iterations, far longer than the predictions take to decorrelate, so the preconditioner
// is nearly constant along the chain and the missing Gamma term (HAMCMC paper Eq. 9)
// vanishes; the chain is then a preconditioned Euler scheme with an O(eps) bias only.
TEST(EngineVsGibbs, PsgldWithSlowPreconditionerMatchesGibbs) {
  const MfConfig c = DefaultConfig("psgld", 0.999);
  const Verdict v = CompareWithGibbs("psgld alpha=0.999", c, 1.0);
  RecordProperty("report", v.report);
  EXPECT_TRUE(v.variance_ok) << v.report;
  EXPECT_TRUE(v.means_ok) << v.report;
}

TEST(EngineVsGibbs, PsgldCheckRejectsDoubledNoise) {
  const MfConfig c = DefaultConfig("psgld", 0.999);
  const Verdict v =
      CompareWithGibbs("psgld alpha=0.999, noise variance x2", DoubledNoiseConfig(c), 1.0);
  RecordProperty("report", v.report);
  EXPECT_FALSE(v.variance_ok) << v.report;
  EXPECT_FALSE(v.means_ok) << v.report;
}

// PSGLD with rmsprop_alpha = 0.99 (the default before this bias was measured): v follows the last
// ~100 gradients, so the preconditioner depends on where the chain is, and without the Gamma term
// (psgld.hpp) the chain keeps a bias that does not vanish with the step (HAMCMC paper Sec. 3.1; the
// conditional-posterior test shows it on a Gaussian target). Measured here (seed fixed,
// the default floor 2 / N): average predictive variance x1.092 (eps/2), x1.079 (eps/4)
// of Gibbs's, extrapolated x1.066, 7.9 standard errors above; with alpha = 0.999 (test
// above) the same extrapolation gives x1.002 (z = 0.3).
// The variance assertion below is a characterisation of that documented limitation: it
// asserts the excess is there. If it fails, the bias has gone (e.g. a Gamma correction
// was added) and it should become EXPECT_TRUE(v.variance_ok) as for the other samplers.
TEST(EngineVsGibbs, PsgldShortWindowMeansMatchVarianceCarriesGammaBias) {
  const MfConfig c = DefaultConfig("psgld", 0.99);
  const Verdict v = CompareWithGibbs("psgld alpha=0.99", c, 1.0);
  RecordProperty("report", v.report);
  EXPECT_TRUE(v.means_ok) << v.report;
  EXPECT_GT(v.variance_z, kZ) << "the Gamma-term bias of PSGLD (alpha = 0.99) is no longer "
                                 "visible\n"
                              << v.report;
}

}  // namespace
}  // namespace carousel
