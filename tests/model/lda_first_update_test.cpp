// The first topic-word update from the initial topics (LdaConfig::first_update,
// FirstUpdate::kInitialTopics): the first iteration sweeps no document, and its update is
// SCIR's step from the random initial theta with the counts of the initial topic
// assignments. Each check is run against FirstUpdate::kSweeps too, which must fail it.
#include <gtest/gtest.h>

#include <cmath>

#include "carousel/data/tile_grid.hpp"
#include "carousel/model/lda/lda_generator.hpp"
#include "carousel/model/lda/lda_tokens.hpp"
#include "lda_first_draw.hpp"
#include "lda_thread_ranks.hpp"

namespace carousel {
namespace {

struct FirstIteration {
  std::vector<double> mean;        // K x V: the topic-word mean of the one kept draw
  std::uint64_t tokens_swept = 0;  // by the training sweeps, all ranks
};

// One iteration of `config` on `ranks` thread ranks, kept as a draw.
FirstIteration RunOneIteration(const LdaConfig& config, const Corpus& corpus, int ranks) {
  FirstIteration result;
  std::vector<std::uint64_t> swept(static_cast<std::size_t>(ranks), 0);
  testing::RunLdaOnThreadRanks(config, corpus, ranks, [&](int r, LdaModel& model) {
    swept[static_cast<std::size_t>(r)] = model.gibbs_stats().tokens_swept;
    std::uint64_t samples = 0;
    std::vector<double> mean = model.TopicWordMean(&samples);
    if (r == 0) {
      EXPECT_EQ(samples, 1u);
      result.mean = std::move(mean);
    }
  });
  for (std::uint64_t s : swept) result.tokens_swept += s;
  return result;
}

LdaConfig OneIteration(FirstUpdate first, TopicWordMean mean, int tiles) {
  LdaConfig c = testing::ShortChain(tiles, 1);
  c.sweeps = 2;
  c.first_update = first;
  c.topic_word_mean = mean;
  return c;
}

// n_kw (K x V, global word ids) of the initial topics of every training token, as
// BuildRowBlockTokens draws them for each row-block.
std::vector<std::uint32_t> InitialTopicCounts(const Corpus& corpus, const LdaConfig& c) {
  const TileGrid grid(corpus.documents, corpus.vocabulary, c.chain.tiles, c.chain.split_seed);
  const std::vector<DocumentRole> roles =
      ChooseDocumentRoles(corpus, c.test_fraction, c.chain.split_seed);
  const auto V = corpus.vocabulary;
  std::vector<std::uint32_t> counts(static_cast<std::size_t>(c.topics) * V, 0);
  for (int i = 0; i < grid.blocks(); ++i) {
    const RowBlockTokens rb = BuildRowBlockTokens(corpus, roles, grid, i, c.topics, c.chain.seed,
                                                  c.initial_topics, c.alpha);
    const TileTokens& t = rb.train.tokens;
    for (std::size_t d = 0; d < t.documents(); ++d)
      for (int j = 0; j < grid.blocks(); ++j)
        for (std::uint64_t e = t.Begin(d, j); e < t.End(d, j); ++e)
          counts[rb.train.topic[e] * std::size_t{V} + grid.cols().Members(j)[t.word[e]]]++;
  }
  return counts;
}

// With the topic mean from the assignments, one kept draw is (beta + n_kw) / (V beta + n_k)
// of the topics at that draw; after one iteration that decodes to the initial topics'
// counts only if no document was swept.
double LargestDifferenceFromInitialTopics(const std::vector<double>& mean,
                                          const std::vector<std::uint32_t>& counts,
                                          const LdaConfig& c, std::uint32_t V) {
  double largest = 0.0;
  for (std::size_t k = 0; k < static_cast<std::size_t>(c.topics); ++k) {
    double n_k = 0.0;
    for (std::size_t w = 0; w < V; ++w) n_k += counts[k * V + w];
    for (std::size_t w = 0; w < V; ++w) {
      const double expected = (c.beta + counts[k * V + w]) / (V * c.beta + n_k);
      largest = std::max(largest, std::abs(mean[k * V + w] - expected));
    }
  }
  return largest;
}

TEST(LdaFirstUpdate, TheFirstIterationSweepsNoDocumentOnAnyRankCount) {
  const GeneratedCorpus gen = testing::SmallLdaCorpus();
  const std::uint32_t V = gen.corpus.vocabulary;
  for (int ranks : {1, 3}) {
    const LdaConfig c = OneIteration(FirstUpdate::kInitialTopics, TopicWordMean::kAssignments, 3);
    const FirstIteration run = RunOneIteration(c, gen.corpus, ranks);
    EXPECT_EQ(run.tokens_swept, 0u) << ranks << " ranks";
    EXPECT_LT(LargestDifferenceFromInitialTopics(run.mean, InitialTopicCounts(gen.corpus, c), c, V),
              1e-15)
        << ranks << " ranks";
  }
  // The negative control: a first iteration that sweeps has moved the topics.
  const LdaConfig c = OneIteration(FirstUpdate::kSweeps, TopicWordMean::kAssignments, 3);
  const FirstIteration run = RunOneIteration(c, gen.corpus, 1);
  EXPECT_GT(run.tokens_swept, 0u);
  EXPECT_GT(LargestDifferenceFromInitialTopics(run.mean, InitialTopicCounts(gen.corpus, c), c, V),
            1e-3);
}

// The first draw of phi, derived here from its parts: the initial theta_kw = -log(u) of the
// stream (seed, kInitCol, word, 0) (a Gamma(1, 1) variate per entry), SCIR's step at
// iteration 0 with a_hat = beta + the initial topics' counts (one tile, every document: the
// scale is 1), and phi_kw = theta_kw / theta_k.
std::vector<double> ExpectedFirstDraw(const Corpus& corpus, const LdaConfig& c) {
  const TileGrid grid(corpus.documents, corpus.vocabulary, 1, c.chain.split_seed);
  const std::vector<std::uint32_t>& words = grid.cols().Members(0);
  const std::size_t K = static_cast<std::size_t>(c.topics), V = corpus.vocabulary;
  const std::vector<std::uint32_t> by_topic = InitialTopicCounts(corpus, c);
  std::vector<std::vector<std::uint32_t>> counts(1, std::vector<std::uint32_t>(V * K));
  for (std::size_t w = 0; w < V; ++w)
    for (std::size_t k = 0; k < K; ++k) counts[0][w * K + k] = by_topic[k * V + words[w]];
  return testing::PhiAfterFirstUpdate(c, grid, corpus.vocabulary, counts, 0, 1.0);
}

TEST(LdaFirstUpdate, TheFirstDrawOfPhiIsScirsStepWithTheInitialTopicsCounts) {
  const GeneratedCorpus gen = testing::SmallLdaCorpus();
  const LdaConfig c = OneIteration(FirstUpdate::kInitialTopics, TopicWordMean::kDraws, 1);
  const std::vector<double> expected = ExpectedFirstDraw(gen.corpus, c);
  const FirstIteration run = RunOneIteration(c, gen.corpus, 1);
  ASSERT_EQ(run.mean.size(), expected.size());
  // The model forms phi as theta times 1 / theta_k. (TopicWordView), here as a quotient:
  // a rounding step or two apart.
  EXPECT_LT(testing::LargestRelativeDifference(run.mean, expected), 1e-14);
  // The negative control: the update from the first iteration's sweeps is another draw.
  const LdaConfig sweeps = OneIteration(FirstUpdate::kSweeps, TopicWordMean::kDraws, 1);
  EXPECT_GT(
      testing::LargestRelativeDifference(RunOneIteration(sweeps, gen.corpus, 1).mean, expected),
      0.1);
}

}  // namespace
}  // namespace carousel
