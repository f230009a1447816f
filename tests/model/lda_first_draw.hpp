// The tests' own derivation of an LDA chain's first draw of phi from its parts, for the
// tests of the topic-word updates (lda_first_update_test.cpp, lda_update_every_test.cpp).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "carousel/data/tile_grid.hpp"
#include "carousel/model/lda/lda_config.hpp"
#include "carousel/model/lda/lda_generator.hpp"
#include "carousel/sampler/topic_word_update.hpp"
#include "carousel/util/keyed_rng.hpp"

namespace carousel::testing {

// 200 documents of about 30 tokens over 90 words from 4 topics: chains of a few iterations
// in milliseconds.
inline GeneratedCorpus SmallLdaCorpus() {
  LdaGeneratorOptions g;
  g.documents = 200;
  g.vocabulary = 90;
  g.topics = 4;
  g.mean_length = 30;
  g.seed = 12;
  return GenerateLda(g);
}

// The chains these tests run: K = 5, SCIR at the CLI's default step (h = 2), `iterations`
// iterations with no burn-in and one evaluation at the end (two held-out sweeps), seed 4.
inline LdaConfig ShortChain(int tiles, std::uint64_t iterations) {
  LdaConfig c;
  c.topics = 5;
  c.step = StepSchedule{2.0 * std::pow(10.0, 0.33), 10.0, 0.33};
  c.chain.tiles = tiles;
  c.chain.iterations = iterations;
  c.chain.burn_in = 0;
  c.chain.eval_every = iterations;
  c.eval_sweeps = 2;
  c.chain.seed = 4;
  return c;
}

// phi (K x V, global word ids) after one SCIR step at `iteration` from the initial theta:
// theta_kw = -log(u) of the stream (seed, kInitCol, word, 0), a Gamma(1, 1) variate per
// entry, then the step with a_hat = beta + scale x counts[j] for each column block j of
// `grid` (counts[j]: the block's layout, row w, column k), and phi_kw = theta_kw / theta_k.
inline std::vector<double> PhiAfterFirstUpdate(
    const LdaConfig& c, const TileGrid& grid, std::uint32_t vocabulary,
    const std::vector<std::vector<std::uint32_t>>& counts, std::uint64_t iteration, double scale) {
  const std::size_t K = static_cast<std::size_t>(c.topics), V = vocabulary;
  TopicWordStep step;
  step.sampler = SimplexSampler::kScir;
  step.topics = c.topics;
  step.beta = c.beta;
  step.step = c.step.At(iteration);
  step.scale = scale;
  step.seed = c.chain.seed;
  step.iteration = iteration;
  std::vector<std::vector<double>> theta(counts.size());
  std::vector<double> total(K, 0.0);
  for (std::size_t j = 0; j < counts.size(); ++j) {
    const std::vector<std::uint32_t>& words = grid.cols().Members(static_cast<int>(j));
    theta[j].resize(words.size() * K);
    for (std::size_t w = 0; w < words.size(); ++w) {
      KeyedStream rng(c.chain.seed, Purpose::kInitCol, words[w], 0);
      for (std::size_t k = 0; k < K; ++k) theta[j][w * K + k] = -std::log(rng.uniform());
    }
    std::vector<double> block_total(K, 0.0);
    EXPECT_TRUE(UpdateTopicWordBlock(step, words, counts[j].data(), theta[j].data(), nullptr,
                                     block_total.data()));
    for (std::size_t k = 0; k < K; ++k) total[k] += block_total[k];
  }
  std::vector<double> phi(K * V);
  for (std::size_t j = 0; j < counts.size(); ++j) {
    const std::vector<std::uint32_t>& words = grid.cols().Members(static_cast<int>(j));
    for (std::size_t w = 0; w < words.size(); ++w)
      for (std::size_t k = 0; k < K; ++k) phi[k * V + words[w]] = theta[j][w * K + k] / total[k];
  }
  return phi;
}

inline double LargestRelativeDifference(const std::vector<double>& a,
                                        const std::vector<double>& b) {
  EXPECT_EQ(a.size(), b.size());
  double largest = 0.0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i)
    largest = std::max(largest, std::abs(a[i] - b[i]) / b[i]);
  return largest;
}

}  // namespace carousel::testing
