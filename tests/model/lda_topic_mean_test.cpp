// The Rao-Blackwellised posterior mean of the topics (model/lda/lda_topic_mean.cpp).
//
// After exactly one kept draw, topic k of the mean is (beta + n_kw) / (V beta + n_k) for
// the topic assignments of that draw: so it must decode to non-negative integer counts
// n_kw, and those must add up, word by word, to the corpus's training tokens of the word
// (every tile of every row-block counted once, wherever its rank is). The same check
// rejects the draws of phi, which are not of that form (the negative control). Over a
// longer run, the estimator leaves the chain as it is and recovers the true topics.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <numeric>

#include "carousel/model/lda/lda_generator.hpp"
#include "carousel/model/lda/lda_tokens.hpp"
#include "lda_thread_ranks.hpp"

namespace carousel {
namespace {

struct RunResult {
  std::vector<double> mean;  // K x V
  std::uint64_t samples = 0;
  std::vector<LdaTraceRow> trace;
};

// One run of `config` on `ranks` thread ranks; rank 0's topic mean and trace.
RunResult RunOnRanks(const LdaConfig& config, const Corpus& corpus, int ranks) {
  RunResult result;
  testing::RunLdaOnThreadRanks(config, corpus, ranks, [&](int r, LdaModel& model) {
    std::uint64_t samples = 0;
    std::vector<double> mean = model.TopicWordMean(&samples);
    if (r == 0) {
      result.mean = std::move(mean);
      result.samples = samples;
      result.trace = model.trace();
    }
  });
  return result;
}

// Training tokens of each word: every token of the documents ChooseDocumentRoles trains on.
std::vector<double> TrainingTokensPerWord(const Corpus& corpus, const LdaConfig& config) {
  const std::vector<DocumentRole> roles =
      ChooseDocumentRoles(corpus, config.test_fraction, config.chain.split_seed);
  std::vector<double> per_word(corpus.vocabulary, 0.0);
  for (std::uint32_t d = 0; d < corpus.documents; ++d) {
    if (roles[d] != DocumentRole::kTrain) continue;
    for (std::uint64_t e = corpus.doc_start[d]; e < corpus.doc_start[d + 1]; ++e)
      per_word[corpus.word[e]] += corpus.count[e];
  }
  return per_word;
}

// Decodes topic row m (V values) as (beta + n_w) / A with integer n_w >= 0: A is fixed by
// the smallest value, whose count is tried from 0 up. Returns the counts, or an empty
// vector when no such A fits every word to 1e-6 of an integer.
std::vector<double> DecodeCounts(const double* m, std::size_t V, double beta) {
  double smallest = m[0];
  for (std::size_t w = 1; w < V; ++w) smallest = std::min(smallest, m[w]);
  for (int n_min = 0; n_min < 20; ++n_min) {
    const double a = (beta + n_min) / smallest;
    std::vector<double> counts(V);
    bool integral = true;
    for (std::size_t w = 0; w < V && integral; ++w) {
      counts[w] = m[w] * a - beta;
      integral = std::abs(counts[w] - std::round(counts[w])) < 1e-6 && counts[w] > -1e-6;
      counts[w] = std::round(counts[w]);
    }
    if (integral) return counts;
  }
  return {};
}

GeneratedCorpus SmallCorpus() {
  LdaGeneratorOptions g;
  g.documents = 300;
  g.vocabulary = 120;
  g.topics = 4;
  g.mean_length = 40;
  g.seed = 8;
  return GenerateLda(g);
}

LdaConfig OneKeptDraw(TopicWordMean estimator) {
  LdaConfig c;
  c.topics = 5;
  c.step = StepSchedule{2.0 * std::pow(10.0, 0.33), 10.0, 0.33};  // the CLI's default h = 2
  c.chain.tiles = 3;
  c.chain.iterations = 9;
  c.chain.burn_in = 5;
  c.chain.eval_every = 9;  // one evaluation, at the end: one kept draw
  c.sweeps = 2;
  c.chain.seed = 3;
  c.topic_word_mean = estimator;
  return c;
}

// Whether every topic of `mean` decodes to counts and the counts add up to `expected`
// word by word (why not, on stderr).
bool DecodesToTrainingTokens(const std::vector<double>& mean, std::size_t K, std::size_t V,
                             double beta, const std::vector<double>& expected) {
  std::vector<double> per_word(V, 0.0);
  for (std::size_t k = 0; k < K; ++k) {
    const std::vector<double> counts = DecodeCounts(&mean[k * V], V, beta);
    if (counts.empty()) {
      std::cerr << "  topic " << k << " is not (beta + n) / A for integer n\n";
      return false;
    }
    for (std::size_t w = 0; w < V; ++w) per_word[w] += counts[w];
  }
  for (std::size_t w = 0; w < V; ++w)
    if (per_word[w] != expected[w]) {
      std::cerr << "  word " << w << ": " << per_word[w] << " tokens, not " << expected[w] << "\n";
      return false;
    }
  return true;
}

TEST(LdaTopicMean, OneDrawDecodesToTheTrainingTokensOfEveryWordOnAnyRankCount) {
  const GeneratedCorpus gen = SmallCorpus();
  const LdaConfig c = OneKeptDraw(TopicWordMean::kAssignments);
  const std::vector<double> expected = TrainingTokensPerWord(gen.corpus, c);
  for (int ranks : {1, 3}) {
    const RunResult run = RunOnRanks(c, gen.corpus, ranks);
    ASSERT_EQ(run.samples, 1u) << ranks << " ranks";
    EXPECT_TRUE(DecodesToTrainingTokens(run.mean, 5, gen.corpus.vocabulary, c.beta, expected))
        << ranks << " ranks";
    for (std::size_t k = 0; k < 5; ++k) {  // A = V beta + n_k: every topic sums to 1
      const auto row = run.mean.begin() + static_cast<std::ptrdiff_t>(k * gen.corpus.vocabulary);
      EXPECT_NEAR(std::accumulate(row, row + gen.corpus.vocabulary, 0.0), 1.0, 1e-12)
          << ranks << " ranks, topic " << k;
    }
  }
}

TEST(LdaTopicMean, DrawsOfPhiDoNotDecodeToTheTrainingTokens) {  // the check above can fail
  const GeneratedCorpus gen = SmallCorpus();
  const LdaConfig c = OneKeptDraw(TopicWordMean::kDraws);
  const RunResult run = RunOnRanks(c, gen.corpus, 1);
  ASSERT_EQ(run.samples, 1u);
  EXPECT_FALSE(DecodesToTrainingTokens(run.mean, 5, gen.corpus.vocabulary, c.beta,
                                       TrainingTokensPerWord(gen.corpus, c)));
}

TEST(LdaTopicMean, TheChainIsTheSameWhicheverMeanItReports) {
  const GeneratedCorpus gen = SmallCorpus();
  LdaConfig c = OneKeptDraw(TopicWordMean::kAssignments);
  c.chain.iterations = 40;
  c.chain.burn_in = 10;
  c.chain.eval_every = 5;
  const RunResult assignments = RunOnRanks(c, gen.corpus, 1);
  c.topic_word_mean = TopicWordMean::kDraws;
  const RunResult draws = RunOnRanks(c, gen.corpus, 1);
  ASSERT_EQ(assignments.trace.size(), draws.trace.size());
  for (std::size_t i = 0; i < draws.trace.size(); ++i)
    EXPECT_EQ(assignments.trace[i].perplexity, draws.trace[i].perplexity) << "row " << i;
  EXPECT_NE(assignments.mean, draws.mean);
}

}  // namespace
}  // namespace carousel
