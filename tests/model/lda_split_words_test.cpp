// A word holding more than a word block's mean share of the training tokens is split among
// several columns of the grid (WordColumns, DESIGN.md section 9): its replicas lie in other
// word blocks, each takes the tokens of some documents, and at every update they take the
// same SCIR step from the counts of all of them. At 2 tiles and update_every 2 a
// 2-iteration run sweeps every tile once and updates each block once, at iteration 1: the
// check below computes that draw as the unsplit model takes it, from each word's counts over
// all its tokens (the run's final topics) and the initial theta, and rejects the draw from
// one replica's counts alone.
#include <gtest/gtest.h>

#include "carousel/data/tile_grid.hpp"
#include "carousel/model/lda/lda_tokens.hpp"
#include "carousel/model/lda/word_columns.hpp"
#include "carousel/util/mix64.hpp"
#include "lda_first_draw.hpp"
#include "lda_thread_ranks.hpp"

namespace carousel {
namespace {

TEST(WordColumns, SplitsAWordWithMoreThanABlocksShare) {
  const std::vector<std::uint64_t> tokens{60, 30, 10};  // shares 0.6, 0.3, 0.1
  const WordColumns one(tokens, 1);
  EXPECT_FALSE(one.split());
  EXPECT_EQ(one.columns(), 3u);
  const WordColumns two(tokens, 2);  // 0.6 > 1/2: ceil(1.2) = 2 replicas
  ASSERT_TRUE(two.split());
  EXPECT_EQ(two.columns(), 4u);
  ASSERT_EQ(two.replicas().size(), 1u);
  EXPECT_EQ(two.replicas()[0], (std::vector<std::uint32_t>{0, 3}));
  EXPECT_EQ(two.WordOf(3), 0u);
  EXPECT_TRUE(two.IsFirst(0));
  EXPECT_FALSE(two.IsFirst(3));
  const WordColumns four(tokens, 4);  // 2.4 -> 3 replicas of word 0, 1.2 -> 2 of word 1
  EXPECT_EQ(four.columns(), 6u);
  EXPECT_EQ(four.replicas()[0], (std::vector<std::uint32_t>{0, 3, 4}));
  EXPECT_EQ(four.replicas()[1], (std::vector<std::uint32_t>{1, 5}));
  // A document's tokens of a word all go to one replica, chosen by the document alone.
  for (std::uint32_t d = 0; d < 50; ++d) {
    const std::uint32_t c = four.ColumnOf(0, d);
    EXPECT_EQ(four.WordOf(c), 0u);
    const std::uint64_t r = SplitMix64(d) % 3;
    EXPECT_EQ(c, r == 0 ? 0u : static_cast<std::uint32_t>(2 + r));
    EXPECT_EQ(four.ColumnOf(2, d), 2u);  // word 2 (0.4 of a block) is not split
  }
}

constexpr int kTiles = 2;

// testing::SmallLdaCorpus with 40 more tokens of word 0 in every document: word 0 then holds
// more than half the tokens, so at 2 tiles it is split into 2 columns.
Corpus WithACommonWord(const Corpus& in) {
  Corpus out = in;
  out.word.clear();
  out.count.clear();
  out.doc_start.assign(1, 0);
  for (std::uint32_t d = 0; d < in.documents; ++d) {
    bool has_word_0 = false;
    for (std::uint64_t e = in.doc_start[d]; e < in.doc_start[d + 1]; ++e) {
      out.word.push_back(in.word[e]);
      out.count.push_back(in.count[e] + (in.word[e] == 0 ? 40 : 0));
      has_word_0 = has_word_0 || in.word[e] == 0;
    }
    if (!has_word_0) {
      out.word.push_back(0);
      out.count.push_back(40);
    }
    out.doc_start.push_back(out.word.size());
  }
  return out;
}

using ChainEnd = testing::LdaChainEnd;

// Two iterations at 2 tiles, one sweep, both tiles' counts in one update at iteration 1.
LdaConfig TwoIterations(TopicWordMean mean) {
  LdaConfig c = testing::ShortChain(kTiles, 2);
  c.sweeps = 1;
  c.update_every = 2;
  c.topic_word_mean = mean;
  return c;
}

// Each word's counts per topic (word-major, K x the word's LocalIndex in `words`, a one-block
// grid of the unsplit words) of the run's final topics of its training tokens: of all of
// them, or (`only_first_replica`) of the tokens in the split word's first column.
std::vector<std::uint32_t> WordCounts(const Corpus& corpus, const LdaConfig& c, const ChainEnd& run,
                                      const TileGrid& words, bool only_first_replica) {
  const std::vector<DocumentRole> roles =
      ChooseDocumentRoles(corpus, c.test_fraction, c.chain.split_seed);
  std::vector<std::uint64_t> word_tokens(corpus.vocabulary, 0);
  for (std::uint32_t d = 0; d < corpus.documents; ++d)
    if (roles[d] == DocumentRole::kTrain)
      for (std::uint64_t e = corpus.doc_start[d]; e < corpus.doc_start[d + 1]; ++e)
        word_tokens[corpus.word[e]] += corpus.count[e];
  const WordColumns columns(word_tokens, kTiles);
  EXPECT_TRUE(columns.split());
  EXPECT_EQ(run.columns, columns.columns());
  const TileGrid grid(corpus.documents, columns.columns(), kTiles, c.chain.split_seed,
                      run.column_weights);
  const std::size_t K = static_cast<std::size_t>(c.topics);
  std::vector<std::uint32_t> counts(corpus.vocabulary * K, 0);
  for (int i = 0; i < kTiles; ++i) {
    const RowBlockTokens rb = BuildRowBlockTokens(corpus, roles, grid, i, c.topics, c.chain.seed,
                                                  c.initial_topics, c.alpha, 1, &columns);
    const TileTokens& t = rb.train.tokens;
    const std::vector<std::uint16_t>& topic = run.topics[static_cast<std::size_t>(i)];
    EXPECT_EQ(topic.size(), t.word.size());
    for (std::size_t d = 0; d < t.documents(); ++d)
      for (int j = 0; j < kTiles; ++j)
        for (std::uint64_t e = t.Begin(d, j); e < t.End(d, j); ++e) {
          const std::uint32_t column = grid.cols().Members(j)[t.word[e]];
          if (only_first_replica && !columns.IsFirst(column)) continue;
          counts[words.cols().LocalIndex(columns.WordOf(column)) * K + topic[e]]++;
        }
  }
  return counts;
}

// One block of the unsplit words: the draw of a word does not depend on its block.
TileGrid UnsplitWords(const Corpus& corpus, const LdaConfig& c) {
  return TileGrid(corpus.documents, corpus.vocabulary, 1, c.chain.split_seed);
}

// phi after SCIR's step at iteration 1 from the initial theta and WordCounts.
std::vector<double> ExpectedDraw(const Corpus& corpus, const LdaConfig& c, const ChainEnd& run,
                                 bool only_first_replica) {
  const TileGrid words = UnsplitWords(corpus, c);
  return testing::PhiAfterFirstUpdate(
      c, words, corpus.vocabulary, {WordCounts(corpus, c, run, words, only_first_replica)}, 1, 1.0);
}

// E[phi | z] = (beta + n_kw) / (V beta + n_k) of the final topics, n_kw from WordCounts.
std::vector<double> ExpectedMeanOfAssignments(const Corpus& corpus, const LdaConfig& c,
                                              const ChainEnd& run, bool only_first_replica) {
  const TileGrid words = UnsplitWords(corpus, c);
  const std::vector<std::uint32_t> n = WordCounts(corpus, c, run, words, false);
  const std::vector<std::uint32_t> n_kw = WordCounts(corpus, c, run, words, only_first_replica);
  const std::size_t K = static_cast<std::size_t>(c.topics), V = corpus.vocabulary;
  std::vector<double> n_k(K, 0.0);
  for (std::size_t e = 0; e < n.size(); ++e) n_k[e % K] += n[e];
  std::vector<double> phi(K * V);
  for (std::uint32_t w = 0; w < V; ++w)
    for (std::size_t k = 0; k < K; ++k)
      phi[k * V + w] = (c.beta + n_kw[words.cols().LocalIndex(w) * K + k]) /
                       (static_cast<double>(V) * c.beta + n_k[k]);
  return phi;
}

TEST(LdaSplitWords, ReplicasTakeTheUnsplitWordsStep) {
  const Corpus corpus = WithACommonWord(testing::SmallLdaCorpus().corpus);
  const LdaConfig c = TwoIterations(TopicWordMean::kDraws);
  const ChainEnd run = testing::RunKeepingTopics(c, corpus, 1);
  EXPECT_EQ(run.columns, corpus.vocabulary + 1);  // word 0 in two columns
  // The model adds theta_k. block by block, the check in one block: a few roundings apart.
  EXPECT_LT(testing::LargestRelativeDifference(run.mean, ExpectedDraw(corpus, c, run, false)),
            1e-13);
  // The same chain on 2 ranks, each holding one row block (and, in turn, each replica).
  const ChainEnd two = testing::RunKeepingTopics(c, corpus, 2);
  EXPECT_EQ(two.mean, run.mean);
  EXPECT_EQ(two.topics, run.topics);
  // The negative control: the step from the first replica's counts alone is another draw.
  EXPECT_GT(testing::LargestRelativeDifference(run.mean, ExpectedDraw(corpus, c, run, true)), 0.1);
}

// The topic mean from the assignments (the default --topic-word-mean) counts a split word's
// tokens in all its replicas.
TEST(LdaSplitWords, TheTopicMeanCountsEveryReplica) {
  const Corpus corpus = WithACommonWord(testing::SmallLdaCorpus().corpus);
  const LdaConfig c = TwoIterations(TopicWordMean::kAssignments);
  const ChainEnd run = testing::RunKeepingTopics(c, corpus, 2);
  EXPECT_LT(testing::LargestRelativeDifference(run.mean,
                                               ExpectedMeanOfAssignments(corpus, c, run, false)),
            1e-13);
  EXPECT_GT(
      testing::LargestRelativeDifference(run.mean, ExpectedMeanOfAssignments(corpus, c, run, true)),
      0.1);
}

}  // namespace
}  // namespace carousel
