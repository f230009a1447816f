#include "carousel/model/bpmf/bpmf_gibbs.hpp"

#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <Eigen/LU>
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "carousel/model/bpmf/mf_generator.hpp"
#include "carousel/util/error.hpp"
#include "carousel/util/keyed_rng.hpp"

namespace carousel {
namespace {

// ---------------------------------------------------------------------------------------
// (a), (b): one row's conditional against its closed form.

// A single user with a fixed set of rated items: the closed-form Gaussian conditional of
// (w, b) given H, c, tau and the lambdas, computed here without SampleRowConditional.
struct SingleRowProblem {
  int rank = 3;
  Eigen::MatrixXd h;  // rank x n
  Eigen::VectorXd c;  // n
  std::vector<std::uint32_t> items;
  std::vector<float> values;
  double mu = 3.5, tau = 2.0, lambda_w = 1.5, lambda_b = 0.8;

  SingleRowProblem() {
    const int n = 8;
    KeyedStream rng(11, Purpose::kTest, 0, 0);
    h.resize(rank, n);
    c.resize(n);
    for (int j = 0; j < n; ++j) {
      for (int k = 0; k < rank; ++k) h(k, j) = 0.7 * rng.normal();
      c(j) = 0.3 * rng.normal();
    }
    // The user rates 6 of the 8 items (ids not in order), so indexing matters.
    items = {6, 1, 3, 0, 7, 4};
    for (std::size_t t = 0; t < items.size(); ++t) {
      values.push_back(static_cast<float>(1 + static_cast<int>(rng.below(5))));
    }
  }

  RowRatings Row() const { return RowRatings{items.data(), values.data(), items.size()}; }

  // Closed form: precision P = diag(lambda_w I, lambda_b) + tau sum z z^T, z = [h_j; 1];
  // mean P^-1 tau sum z (r - mu - c_j).
  void ClosedForm(Eigen::VectorXd* mean, Eigen::MatrixXd* cov) const {
    const int d = rank + 1;
    Eigen::MatrixXd p = Eigen::MatrixXd::Zero(d, d);
    Eigen::VectorXd rhs = Eigen::VectorXd::Zero(d);
    for (int k = 0; k < rank; ++k) p(k, k) = lambda_w;
    p(rank, rank) = lambda_b;
    for (std::size_t t = 0; t < items.size(); ++t) {
      Eigen::VectorXd z(d);
      z.head(rank) = h.col(items[t]);
      z(rank) = 1.0;
      p += tau * z * z.transpose();
      rhs += tau * z * (values[t] - mu - c(items[t]));
    }
    *cov = p.inverse();
    *mean = *cov * rhs;
  }
};

// Independent draws from the conditional (H is fixed, so successive Gibbs draws of this
// row are i.i.d. and the Monte Carlo standard errors below are exact).
std::vector<Eigen::VectorXd> Draw(const SingleRowProblem& pr, int count, double tau,
                                  double lambda_w, double lambda_b, const Eigen::VectorXd& c) {
  std::vector<Eigen::VectorXd> draws;
  draws.reserve(count);
  for (int t = 0; t < count; ++t) {
    KeyedStream rng(5, Purpose::kTest, 1, static_cast<std::uint64_t>(t));
    draws.push_back(SampleRowConditional(pr.h, c, pr.Row(), pr.mu, tau, lambda_w, lambda_b,
                                         /*use_bias=*/true, rng));
  }
  return draws;
}

// Sample mean and covariance against (m, S), each entry within 4 Monte Carlo standard
// errors: se(mean_a) = sqrt(S_aa / M); for Gaussian draws the sample covariance has
// se(S_ab) = sqrt((S_aa S_bb + S_ab^2) / M). Returns the failures (empty: consistent).
std::vector<std::string> CheckAgainstClosedForm(const std::vector<Eigen::VectorXd>& draws,
                                                const Eigen::VectorXd& m,
                                                const Eigen::MatrixXd& s) {
  const auto d = m.size();
  const double count = static_cast<double>(draws.size());
  Eigen::VectorXd mean = Eigen::VectorXd::Zero(d);
  for (const auto& x : draws) mean += x;
  mean /= count;
  Eigen::MatrixXd cov = Eigen::MatrixXd::Zero(d, d);
  for (const auto& x : draws) cov += (x - mean) * (x - mean).transpose();
  cov /= count - 1.0;
  std::vector<std::string> failures;
  for (Eigen::Index a = 0; a < d; ++a) {
    const double se = std::sqrt(s(a, a) / count);
    if (std::abs(mean(a) - m(a)) > 4.0 * se) {
      std::ostringstream why;
      why << "mean[" << a << "] = " << mean(a) << ", expected " << m(a) << " (se " << se << ")";
      failures.push_back(why.str());
    }
    for (Eigen::Index b = 0; b <= a; ++b) {
      const double se_cov = std::sqrt((s(a, a) * s(b, b) + s(a, b) * s(a, b)) / count);
      if (std::abs(cov(a, b) - s(a, b)) > 4.0 * se_cov) {
        std::ostringstream why;
        why << "cov[" << a << "," << b << "] = " << cov(a, b) << ", expected " << s(a, b) << " (se "
            << se_cov << ")";
        failures.push_back(why.str());
      }
    }
  }
  return failures;
}

constexpr int kDraws = 20000;

TEST(BpmfGibbs, RowConditionalMatchesClosedForm) {
  const SingleRowProblem pr;
  Eigen::VectorXd m;
  Eigen::MatrixXd s;
  pr.ClosedForm(&m, &s);
  const auto draws = Draw(pr, kDraws, pr.tau, pr.lambda_w, pr.lambda_b, pr.c);
  const auto failures = CheckAgainstClosedForm(draws, m, s);
  for (const auto& f : failures) ADD_FAILURE() << f;
}

TEST(BpmfGibbs, RowConditionalWithoutBias) {
  SingleRowProblem pr;
  // Closed form with K dimensions only: drop the bias row/column of the precision.
  const int k = pr.rank;
  Eigen::MatrixXd p = Eigen::MatrixXd::Identity(k, k) * pr.lambda_w;
  Eigen::VectorXd rhs = Eigen::VectorXd::Zero(k);
  for (std::size_t t = 0; t < pr.items.size(); ++t) {
    const Eigen::VectorXd z = pr.h.col(pr.items[t]);
    p += pr.tau * z * z.transpose();
    rhs += pr.tau * z * (pr.values[t] - pr.mu);  // no item bias either
  }
  const Eigen::MatrixXd s = p.inverse();
  const Eigen::VectorXd m = s * rhs;
  std::vector<Eigen::VectorXd> draws;
  for (int t = 0; t < kDraws; ++t) {
    KeyedStream rng(6, Purpose::kTest, 1, static_cast<std::uint64_t>(t));
    draws.push_back(SampleRowConditional(pr.h, pr.c, pr.Row(), pr.mu, pr.tau, pr.lambda_w,
                                         pr.lambda_b, /*use_bias=*/false, rng));
    ASSERT_EQ(draws.back().size(), k);
  }
  for (const auto& f : CheckAgainstClosedForm(draws, m, s)) ADD_FAILURE() << f;
}

TEST(BpmfGibbs, RowConditionalWithoutRatingsIsThePrior) {
  const SingleRowProblem pr;
  const int d = pr.rank + 1;
  Eigen::MatrixXd s = Eigen::MatrixXd::Zero(d, d);
  for (int k = 0; k < pr.rank; ++k) s(k, k) = 1.0 / pr.lambda_w;
  s(pr.rank, pr.rank) = 1.0 / pr.lambda_b;
  std::vector<Eigen::VectorXd> draws;
  for (int t = 0; t < kDraws; ++t) {
    KeyedStream rng(7, Purpose::kTest, 1, static_cast<std::uint64_t>(t));
    draws.push_back(SampleRowConditional(pr.h, pr.c, RowRatings{}, pr.mu, pr.tau, pr.lambda_w,
                                         pr.lambda_b, true, rng));
  }
  for (const auto& f : CheckAgainstClosedForm(draws, Eigen::VectorXd::Zero(d), s)) {
    ADD_FAILURE() << f;
  }
}

// (b) The same check must reject deliberately broken samplers, built by feeding
// SampleRowConditional wrong inputs.
TEST(BpmfGibbs, ConditionalCheckRejectsBrokenSamplers) {
  const SingleRowProblem pr;
  Eigen::VectorXd m;
  Eigen::MatrixXd s;
  pr.ClosedForm(&m, &s);
  // Precision halved: tau and the lambdas scaled by 1/2 keep the mean but double the
  // covariance.
  const auto halved = Draw(pr, kDraws, 0.5 * pr.tau, 0.5 * pr.lambda_w, 0.5 * pr.lambda_b, pr.c);
  const auto halved_failures = CheckAgainstClosedForm(halved, m, s);
  EXPECT_FALSE(halved_failures.empty()) << "halved precision was not detected";
  // A subtler bug: forgetting the other side's biases shifts the mean only.
  const auto no_bias =
      Draw(pr, kDraws, pr.tau, pr.lambda_w, pr.lambda_b, Eigen::VectorXd::Zero(pr.c.size()));
  EXPECT_FALSE(CheckAgainstClosedForm(no_bias, m, s).empty())
      << "ignoring the item biases was not detected";
  // Covariance 10% too large.
  const double f = 1.0 / 1.1;
  const auto inflated = Draw(pr, kDraws, f * pr.tau, f * pr.lambda_w, f * pr.lambda_b, pr.c);
  EXPECT_FALSE(CheckAgainstClosedForm(inflated, m, s).empty())
      << "10% too much variance was not detected";
}

// ---------------------------------------------------------------------------------------
// The sweep structure and the keyed streams, replayed by hand for one sweep.

TEST(BpmfGibbs, OneSweepMatchesAHandReplay) {
  RatingMatrix train;
  train.rows = 4;
  train.cols = 3;
  train.entries = {{0, 0, 4}, {0, 2, 3}, {1, 1, 5}, {2, 0, 2}, {2, 1, 3}, {3, 2, 1}, {1, 2, 4}};
  const std::vector<Rating> test = {{3, 0, 2}, {0, 1, 5}};
  GibbsOptions o;
  o.rank = 2;
  o.sweeps = 1;
  o.burn_in = 0;
  o.priors.sample_hyper = false;
  o.priors.initial.tau = 1.7;
  o.priors.initial.lambda_w = 2.0;
  o.priors.initial.lambda_h = 3.0;
  o.priors.initial.lambda_b = 4.0;
  o.priors.initial.lambda_c = 5.0;
  o.seed = 99;
  const GibbsResult r = RunBpmfGibbs(train, test, o);

  double mu = 0.0;
  for (const Rating& e : train.entries) mu += e.value;
  mu /= static_cast<double>(train.entries.size());
  EXPECT_DOUBLE_EQ(r.mu, mu);
  Eigen::MatrixXd w(2, 4), h(2, 3);
  Eigen::VectorXd b = Eigen::VectorXd::Zero(4), c = Eigen::VectorXd::Zero(3);
  for (int i = 0; i < 4; ++i) {
    KeyedStream rng(99, Purpose::kInitRow, i, 0);
    for (int k = 0; k < 2; ++k) w(k, i) = 0.1 * rng.normal();
  }
  for (int j = 0; j < 3; ++j) {
    KeyedStream rng(99, Purpose::kInitCol, j, 0);
    for (int k = 0; k < 2; ++k) h(k, j) = 0.1 * rng.normal();
  }
  const BpmfHyper& hy = o.priors.initial;
  for (std::uint32_t i = 0; i < 4; ++i) {
    std::vector<std::uint32_t> other;
    std::vector<float> value;
    for (const Rating& e : train.entries) {
      if (e.row == i) other.push_back(e.col), value.push_back(e.value);
    }
    KeyedStream rng(99, Purpose::kGibbs, i, 0);
    const Eigen::VectorXd x = SampleRowConditional(h, c, {other.data(), value.data(), other.size()},
                                                   mu, hy.tau, hy.lambda_w, hy.lambda_b, true, rng);
    w.col(i) = x.head(2);
    b(i) = x(2);
  }
  for (std::uint32_t j = 0; j < 3; ++j) {
    std::vector<std::uint32_t> other;
    std::vector<float> value;
    for (const Rating& e : train.entries) {
      if (e.col == j) other.push_back(e.row), value.push_back(e.value);
    }
    KeyedStream rng(99, Purpose::kGibbs, 4 + j, 0);
    const Eigen::VectorXd x = SampleRowConditional(w, b, {other.data(), value.data(), other.size()},
                                                   mu, hy.tau, hy.lambda_h, hy.lambda_c, true, rng);
    h.col(j) = x.head(2);
    c(j) = x(2);
  }
  ASSERT_EQ(r.pred_mean.size(), 2u);
  for (std::size_t t = 0; t < test.size(); ++t) {
    const double p = std::clamp(
        mu + b(test[t].row) + c(test[t].col) + w.col(test[t].row).dot(h.col(test[t].col)), 1.0,
        5.0);
    EXPECT_NEAR(r.pred_mean[t], p, 1e-12);
    EXPECT_EQ(r.pred_var[t], 0.0);
  }
  EXPECT_EQ(r.last_hyper.tau, hy.tau);
}

TEST(BpmfGibbs, DeterministicAndReportsPerSweep) {
  MfGeneratorOptions g;
  g.users = 60;
  g.items = 40;
  g.ratings = 800;
  g.rank = 3;
  const GeneratedRatings data = GenerateMf(g);
  RatingMatrix train{g.users, g.items, {}};
  std::vector<Rating> test;
  for (std::size_t t = 0; t < data.rating.size(); ++t) {
    const Rating e{data.user[t], data.item[t], data.rating[t]};
    (t % 10 == 0 ? test : train.entries).push_back(e);
  }
  GibbsOptions o;
  o.rank = 3;
  o.sweeps = 12;
  o.burn_in = 4;
  const GibbsResult a = RunBpmfGibbs(train, test, o), b = RunBpmfGibbs(train, test, o);
  EXPECT_EQ(a.pred_mean, b.pred_mean);
  EXPECT_EQ(a.rmse_sample, b.rmse_sample);
  ASSERT_EQ(a.rmse_sample.size(), 12u);
  ASSERT_EQ(a.rmse_mean.size(), 12u);
  for (int s = 0; s < 12; ++s) {
    EXPECT_TRUE(std::isfinite(a.rmse_sample[s]));
    EXPECT_EQ(std::isnan(a.rmse_mean[s]), s < 4) << "sweep " << s;
  }
  for (std::size_t t = 0; t < test.size(); ++t) {
    EXPECT_GE(a.pred_mean[t], 1.0);
    EXPECT_LE(a.pred_mean[t], 5.0);
    EXPECT_GE(a.pred_var[t], 0.0);
  }
  EXPECT_GT(a.last_hyper.tau, 0.0);
  o.seed = 2;
  EXPECT_NE(RunBpmfGibbs(train, test, o).pred_mean, a.pred_mean);

  // Without biases the fixed-hyper run still works; lambda_b/c stay at their values.
  o.priors.use_bias = false;
  const GibbsResult nb = RunBpmfGibbs(train, test, o);
  EXPECT_EQ(nb.last_hyper.lambda_b, o.priors.initial.lambda_b);
  EXPECT_TRUE(std::isfinite(nb.rmse_mean.back()));
}

TEST(BpmfGibbs, RejectsBadInput) {
  RatingMatrix train{2, 2, {{0, 0, 3}, {1, 1, 4}}};
  auto code = [&](const GibbsOptions& o, const std::vector<Rating>& test) {
    try {
      RunBpmfGibbs(train, test, o);
    } catch (const Error& e) {
      return e.code();
    }
    return ExitCode::kOk;
  };
  GibbsOptions o;
  o.sweeps = 3;
  o.burn_in = 1;
  EXPECT_EQ(code(o, {}), ExitCode::kOk);
  GibbsOptions bad = o;
  bad.rank = 0;
  EXPECT_EQ(code(bad, {}), ExitCode::kUsage);
  bad = o;
  bad.burn_in = 3;
  EXPECT_EQ(code(bad, {}), ExitCode::kUsage);
  EXPECT_EQ(code(o, {{2, 0, 3}}), ExitCode::kInput);
  train.entries.push_back({0, 5, 3});
  EXPECT_EQ(code(o, {}), ExitCode::kInput);
}

// ---------------------------------------------------------------------------------------
// (c) Recovery on synthetic data with a known noise floor.

struct SyntheticRun {
  double floor;  // RMSE of the oracle (true clipped mean) on the holdout
  double gibbs;  // final posterior-mean RMSE on the holdout
};

// Rank-5 data with noise 0.5 on 300 users x 200 items, a 10% holdout, Gibbs with K = 5.
SyntheticRun RunSynthetic(std::uint64_t ratings) {
  MfGeneratorOptions g;
  g.users = 300;
  g.items = 200;
  g.ratings = ratings;
  g.rank = 5;
  g.noise = 0.5;
  g.seed = 3;
  const GeneratedRatings data = GenerateMf(g);
  RatingMatrix train{g.users, g.items, {}};
  std::vector<Rating> test;
  double oracle_sse = 0.0;
  KeyedStream split(3, Purpose::kTest, 0, 0);
  for (std::size_t t = 0; t < data.rating.size(); ++t) {
    const Rating e{data.user[t], data.item[t], data.rating[t]};
    if (split.uniform() < 0.1) {
      test.push_back(e);
      const double miss = data.oracle[t] - data.rating[t];
      oracle_sse += miss * miss;
    } else {
      train.entries.push_back(e);
    }
  }
  GibbsOptions o;
  o.rank = 5;
  o.sweeps = 120;
  o.burn_in = 20;
  const GibbsResult r = RunBpmfGibbs(train, test, o);
  const SyntheticRun run{std::sqrt(oracle_sse / static_cast<double>(test.size())),
                         r.rmse_mean.back()};
  std::cout << "[ synthetic ] " << ratings << " ratings, " << test.size()
            << " held out: oracle RMSE " << run.floor << ", Gibbs posterior-mean RMSE " << run.gibbs
            << " (ratio " << run.gibbs / run.floor << "), tau " << r.last_hyper.tau << "\n";
  return run;
}

// With 15000 ratings (45 per user, 67 per item on average, for 6 parameters each) the
// estimation error alone adds about sigma^2 (6/45 + 6/67) ~ 0.07 to the squared error
// (sigma^2 ~ 0.31 after rounding), so even the exact posterior mean ends near 1.12x the
// oracle RMSE; running 1000 sweeps instead of 120 gives the same 0.623 vs 0.555.
TEST(BpmfGibbs, NearTheOracleNoiseFloorOnSyntheticData) {
  const SyntheticRun run = RunSynthetic(15000);
  EXPECT_LT(run.gibbs, 1.15 * run.floor);
  EXPECT_GT(run.gibbs, 0.9 * run.floor);
}

// At the densest allowed size (half of the cells) the estimation error halves and the
// posterior mean gets within 10% of the oracle.
TEST(BpmfGibbs, WithinTenPercentOfTheOracleOnDenseSyntheticData) {
  const SyntheticRun run = RunSynthetic(30000);
  EXPECT_LT(run.gibbs, 1.1 * run.floor);
  EXPECT_GT(run.gibbs, 0.9 * run.floor);
}

// ---------------------------------------------------------------------------------------
// (d) MovieLens 100k, split u1: the reference figure for this model.

bool ReadMovieLens(const std::string& path, std::vector<std::array<long, 2>>* ids,
                   std::vector<float>* values) {
  std::ifstream in(path);
  if (!in) return false;
  long user, item, stamp;
  float value;
  while (in >> user >> item >> value >> stamp) {
    ids->push_back({user, item});
    values->push_back(value);
  }
  return in.eof();
}

TEST(BpmfGibbs, MovieLens100kU1) {
  const std::string dir = std::string(CAROUSEL_SHARED_DATA) + "/ml-100k/";
  std::vector<std::array<long, 2>> base_ids, test_ids;
  std::vector<float> base_values, test_values;
  if (!ReadMovieLens(dir + "u1.base", &base_ids, &base_values) ||
      !ReadMovieLens(dir + "u1.test", &test_ids, &test_values)) {
    GTEST_SKIP() << "MovieLens 100k not found under " << dir;
  }
  // Dense ids by ascending original id, over both files.
  std::map<long, std::uint32_t> users, items;
  for (const auto* ids : {&base_ids, &test_ids}) {
    for (const auto& p : *ids) users[p[0]], items[p[1]];
  }
  std::uint32_t next = 0;
  for (auto& u : users) u.second = next++;
  next = 0;
  for (auto& i : items) i.second = next++;
  RatingMatrix train{
      static_cast<std::uint32_t>(users.size()), static_cast<std::uint32_t>(items.size()), {}};
  for (std::size_t t = 0; t < base_ids.size(); ++t) {
    train.entries.push_back({users[base_ids[t][0]], items[base_ids[t][1]], base_values[t]});
  }
  std::vector<Rating> test;
  for (std::size_t t = 0; t < test_ids.size(); ++t) {
    test.push_back({users[test_ids[t][0]], items[test_ids[t][1]], test_values[t]});
  }
  ASSERT_EQ(train.entries.size(), 80000u);
  ASSERT_EQ(test.size(), 20000u);

  GibbsOptions o;  // K = 10, 120 sweeps, burn-in 20, hyper sampled, biases on
  const auto start = std::chrono::steady_clock::now();
  const GibbsResult r = RunBpmfGibbs(train, test, o);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << "[ ml-100k u1 ] " << train.rows << " x " << train.cols
            << ": final posterior-mean RMSE " << r.rmse_mean.back() << ", last sample RMSE "
            << r.rmse_sample.back() << ", tau " << r.last_hyper.tau << ", " << seconds << " s\n";
  RecordProperty("rmse_mean", std::to_string(r.rmse_mean.back()));
  RecordProperty("seconds", std::to_string(seconds));
  EXPECT_GT(r.rmse_mean.back(), 0.905);
  EXPECT_LT(r.rmse_mean.back(), 0.93);
}

}  // namespace
}  // namespace carousel
