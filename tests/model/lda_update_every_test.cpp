// Topic-word updates from several tiles (LdaConfig::update_every): a column block adds up the
// kept-sweep counts of the tiles it visits and is updated every update_every iterations, by
// SCIR's step from the counts of those tiles scaled by tiles / (their number). At 2 tiles
// and update_every 2, a 2-iteration run sweeps every tile once and updates each block once,
// at iteration 1, from the topics of all its training tokens after their sweep: the check
// below computes that draw from the run's final topics and the initial theta. It rejects the
// tiles' counts scaled as one tile's, and the chain that updates every iteration.
#include <gtest/gtest.h>

#include "carousel/data/tile_grid.hpp"
#include "carousel/model/lda/lda_generator.hpp"
#include "carousel/model/lda/lda_options.hpp"
#include "carousel/model/lda/lda_tokens.hpp"
#include "lda_first_draw.hpp"
#include "lda_thread_ranks.hpp"

namespace carousel {
namespace {

constexpr int kTiles = 2;

LdaConfig TwoIterations(int update_every) {
  LdaConfig c = testing::ShortChain(kTiles, 2);
  c.sweeps = 1;
  c.update_every = update_every;
  c.topic_word_mean = TopicWordMean::kDraws;
  return c;
}

using ChainEnd = testing::LdaChainEnd;

// phi after SCIR's step at iteration 1 from the initial theta, each block's counts those of
// the run's final topics of its training tokens, times `scale`.
std::vector<double> ExpectedDraw(const Corpus& corpus, const LdaConfig& c, const ChainEnd& run,
                                 double scale) {
  const TileGrid grid(corpus.documents, corpus.vocabulary, kTiles, c.chain.split_seed,
                      run.column_weights);
  const std::vector<DocumentRole> roles =
      ChooseDocumentRoles(corpus, c.test_fraction, c.chain.split_seed);
  const std::size_t K = static_cast<std::size_t>(c.topics);
  std::vector<std::vector<std::uint32_t>> counts(kTiles);  // per block: row w, column k
  for (int j = 0; j < kTiles; ++j) counts[j].assign(grid.cols().Members(j).size() * K, 0);
  for (int i = 0; i < kTiles; ++i) {
    const RowBlockTokens rb = BuildRowBlockTokens(corpus, roles, grid, i, c.topics, c.chain.seed,
                                                  c.initial_topics, c.alpha);
    const TileTokens& t = rb.train.tokens;
    const std::vector<std::uint16_t>& topic = run.topics[static_cast<std::size_t>(i)];
    EXPECT_EQ(topic.size(), t.word.size());
    for (std::size_t d = 0; d < t.documents(); ++d)
      for (int j = 0; j < kTiles; ++j)
        for (std::uint64_t e = t.Begin(d, j); e < t.End(d, j); ++e)
          counts[j][t.word[e] * K + topic[e]]++;
  }
  return testing::PhiAfterFirstUpdate(c, grid, corpus.vocabulary, counts, 1, scale);
}

TEST(LdaUpdateEvery, AnUpdateIsScirsStepFromTheCountsOfItsTiles) {
  const GeneratedCorpus gen = testing::SmallLdaCorpus();
  const LdaConfig c = TwoIterations(2);
  const ChainEnd run = testing::RunKeepingTopics(c, gen.corpus, 1);
  // The two tiles hold all of the block's words' tokens: scale 2 / 2.
  const std::vector<double> expected = ExpectedDraw(gen.corpus, c, run, 1.0);
  // phi is formed as theta times 1 / theta_k. in the model, here as a quotient, and the
  // totals are added in another order: a few roundings apart.
  EXPECT_LT(testing::LargestRelativeDifference(run.mean, expected), 1e-13);
  // The same chain on 2 ranks, each holding one row block.
  const ChainEnd two = testing::RunKeepingTopics(c, gen.corpus, 2);
  EXPECT_EQ(two.mean, run.mean);
  EXPECT_EQ(two.topics, run.topics);
  // The negative controls: the counts scaled as one tile's (by --tiles), and the chain that
  // updates every iteration, are other draws.
  EXPECT_GT(testing::LargestRelativeDifference(run.mean, ExpectedDraw(gen.corpus, c, run, 2.0)),
            0.1);
  const LdaConfig every = TwoIterations(1);
  const ChainEnd eager = testing::RunKeepingTopics(every, gen.corpus, 1);
  EXPECT_GT(
      testing::LargestRelativeDifference(eager.mean, ExpectedDraw(gen.corpus, every, eager, 1.0)),
      0.1);
}

TEST(LdaUpdateEvery, MoreTilesThanTheGridIsRefused) {
  const GeneratedCorpus gen = testing::SmallLdaCorpus();
  LdaConfig c = TwoIterations(kTiles + 1);
  LdaModel model(c, gen.corpus);
  std::vector<std::unique_ptr<Communicator>> comms = MakeThreadCommunicators(1);
  try {
    TileEngine engine(*comms[0], model, c.chain);
    engine.Run(EngineCallbacks{});
    FAIL() << "update_every " << c.update_every << " on " << kTiles << " tiles was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.setting(), "update-every");
  }
}

// The defaults: the fewest tiles (at most --tiles) with 3 training tokens per topic-word
// entry, then one sweep where those tiles hold 2 per entry. The 10M-token corpus of issue
// #39 (9,170,015 training tokens, 6,906 words, K = 50): 26.6 per entry at one tile.
TEST(LdaUpdateEvery, TheDefaultsFollowTheTokensPerEntry) {
  LdaCounts counts;
  counts.train_documents = 67450;
  counts.train_tokens = 9170015;
  LdaConfig c;
  c.topics = 50;
  const auto defaults = [&](int tiles) {
    c.chain.tiles = tiles;
    c.update_every = DefaultLdaUpdateEvery(c, counts, 6906);
    return std::make_pair(c.update_every, DefaultLdaSweeps(c, counts, 6906));
  };
  EXPECT_EQ(defaults(1), std::make_pair(1, 1));   // 26.6 tokens per entry
  EXPECT_EQ(defaults(8), std::make_pair(1, 1));   // 3.32
  EXPECT_EQ(defaults(16), std::make_pair(2, 1));  // 1.66: 2 tiles make 3.32
  EXPECT_EQ(defaults(32), std::make_pair(4, 1));  // 0.83: 4 make 3.32
  EXPECT_EQ(defaults(64), std::make_pair(8, 1));  // 0.415: 8 make 3.32
  // KOS (about 410,000 tokens, 6,906 words, K = 50): 1.19 at one tile, where the one tile
  // cannot make 3, nor 4 tiles of 0.30, so two sweeps; a 300-document minibatch likewise.
  counts.train_documents = 3087;
  counts.train_tokens = 410000;
  EXPECT_EQ(defaults(1), std::make_pair(1, 2));
  EXPECT_EQ(defaults(4), std::make_pair(4, 2));
  c.minibatch = 300;
  EXPECT_EQ(defaults(4), std::make_pair(4, 2));
  // Given --update-every, --sweeps follows it: 64 tiles of the 10M tokens.
  c.minibatch = 0;
  counts.train_documents = 67450;
  counts.train_tokens = 9170015;
  c.chain.tiles = 64;
  c.update_every = 4;  // 1.66 per entry
  EXPECT_EQ(DefaultLdaSweeps(c, counts, 6906), 2);
  c.update_every = 5;  // 2.07
  EXPECT_EQ(DefaultLdaSweeps(c, counts, 6906), 1);
}

}  // namespace
}  // namespace carousel
