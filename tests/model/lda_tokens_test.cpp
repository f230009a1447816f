// Document roles and the row-block token layout of LDA (lda_tokens.hpp; DESIGN.md section
// 5, tier 1): which documents are held out, how a row-block groups its tokens by column
// block, which tokens of a held-out document are test tokens, and that the initial topics
// are a function of (seed, document, position) only, not of the tile grid or row-block.
#include "carousel/model/lda/lda_tokens.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <map>
#include <utility>
#include <vector>

#include "carousel/data/tile_grid.hpp"
#include "carousel/util/error.hpp"
#include "carousel/util/keyed_rng.hpp"
#include "lda_kernel_check.hpp"
#include "test_corpus.hpp"

namespace carousel {
namespace {

using testing::Doc;
using testing::MakeCorpus;

// A random corpus: every `empty_every`-th document is empty, the others have 1..12
// distinct words with counts 1..4 (so held-out documents have several test tokens).
Corpus RandomCorpus(std::uint32_t documents, std::uint32_t vocabulary, int empty_every,
                    std::uint64_t seed) {
  std::vector<Doc> docs(documents);
  for (std::uint32_t d = 0; d < documents; ++d) {
    if (empty_every > 0 && d % static_cast<std::uint32_t>(empty_every) == 3) continue;
    KeyedStream rng(seed, Purpose::kTest, d, 0);
    const auto distinct = 1 + rng.below(12);
    std::vector<bool> used(vocabulary, false);
    for (std::uint64_t i = 0; i < distinct; ++i) {
      const auto w = static_cast<std::uint32_t>(rng.below(vocabulary));
      if (used[w]) continue;
      used[w] = true;
      docs[d].emplace_back(w, static_cast<std::uint32_t>(1 + rng.below(4)));
    }
  }
  return MakeCorpus(docs, vocabulary);
}

// One token as the tests see it: global word id and topic.
struct Token {
  std::uint32_t word;
  std::uint16_t topic;
  bool operator==(const Token& o) const { return word == o.word && topic == o.topic; }
};

// Document d's tokens in file order with the topics InitialTopics::kUniform prescribes:
// one below(topics) per token from the stream (seed, kInitRow, d, 0), test tokens included.
std::vector<Token> ExpectedTokens(const Corpus& c, std::uint32_t d, int topics,
                                  std::uint64_t seed) {
  std::vector<Token> out;
  KeyedStream rng(seed, Purpose::kInitRow, d, 0);
  for (std::uint64_t e = c.doc_start[d]; e < c.doc_start[d + 1]; ++e)
    for (std::uint32_t r = 0; r < c.count[e]; ++r)
      out.push_back(
          {c.word[e], static_cast<std::uint16_t>(rng.below(static_cast<unsigned>(topics)))});
  return out;
}

// Local document `ld`'s tokens in column block j, as global word ids (and topics when
// `topic` is given, else topic 0).
std::vector<Token> TileOf(const TileTokens& t, const std::vector<std::uint16_t>* topic,
                          const TileGrid& grid, std::size_t ld, int j) {
  std::vector<Token> out;
  for (std::uint64_t i = t.Begin(ld, j); i < t.End(ld, j); ++i) {
    EXPECT_LT(t.word[i], grid.cols().Members(j).size());
    out.push_back(
        {grid.cols().Members(j)[t.word[i]], topic ? (*topic)[i] : static_cast<std::uint16_t>(0)});
  }
  return out;
}

TEST(ChooseDocumentRoles, EmptyDocumentsFractionAndDeterminism) {
  const Corpus c = RandomCorpus(4000, 50, 7, 1);
  const double fraction = 0.2;
  const auto roles = ChooseDocumentRoles(c, fraction, 42);
  ASSERT_EQ(roles.size(), c.documents);
  std::uint64_t empty = 0, held = 0, nonempty = 0;
  for (std::uint32_t d = 0; d < c.documents; ++d) {
    const bool is_empty = c.doc_start[d] == c.doc_start[d + 1];
    if (is_empty) {
      EXPECT_EQ(roles[d], DocumentRole::kEmpty) << d;
      empty++;
    } else {
      EXPECT_NE(roles[d], DocumentRole::kEmpty) << d;
      nonempty++;
      held += roles[d] == DocumentRole::kHeldOut;
    }
  }
  EXPECT_EQ(empty, c.empty_documents);
  // Held-out count ~ Binomial(nonempty, fraction): within 4 standard deviations.
  const double n = static_cast<double>(nonempty);
  const double z =
      (static_cast<double>(held) - n * fraction) / std::sqrt(n * fraction * (1 - fraction));
  std::cout << "  held out " << held << " of " << nonempty << " non-empty documents, z = " << z
            << "\n";
  EXPECT_LT(std::abs(z), 4.0);

  EXPECT_EQ(ChooseDocumentRoles(c, fraction, 42), roles) << "not deterministic";
  EXPECT_NE(ChooseDocumentRoles(c, fraction, 43), roles) << "the seed is ignored";
  // Fraction 0: nothing held out; the empty documents are still marked.
  for (DocumentRole r : ChooseDocumentRoles(c, 0.0, 42)) EXPECT_NE(r, DocumentRole::kHeldOut);
  // Monotone in the fraction (one keyed uniform per document): a document held out at 0.2
  // is held out at 0.5 too.
  const auto wider = ChooseDocumentRoles(c, 0.5, 42);
  for (std::uint32_t d = 0; d < c.documents; ++d)
    if (roles[d] == DocumentRole::kHeldOut) {
      EXPECT_EQ(wider[d], DocumentRole::kHeldOut) << d;
    }
}

TEST(IsTestToken, EveryTenthPositionFromNine) {
  for (std::uint64_t p = 0; p < 100; ++p) EXPECT_EQ(IsTestToken(p), p % 10 == 9) << p;
}

// Checks every row-block of the B x B grid, built on `threads`, against the corpus and the
// keyed topics.
void CheckRowBlocks(const Corpus& c, const std::vector<DocumentRole>& roles, int blocks, int topics,
                    std::uint64_t seed, int threads) {
  SCOPED_TRACE("B = " + std::to_string(blocks) + ", " + std::to_string(threads) + " threads");
  const TileGrid grid(c.documents, c.vocabulary, blocks, seed);
  std::vector<int> seen(c.documents, 0);
  std::uint64_t train_tokens = 0, observed_tokens = 0, test_tokens = 0;
  for (int i = 0; i < blocks; ++i) {
    const RowBlockTokens rb =
        BuildRowBlockTokens(c, roles, grid, i, topics, seed, InitialTopics::kUniform, 0.1, threads);
    for (const TileTokens* t : {&rb.train.tokens, &rb.observed.tokens, &rb.test}) {
      ASSERT_EQ(t->blocks, blocks);
      const std::size_t docs = t->documents();
      ASSERT_EQ(t->tile_start.size(), (static_cast<std::size_t>(blocks) + 1) * docs);
      // Document after document, block after block, with no gap: every token in one tile.
      std::uint64_t next = 0;
      for (std::size_t d = 0; d < docs; ++d)
        for (int j = 0; j < blocks; ++j) {
          ASSERT_EQ(t->Begin(d, j), next) << "document " << d << ", block " << j;
          ASSERT_LE(t->Begin(d, j), t->End(d, j));
          next = t->End(d, j);
        }
      EXPECT_EQ(next, t->tokens());
    }
    ASSERT_EQ(rb.train.topic.size(), rb.train.tokens.tokens());
    ASSERT_EQ(rb.observed.topic.size(), rb.observed.tokens.tokens());
    ASSERT_EQ(rb.observed.tokens.doc_id, rb.test.doc_id) << "test and observed documents differ";
    train_tokens += rb.train.tokens.tokens();
    observed_tokens += rb.observed.tokens.tokens();
    test_tokens += rb.test.tokens();

    for (const TopicTokens* tt : {&rb.train, &rb.observed}) {
      const bool is_train = tt == &rb.train;
      ASSERT_EQ(tt->doc_topic.size(), tt->tokens.documents() * static_cast<std::size_t>(topics));
      for (std::size_t ld = 0; ld < tt->tokens.documents(); ++ld) {
        const std::uint32_t d = tt->tokens.doc_id[ld];
        ASSERT_LT(d, c.documents);
        EXPECT_EQ(grid.rows().BlockOf(d), i) << "document " << d << " in the wrong row-block";
        EXPECT_EQ(roles[d], is_train ? DocumentRole::kTrain : DocumentRole::kHeldOut) << d;
        seen[d]++;
        if (ld > 0) {  // local documents follow the row-block's member order
          EXPECT_LT(grid.rows().LocalIndex(tt->tokens.doc_id[ld - 1]), grid.rows().LocalIndex(d));
        }

        // Expected: file order, split into test positions (held out only) and the rest,
        // each then stably grouped by column block.
        const std::vector<Token> all = ExpectedTokens(c, d, topics, seed);
        std::vector<std::vector<Token>> want_kept(blocks), want_test(blocks);
        for (std::size_t p = 0; p < all.size(); ++p) {
          const int j = grid.cols().BlockOf(all[p].word);
          (!is_train && IsTestToken(p) ? want_test : want_kept)[j].push_back(all[p]);
        }
        std::vector<std::uint32_t> counts(static_cast<std::size_t>(topics), 0);
        for (int j = 0; j < blocks; ++j) {
          const std::vector<Token> got = TileOf(tt->tokens, &tt->topic, grid, ld, j);
          EXPECT_EQ(got, want_kept[j]) << "document " << d << ", column block " << j;
          for (const Token& t : got) counts[t.topic]++;
          if (!is_train) {
            std::vector<Token> test = TileOf(rb.test, nullptr, grid, ld, j);
            ASSERT_EQ(test.size(), want_test[j].size()) << "document " << d << ", block " << j;
            for (std::size_t k = 0; k < test.size(); ++k)
              EXPECT_EQ(test[k].word, want_test[j][k].word) << "document " << d;
          }
        }
        for (int k = 0; k < topics; ++k)
          EXPECT_EQ(tt->DocTopic(ld)[k], counts[static_cast<std::size_t>(k)])
              << "doc_topic of document " << d << ", topic " << k;
      }
    }
  }
  // Every non-empty document is in exactly one row-block, once; empty ones nowhere; all
  // tokens are there.
  std::uint64_t want_train = 0, want_test = 0, want_observed = 0;
  for (std::uint32_t d = 0; d < c.documents; ++d) {
    EXPECT_EQ(seen[d], roles[d] == DocumentRole::kEmpty ? 0 : 1) << "document " << d;
    std::uint64_t position = 0;
    for (std::uint64_t e = c.doc_start[d]; e < c.doc_start[d + 1]; ++e)
      for (std::uint32_t r = 0; r < c.count[e]; ++r, ++position) {
        if (roles[d] == DocumentRole::kTrain)
          want_train++;
        else
          (IsTestToken(position) ? want_test : want_observed)++;
      }
  }
  EXPECT_EQ(train_tokens, want_train);
  EXPECT_EQ(observed_tokens, want_observed);
  EXPECT_EQ(test_tokens, want_test);
  EXPECT_EQ(train_tokens + observed_tokens + test_tokens, c.tokens());
  EXPECT_GT(want_test, 0u);
}

// Tokens grouped by column block with local word indices, test tokens at positions 9, 19,
// ..., counts conserved, doc_topic consistent, and the initial topics those of the keyed
// stream (seed, kInitRow, document): the same whatever B and whichever row-block builds
// the document, so the union over the row-blocks of any grid is the corpus with the same
// topics. The same on several threads, which share out the documents.
TEST(BuildRowBlockTokens, GroupsTokensSplitsTestTokensAndKeysTopics) {
  const Corpus c = RandomCorpus(300, 40, 9, 2);
  const std::uint64_t seed = 5;
  const auto roles = ChooseDocumentRoles(c, 0.3, seed);
  for (int threads : {1, 3})
    for (int blocks : {1, 3, 4}) CheckRowBlocks(c, roles, blocks, 7, seed, threads);
}

// The initial topics do not depend on the grid: B = 1 and B = 4 hold, for every
// document, the same (word, topic) sequence once the B = 1 tokens are grouped like the
// B = 4 ones. (Redundant with the keyed-stream check above, but independent of it: it
// would catch a stream keyed by row-block or local index even if the test's idea of the
// key were wrong.)
TEST(BuildRowBlockTokens, InitialTopicsIndependentOfGrid) {
  for (InitialTopics init : {InitialTopics::kPrior, InitialTopics::kUniform}) {
    SCOPED_TRACE(InitialTopicsName(init));
    const Corpus c = RandomCorpus(200, 30, 0, 3);
    const std::uint64_t seed = 9;
    const auto roles = ChooseDocumentRoles(c, 0.0, seed);
    const int topics = 11;
    const TileGrid one(c.documents, c.vocabulary, 1, seed);
    const TileGrid four(c.documents, c.vocabulary, 4, seed);
    std::map<std::uint32_t, std::vector<Token>> whole;  // document -> tokens in file order
    const RowBlockTokens all = BuildRowBlockTokens(c, roles, one, 0, topics, seed, init, 0.1);
    for (std::size_t ld = 0; ld < all.train.tokens.documents(); ++ld)
      whole[all.train.tokens.doc_id[ld]] = TileOf(all.train.tokens, &all.train.topic, one, ld, 0);
    ASSERT_EQ(whole.size(), c.documents);
    std::size_t documents = 0;
    for (int i = 0; i < 4; ++i) {
      const RowBlockTokens rb = BuildRowBlockTokens(c, roles, four, i, topics, seed, init, 0.1);
      for (std::size_t ld = 0; ld < rb.train.tokens.documents(); ++ld, ++documents) {
        const std::uint32_t d = rb.train.tokens.doc_id[ld];
        for (int j = 0; j < 4; ++j) {
          std::vector<Token> want;
          for (const Token& t : whole.at(d))
            if (four.cols().BlockOf(t.word) == j) want.push_back(t);
          EXPECT_EQ(TileOf(rb.train.tokens, &rb.train.topic, four, ld, j), want)
              << "document " << d << ", column block " << j;
        }
      }
    }
    EXPECT_EQ(documents, c.documents);
    // Another seed gives other topics (the seed reaches the stream).
    const RowBlockTokens other = BuildRowBlockTokens(c, roles, one, 0, topics, seed + 1, init, 0.1);
    EXPECT_NE(other.train.topic, all.train.topic);
  }
}

// kPrior draws each document's topics from p(z_d | alpha), the symmetric
// Dirichlet-multinomial. Then the count of any one topic in a document of n tokens is
// BetaBinomial(n, alpha, (K - 1) alpha); over many documents, Pearson's chi-square of the
// counts of topic 0, and of topic K - 1 (the top end of the uniform branch's rounding),
// must not reject at kRejectP. Negative control: uniform topics give Binomial(n, 1 / K)
// counts, which it rejects. (A urn with the wrong new-topic weight, i / (i + alpha),
// failed this test when tried.)
TEST(BuildRowBlockTokens, PriorTopicsFollowTheDirichletMultinomial) {
  const std::uint32_t documents = 20000, words = 12;
  const int topics = 10;
  const double alpha = 0.3;
  std::vector<Doc> docs(documents, Doc{{0, 5}, {1, 4}, {2, 3}});  // 12 tokens each
  const Corpus c = MakeCorpus(docs, words);
  const auto roles = ChooseDocumentRoles(c, 0.0, 1);
  const TileGrid grid(c.documents, c.vocabulary, 1, 1);
  const double n = 12, a = alpha, b = (topics - 1) * alpha;
  std::vector<double> pmf(13);
  for (int x = 0; x <= 12; ++x)  // C(n, x) B(x + a, n - x + b) / B(a, b)
    pmf[x] = std::exp(std::lgamma(n + 1) - std::lgamma(x + 1.0) - std::lgamma(n - x + 1) +
                      std::lgamma(x + a) + std::lgamma(n - x + b) - std::lgamma(n + a + b) -
                      std::lgamma(a) - std::lgamma(b) + std::lgamma(a + b));
  auto test = [&](InitialTopics init, int topic) {
    const RowBlockTokens rb = BuildRowBlockTokens(c, roles, grid, 0, topics, 7, init, alpha);
    std::vector<double> histogram(13, 0.0);
    for (std::size_t ld = 0; ld < rb.train.tokens.documents(); ++ld)
      histogram[rb.train.DocTopic(ld)[topic]] += 1.0;
    return lda_check::Pearson(histogram, pmf, documents);
  };
  for (int topic : {0, topics - 1}) {
    const lda_check::ChiSquare prior = test(InitialTopics::kPrior, topic);
    EXPECT_GT(prior.p, lda_check::kRejectP) << "topic " << topic << ": chi2 " << prior.statistic;
    const lda_check::ChiSquare uniform = test(InitialTopics::kUniform, topic);
    EXPECT_LT(uniform.p, lda_check::kRejectP) << "topic " << topic << ": the control passed";
    std::cout << "  topic " << topic << ": prior chi2 " << prior.statistic << " (p " << prior.p
              << "), uniform chi2 " << uniform.statistic << " (p " << uniform.p << ")\n";
  }
}

TEST(InitialTopics, NamesParseBack) {
  for (InitialTopics init : {InitialTopics::kPrior, InitialTopics::kUniform})
    EXPECT_EQ(ParseInitialTopics(InitialTopicsName(init)), init);
  EXPECT_THROW(ParseInitialTopics("random"), Error);
}

TEST(BuildRowBlockTokens, RecountDocTopicAndTopicRange) {
  const Corpus c = RandomCorpus(50, 20, 0, 4);
  const auto roles = ChooseDocumentRoles(c, 0.0, 1);
  const TileGrid grid(c.documents, c.vocabulary, 2, 1);
  RowBlockTokens rb = BuildRowBlockTokens(c, roles, grid, 1, 5, 1, InitialTopics::kPrior, 0.1);
  const auto before = rb.train.doc_topic;
  for (auto& z : rb.train.topic) z = static_cast<std::uint16_t>((z + 1) % 5);
  rb.train.RecountDocTopic();
  for (std::size_t ld = 0; ld < rb.train.tokens.documents(); ++ld)
    for (int k = 0; k < 5; ++k)
      EXPECT_EQ(rb.train.DocTopic(ld)[k], before[ld * 5 + static_cast<std::size_t>((k + 4) % 5)]);
  EXPECT_THROW(BuildRowBlockTokens(c, roles, grid, 0, 0, 1, InitialTopics::kPrior, 0.1), Error);
  EXPECT_THROW(BuildRowBlockTokens(c, roles, grid, 0, 65536, 1, InitialTopics::kPrior, 0.1), Error);
  EXPECT_NO_THROW(BuildRowBlockTokens(c, roles, grid, 0, 65535, 1, InitialTopics::kPrior, 0.1));
}

}  // namespace
}  // namespace carousel
