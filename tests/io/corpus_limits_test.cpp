#include "carousel/io/corpus_limits.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <type_traits>

#include "carousel/data/corpus.hpp"
#include "carousel/io/corpus_reader.hpp"
#include "carousel/model/lda/lda_gibbs.hpp"
#include "carousel/model/lda/lda_tokens.hpp"
#include "carousel/util/error.hpp"

#include "scratch_dir_test.hpp"

namespace carousel::io {
namespace {

namespace fs = std::filesystem;

// The io layer cannot see the model's types; these hold its constants to them.
template <typename Vector>
constexpr std::size_t kElementBytes = sizeof(typename Vector::value_type);
static_assert(kMaxDocumentTokens ==
                  std::numeric_limits<decltype(TopicTokens::doc_topic)::value_type>::max(),
              "a document's tokens are counted in TopicTokens::doc_topic");
static_assert(kTokenBytes == kElementBytes<decltype(TileTokens::word)> +
                                 kElementBytes<decltype(TopicTokens::topic)>,
              "a token is its word and its topic");
static_assert(sizeof(ExpandedTokenRecord::word) == kElementBytes<decltype(TileTokens::word)> &&
                  sizeof(ExpandedTokenRecord::topic) == kElementBytes<decltype(TopicTokens::topic)>,
              "an expanded token is a word and a topic");
static_assert(kTopicWordBytes == 2 * kElementBytes<decltype(TopicWordView::phi)>,
              "the topic-word parameters and their sum are of phi's type");
static_assert(kDocumentBytes == kElementBytes<decltype(Corpus::doc_start)>,
              "a document's offset is a Corpus::doc_start");

TEST(CorpusLimits, EachHostCountsOnceWhateverItsRanks) {
  const CorpusLimits limits =
      LimitsOfRanks({{"a", 100}, {"b", 300}, {"a", 100}, {"b", 300}, {"b", 300}}, 4);
  EXPECT_EQ(limits.job_memory, 400u);
  EXPECT_EQ(limits.node_memory, 300u);
  EXPECT_EQ(limits.nodes, 2);
  EXPECT_EQ(limits.ranks, 5);
  EXPECT_EQ(limits.max_tokens(), 400u / kTokenBytes);
  EXPECT_EQ(limits.max_document_tokens(), 300u / kBuildTokenBytes);
  EXPECT_EQ(limits.max_words(), 400u / (4 * kTopicWordBytes));
  EXPECT_EQ(limits.max_documents(), 400u / (5 * kDocumentBytes));
  // Unknown memory: only the types limit.
  const CorpusLimits unknown;
  EXPECT_EQ(unknown.max_document_tokens(), kMaxDocumentTokens);
  EXPECT_GT(unknown.max_tokens(), std::uint64_t{1} << 60);
  // This machine: its physical memory, or unknown.
  const CorpusLimits machine = MachineCorpusLimits();
  EXPECT_EQ(machine.nodes, 1);
  EXPECT_GT(machine.job_memory, std::uint64_t{1} << 20);
}

// Limits of `memory` bytes on one node, for corpora of a few tokens.
CorpusLimits Memory(std::uint64_t memory, int topics = 0) {
  return LimitsOfRanks({{"host", memory}}, topics);
}

class CorpusLimitsReader : public ScratchDirTest {
 protected:
  // Reads `contents` under `limits`: fails at `line` with every one of `words`, in order.
  testing::AssertionResult FailsWith(const std::string& contents, const CorpusLimits& limits,
                                     std::size_t line, const std::vector<std::string>& words) {
    const std::string path = Write("corpus.txt", contents);
    try {
      ReadCorpus(path, "", CorpusFormat::kAuto, limits);
    } catch (const Error& e) {
      const std::string message = e.what();
      if (e.code() != ExitCode::kInput) return testing::AssertionFailure() << message;
      const std::string where = path + ":" + std::to_string(line) + ": ";
      if (message.rfind(where, 0) != 0)
        return testing::AssertionFailure() << "expected '" << where << "' first in: " << message;
      std::size_t at = 0;
      for (const std::string& word : words) {
        at = message.find(word, at);
        if (at == std::string::npos)
          return testing::AssertionFailure() << "expected '" << word << "' in: " << message;
      }
      return testing::AssertionSuccess();
    }
    return testing::AssertionFailure() << "no error";
  }
};

// Room for 100 tokens (documents of up to 27): the entry that brings the 101st is refused,
// at its line.
TEST_F(CorpusLimitsReader, TheTokensOfTheCorpusAreHeldToTheMemory) {
  const CorpusLimits limits = Memory(100 * kTokenBytes);
  ASSERT_EQ(limits.max_document_tokens(), 27u);
  EXPECT_TRUE(FailsWith("2 0:20 1:5\n1 0:25\n\n2 0:12 2:13\n1 3:25\n2 0:1 1:1\n", limits, 6,
                        {"count 1 takes the corpus to 101 tokens", "at least 606 bytes",
                         "(6 bytes per token): more than the 600 bytes of physical memory of "
                         "the job's 1 node (at most 100 tokens)"}));
  EXPECT_TRUE(FailsWith("5\n5\n6\n1 1 25\n2 2 25\n3 3 25\n4 4 25\n5 5 1\n5 1 1\n", limits, 8,
                        {"count 1 takes the corpus to 101 tokens"}));
  EXPECT_NO_THROW(ReadCorpus(Write("full.txt", "1 0:25\n1 0:25\n1 0:25\n1 0:25\n"), "",
                             CorpusFormat::kAuto, limits));
}

// 6e9 tokens in a document: past its 32-bit topic counts, whatever the memory.
TEST_F(CorpusLimitsReader, ADocumentIsHeldToItsTopicCounts) {
  const CorpusLimits unknown;
  EXPECT_TRUE(FailsWith("1 0:5\n2 0:3000000000 7:3000000000\n", unknown, 2,
                        {"count 3000000000 takes its document to 6000000000 tokens",
                         "more than the 4294967295 the model can count in one document"}));
  // A UCI document's lines may be anywhere: the line that takes it past the limit.
  EXPECT_TRUE(FailsWith("3\n5\n4\n1 1 3000000000\n2 1 5\n3 1 4000000000\n1 2 3000000000\n", unknown,
                        7, {"count 3000000000 takes its document to 6000000000"}));
}

// A document is expanded while its tokens are built: 22 bytes a token on one node.
TEST_F(CorpusLimitsReader, ADocumentIsHeldToTheMemoryOfANode) {
  const CorpusLimits limits = LimitsOfRanks({{"a", 4 * kBuildTokenBytes}, {"b", 1000}}, 0);
  ASSERT_EQ(limits.max_document_tokens(), 45u);
  EXPECT_TRUE(FailsWith("1 0:45\n2 0:40 1:6\n", limits, 2,
                        {"count 6 takes its document to 46 tokens", "at least 1012 bytes",
                         "while the document is built (22 bytes per token, on one rank): more "
                         "than the 1000 bytes of physical memory of the job's largest node"}));
  EXPECT_TRUE(FailsWith("3\n5\n5\n1 1 30\n2 1 1\n3 2 1\n1 2 15\n1 3 1\n", limits, 8,
                        {"count 1 takes its document to 46 tokens"}));
}

// Without a vocabulary V is the largest LDA-C id + 1, and the topic-word table V x K.
TEST_F(CorpusLimitsReader, AWordIdIsHeldToTheTopicWordTable) {
  const CorpusLimits limits = Memory(10 * kTopicWordBytes);
  EXPECT_NO_THROW(ReadCorpus(Write("ok.txt", "1 9:1\n"), "", CorpusFormat::kAuto, limits));
  EXPECT_TRUE(FailsWith("1 9:1\n2 3:1 10:1\n", limits, 2,
                        {"word id 10 (V = largest id + 1): the topic-word table of 11 words "
                         "needs at least 176 bytes (16 bytes per word and topic, even for one "
                         "topic): more than the 160 bytes",
                         "; remap the word ids to 0..V-1"}));
  EXPECT_TRUE(FailsWith("1 5:1\n", Memory(10 * kTopicWordBytes, 2), 1,
                        {"word id 5", "6 words", "192 bytes", "2 topics"}));
  // Past the 32-bit ids, whatever the memory.
  EXPECT_TRUE(FailsWith(
      "1 4294967295:1\n", CorpusLimits{}, 1,
      {"word id '4294967295' is out of range (at most 4294967294)", "remap the word ids"}));
}

// UCI gives W and D in its header, held at their lines.
TEST_F(CorpusLimitsReader, UciSizesAreHeldToTheMemoryAtTheirLines) {
  const CorpusLimits limits = Memory(10 * kTopicWordBytes);
  EXPECT_TRUE(FailsWith(
      "2\n11\n1\n1 1 1\n", limits, 2,
      {"vocabulary size W = 11: the topic-word table of 11 words", "remap the word ids to 1..W"}));
  EXPECT_TRUE(FailsWith("21\n5\n1\n1 1 1\n", limits, 1,
                        {"number of documents D = 21: their offsets need at least 168 bytes "
                         "(8 bytes per document on each of 1 rank): more than the 160 bytes"}));
}

// The loader parses each range apart, with the tokens of the ranges before it: the entry
// that crosses the limit is the one ReadCorpus names, wherever the cuts fall.
TEST_F(CorpusLimitsReader, RangesParsedApartFailAtTheSameLine) {
  const CorpusLimits limits = Memory(20 * kTokenBytes);  // documents of up to 5 tokens
  for (const std::string contents :
       {"2 0:2 1:3\n1 0:3\n\n2 0:1 1:4\n1 2:4\n3 0:1 1:2 2:1\n",
        "5\n4\n9\n1 1 3\n2 1 3\n\n3 1 3\n1 2 2\n2 2 2\n4 3 4\n5 1 4\n3 4 2\n4 4 1\n"}) {
    const std::string path = Write("c.txt", contents);
    std::string whole;
    try {
      ReadCorpus(path, "", CorpusFormat::kAuto, limits);
    } catch (const Error& e) {
      whole = e.what();
    }
    ASSERT_NE(whole, "");
    const CorpusLayout layout = ReadCorpusLayout(path, CorpusFormat::kAuto, 0, "", limits);
    for (int parts = 1; parts <= static_cast<int>(contents.size()) + 1; ++parts) {
      std::uint64_t first_line = layout.data_first_line, tokens = 0, unused = 0;
      std::string failure;
      for (int p = 0; p < parts && failure.empty(); ++p) {
        const ByteRange range =
            LineAlignedRange(path, ByteRange{layout.data_begin, layout.size}, p, parts);
        try {
          ParseCorpusRange(
              layout, range, first_line, tokens, "", 0,
              [&](const CorpusEntry& e) { tokens += e.count; }, &unused);
        } catch (const Error& e) {
          failure = e.what();
        }
        first_line += CountLines(path, range).line_ends;
      }
      EXPECT_EQ(failure, whole) << parts << " parts";
    }
  }
}

}  // namespace
}  // namespace carousel::io
