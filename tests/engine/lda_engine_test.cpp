// The LDA engine's posterior on problems with a known answer (DESIGN.md section 5, tier 2),
// through SerialCommunicator and an in-memory corpus.
//
// K = 1 topic, minibatch = every training document (q = 1). Every token has topic 0, so
// the Gibbs step is trivial and nbar_w = (kept sweeps) * n_w; with B = 1 the update's shape
// is a_hat_w = beta + scale * nbar_w = beta + n_w EXACTLY, and SCIR's CIR transition leaves
// theta_w ~ Gamma(beta + n_w) invariant with the words independent, so phi = theta / theta.
// ~ Dirichlet(beta + n): the exact posterior of a one-topic model.
//   - B = 1: mean AND variance of every phi_w over the draws after burn-in against
//     m_w = (beta + n_w) / A and m_w (1 - m_w) / (A + 1), A = V beta + N. The draws are
//     recovered from TopicWordMean (the running posterior mean) by stopping the run after
//     every iteration (kRequestStop) and differencing sum = mean * samples. Tolerance:
//     |z| < 4 with batch-means standard errors (mc_stats.hpp; batches checked to be at
//     least 10 autocorrelation times long).
//   - B = 2: a_hat_w is then 2 * (the counts of word w in the row-block of this stratum),
//     unbiased over the cycle but not constant (SCIR paper Corollary 3.2), so only the
//     mean is checked. Over one cycle the mean of theta_w is exactly beta + n_w; phi_w =
//     theta_w / theta. adds a ratio bias of second order in the oscillation of theta over
//     the cycle, whose relative amplitude is tanh(h/2) times the relative imbalance of the
//     counts: with h = 0.2 it is below 1e-3 relative, under a tenth of the standard error
//     here.
//   - Negative control for both: the same check on a corpus whose counts are doubled
//     (what an engine with count_hat off by a factor 2 computes) must reject. beta = 1 and
//     five words that never occur make the mean sensitive to the data scale (an unused
//     word's phi is 1 / A).
// K = 3 sanity check: a corpus drawn from three topics on disjoint word sets is recovered
// (each true topic has a learned topic with >= 90% of its mass on the right words) and
// held-out perplexity falls below 0.7 V; a corpus without topic structure stays near V
// (the criterion can fail). (The generating model's own perplexity is about 15 by its
// entropy, somewhat more on the test tokens: every 10th token in word-id order, as files
// list them, over-samples the off-topic words of a document.)
#include "carousel/model/lda/lda_model.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <memory>
#include <vector>

#include "../model/test_corpus.hpp"
#include "../sampler/mc_stats.hpp"
#include "carousel/comm/communicator.hpp"
#include "carousel/engine/tile_engine.hpp"
#include "carousel/util/keyed_rng.hpp"

namespace carousel {
namespace {

constexpr double kZ = 4.0;

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

// 40 documents over V = 20 words of which only 0..14 occur, counts 0..3: about 250 tokens.
std::vector<std::vector<std::uint32_t>> OneTopicCounts(int factor) {
  std::vector<std::vector<std::uint32_t>> counts(40, std::vector<std::uint32_t>(20, 0));
  for (std::uint32_t d = 0; d < counts.size(); ++d) {
    KeyedStream rng(3, Purpose::kTest, d, 0);
    for (std::uint32_t w = 0; w < 15; ++w)
      counts[d][w] = static_cast<std::uint32_t>(rng.below(4 - w / 5)) * factor;
  }
  return counts;
}

struct PhiDraws {
  std::vector<std::vector<double>> by_word;  // [w][value]: draws, or means of `per` draws
  std::uint64_t per = 1;
  double seconds = 0.0;
};

// Runs K = 1 SCIR with constant step h for burn_in + draws iterations and returns the phi
// draws after burn-in (per = 1) or the means of consecutive batches of `per` draws, from
// the engine's running posterior mean: the run is stopped (kRequestStop) after the burn-in
// and then every `per` iterations, and sum = mean * samples is differenced.
PhiDraws RunOneTopic(const Corpus& corpus, int tiles, double h, std::uint64_t burn_in,
                     std::uint64_t draws, std::uint64_t per, double beta) {
  const auto start = std::chrono::steady_clock::now();
  auto comm = MakeSerialCommunicator();
  LdaConfig c;
  c.topics = 1;
  c.alpha = 0.1;
  c.beta = beta;
  c.sampler = SimplexSampler::kScir;
  c.step = StepSchedule{h, 1.0, 0.0};  // constant h
  c.minibatch = 1e9;                   // q = 1
  c.sweeps = 2;
  c.chain.tiles = tiles;
  c.chain.iterations = burn_in + draws;
  c.chain.burn_in = burn_in;
  c.chain.eval_every = 1;
  c.eval_sweeps = 1;
  c.chain.seed = 11;
  c.test_fraction = 0.0;
  // The draws of phi themselves: with one topic E[phi | z] is the exact posterior mean at
  // every iteration, which says nothing about SCIR.
  c.topic_word_mean = TopicWordMean::kDraws;
  LdaModel model(c, corpus);
  TileEngine engine(*comm, model, c.chain);
  EngineCallbacks callbacks;
  callbacks.requests = [&engine, burn_in, per] {
    const std::uint64_t t = engine.iteration();
    return t == burn_in || (t > burn_in && (t - burn_in) % per == 0) ? kRequestStop : 0;
  };
  const std::size_t V = corpus.vocabulary;
  PhiDraws out;
  out.per = per;
  out.by_word.assign(V, {});
  std::vector<double> previous(V, 0.0);
  while (engine.iteration() < c.chain.iterations) {
    engine.Run(callbacks);
    if (engine.iteration() <= burn_in) continue;
    std::uint64_t samples = 0;
    const std::vector<double> mean = model.TopicWordMean(&samples);
    EXPECT_EQ(samples, engine.iteration() - burn_in);
    for (std::size_t w = 0; w < V; ++w) {
      const double sum = mean[w] * static_cast<double>(samples);
      out.by_word[w].push_back((sum - previous[w]) / static_cast<double>(per));
      previous[w] = sum;
    }
  }
  out.seconds = Seconds(start);
  return out;
}

struct Check {
  double max_z_mean = 0.0, max_z_var = 0.0, max_tau = 0.0;
  std::size_t batch_size = 0;
};

// z-scores of every word's mean (and variance) against Dirichlet(beta + n).
// Batch means over 40 batches (of draws, or of the batch means the run returned).
Check CompareWithDirichlet(const PhiDraws& draws, const std::vector<double>& n, double beta,
                           bool variance) {
  const double V = static_cast<double>(n.size());
  double N = 0.0;
  for (double v : n) N += v;
  const double A = V * beta + N;
  Check check;
  for (std::size_t w = 0; w < n.size(); ++w) {
    const double m = (beta + n[w]) / A;
    const std::vector<double>& x = draws.by_word[w];
    const std::size_t batch = x.size() / 40;
    const mc::Estimate mean = mc::BatchMeans(x, batch);
    check.batch_size = mean.batch_size * draws.per;
    check.max_tau = std::max(check.max_tau, mc::IntegratedAutocorrTime(x));
    check.max_z_mean = std::max(check.max_z_mean, std::abs(mean.mean - m) / mean.se);
    if (!variance) continue;
    std::vector<double> sq(x.size());
    for (std::size_t t = 0; t < x.size(); ++t) sq[t] = (x[t] - m) * (x[t] - m);
    const mc::Estimate var = mc::BatchMeans(sq, batch);
    check.max_tau = std::max(check.max_tau, mc::IntegratedAutocorrTime(sq));
    check.max_z_var =
        std::max(check.max_z_var, std::abs(var.mean - m * (1.0 - m) / (A + 1.0)) / var.se);
  }
  return check;
}

std::vector<double> WordTotals(const std::vector<std::vector<std::uint32_t>>& counts) {
  std::vector<double> n(counts[0].size(), 0.0);
  for (const auto& doc : counts)
    for (std::size_t w = 0; w < doc.size(); ++w) n[w] += doc[w];
  return n;
}

TEST(LdaEngineOneTopic, SingleTileScirIsExactDirichletPosterior) {
  const double beta = 1.0;
  const auto counts = OneTopicCounts(1);
  const std::vector<double> n = WordTotals(counts);
  const PhiDraws draws =
      RunOneTopic(testing::CorpusFromCounts(counts, 20), 1, 1.0, 50, 4000, 1, beta);
  const Check good = CompareWithDirichlet(draws, n, beta, true);
  // Negative control: twice the counts, checked against the formula for the true counts.
  const PhiDraws doubled =
      RunOneTopic(testing::CorpusFromCounts(OneTopicCounts(2), 20), 1, 1.0, 50, 4000, 1, beta);
  const Check bad = CompareWithDirichlet(doubled, n, beta, true);
  double N = 0.0;
  for (double v : n) N += v;
  std::cout << "  K = 1, B = 1, N = " << N << " tokens, 4000 draws (batches of " << good.batch_size
            << ", max tau " << good.max_tau << "): max |z| mean " << good.max_z_mean
            << ", variance " << good.max_z_var << " [" << draws.seconds
            << " s]\n  doubled counts (must reject): max |z| mean " << bad.max_z_mean
            << ", variance " << bad.max_z_var << "\n";
  EXPECT_GE(static_cast<double>(good.batch_size), 10.0 * good.max_tau) << "batches too short";
  EXPECT_LT(good.max_z_mean, kZ);
  EXPECT_LT(good.max_z_var, kZ);
  EXPECT_GT(std::max(bad.max_z_mean, bad.max_z_var), kZ) << "the check cannot see a wrong scale";
}

TEST(LdaEngineOneTopic, TwoTilesKeepThePosteriorMean) {
  const double beta = 1.0;
  const auto counts = OneTopicCounts(1);
  const std::vector<double> n = WordTotals(counts);
  const PhiDraws draws =
      RunOneTopic(testing::CorpusFromCounts(counts, 20), 2, 0.2, 100, 10000, 250, beta);
  const Check good = CompareWithDirichlet(draws, n, beta, false);
  const PhiDraws doubled =
      RunOneTopic(testing::CorpusFromCounts(OneTopicCounts(2), 20), 2, 0.2, 100, 10000, 250, beta);
  const Check bad = CompareWithDirichlet(doubled, n, beta, false);
  // The run returns 40 means of 250 draws: theta_w's CIR autocorrelation time is
  // (1 + e^-h) / (1 - e^-h) = 10 iterations at h = 0.2, so the batches are 25 of them long;
  // the autocorrelation time of the batch means themselves (in batches, ideally 1) is
  // reported.
  std::cout << "  K = 1, B = 2, h = 0.2, 10000 draws (batches of " << good.batch_size
            << "; autocorrelation time of the batch means " << good.max_tau
            << " batches): max |z| mean " << good.max_z_mean << " [" << draws.seconds
            << " s]\n  doubled counts (must reject): max |z| mean " << bad.max_z_mean << "\n";

  EXPECT_LT(good.max_z_mean, kZ);
  EXPECT_GT(bad.max_z_mean, kZ) << "the check cannot see a wrong scale";
}

// 300 documents of 40 tokens from 3 topics, topic k uniform on words 10k .. 10k+9; each
// document 90% its main topic, the rest spread over the others. `structured` false: the
// same number of tokens, uniform over all 30 words.
Corpus ThreeTopicCorpus(bool structured) {
  std::vector<std::vector<std::uint32_t>> counts(300, std::vector<std::uint32_t>(30, 0));
  for (std::uint32_t d = 0; d < counts.size(); ++d) {
    KeyedStream rng(5, Purpose::kTest, d, 0);
    const auto main = static_cast<std::uint32_t>(d % 3);
    for (int t = 0; t < 40; ++t) {
      if (!structured) {
        counts[d][rng.below(30)]++;
        continue;
      }
      std::uint32_t k = main;
      if (rng.uniform() >= 0.9) k = (main + 1 + static_cast<std::uint32_t>(rng.below(2))) % 3;
      counts[d][10 * k + rng.below(10)]++;
    }
  }
  return testing::CorpusFromCounts(counts, 30);
}

struct ThreeTopicResult {
  std::vector<double> phi;  // 3 x 30
  double perplexity = 0.0;
  double seconds = 0.0;
};

ThreeTopicResult RunThreeTopics(const Corpus& corpus) {
  const auto start = std::chrono::steady_clock::now();
  auto comm = MakeSerialCommunicator();
  LdaConfig c;
  c.topics = 3;
  c.alpha = 0.1;
  c.beta = 0.01;
  c.sampler = SimplexSampler::kScir;
  c.step = StepSchedule{0.5 * std::pow(10.0, 0.33), 10.0, 0.33};  // the CLI default
  c.minibatch = 50;
  c.chain.tiles = 2;
  c.chain.iterations = 500;
  c.chain.burn_in = 200;
  c.chain.eval_every = 25;
  c.chain.seed = 4;
  c.test_fraction = 0.3;
  LdaModel model(c, corpus);
  TileEngine engine(*comm, model, c.chain);
  EXPECT_TRUE(engine.Run(EngineCallbacks{}));
  ThreeTopicResult r;
  std::uint64_t samples = 0;
  r.phi = model.TopicWordMean(&samples);
  EXPECT_EQ(samples, 12u);
  r.perplexity = model.trace().back().perplexity;
  r.seconds = Seconds(start);
  return r;
}

TEST(LdaEngineThreeTopics, RecoversSeparatedTopicsAndPerplexityFalls) {
  const ThreeTopicResult r = RunThreeTopics(ThreeTopicCorpus(true));
  std::vector<bool> used(3, false);
  for (int truth = 0; truth < 3; ++truth) {
    double best = 0.0;
    int best_k = -1;
    for (int k = 0; k < 3; ++k) {
      double mass = 0.0;
      for (int w = 10 * truth; w < 10 * truth + 10; ++w) mass += r.phi[k * 30 + w];
      if (mass > best) best = mass, best_k = k;
    }
    std::cout << "  true topic " << truth << ": learned topic " << best_k << " puts " << best
              << " of its mass on its words\n";
    EXPECT_GE(best, 0.9) << "true topic " << truth << " not recovered";
    ASSERT_GE(best_k, 0);
    EXPECT_FALSE(used[best_k]) << "two true topics matched one learned topic";
    used[best_k] = true;
  }
  const ThreeTopicResult flat = RunThreeTopics(ThreeTopicCorpus(false));
  std::cout << "  held-out perplexity " << r.perplexity << " (V = 30) [" << r.seconds
            << " s]; corpus without topics: " << flat.perplexity << "\n";
  EXPECT_LT(r.perplexity, 0.7 * 30);
  EXPECT_GT(flat.perplexity, 0.7 * 30) << "the perplexity criterion cannot fail";
}

}  // namespace
}  // namespace carousel
