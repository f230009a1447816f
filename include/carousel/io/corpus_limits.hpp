// What a corpus may hold for latent Dirichlet allocation: what the model's types can count
// and what the job's machines can hold. The corpus readers refuse a corpus at the line that
// crosses a limit, before the model allocates anything for it (issue #12: a count of 4e9
// ran for minutes without a word; a word id of 4294967290 ended in "out of memory").
//
// The limits are lower bounds of what a run needs, from the model's types
// (model/lda/lda_tokens.hpp and the topic-word blocks; tests/io/corpus_limits_test.cpp holds
// the constants below to the types) and from the physical memory of the job's nodes. So a
// corpus refused could never run; one accepted may still not fit beside everything else.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "carousel/comm/communicator.hpp"
#include "carousel/io/text_input.hpp"

namespace carousel::io {

// A document's tokens are counted per topic in 32 bits (TopicTokens::doc_topic).
inline constexpr std::uint64_t kMaxDocumentTokens = std::numeric_limits<std::uint32_t>::max();

// Each token keeps its word (TileTokens::word) and its topic (TopicTokens::topic).
inline constexpr std::uint64_t kTokenBytes = sizeof(std::uint32_t) + sizeof(std::uint16_t);

// While a document's tokens are built (BuildRowBlockTokens), each is also held as a
// (word, topic) record and a pointer to that record, on the rank of its document.
struct ExpandedTokenRecord {
  std::uint32_t word;
  std::uint16_t topic;
};
inline constexpr std::uint64_t kBuildTokenBytes =
    kTokenBytes + sizeof(ExpandedTokenRecord) + sizeof(const ExpandedTokenRecord*);

// Each word and topic of the topic-word table holds at least two doubles: the parameter,
// which travels with its column block, and its sum over the collected samples.
inline constexpr std::uint64_t kTopicWordBytes = 2 * sizeof(double);

// Every rank holds the offset of every document's entries (Corpus::doc_start).
inline constexpr std::uint64_t kDocumentBytes = sizeof(std::uint64_t);

struct CorpusLimits {
  static constexpr std::uint64_t kUnknown = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t job_memory = kUnknown;   // bytes of physical memory, each node counted once
  std::uint64_t node_memory = kUnknown;  // of the job's largest node
  int nodes = 1;
  int ranks = 1;
  int topics = 0;  // K; 0 when not known, held as 1 (the least a topic-word table needs)

  // The tokens of the whole corpus (spread over the ranks).
  std::uint64_t max_tokens() const { return job_memory / kTokenBytes; }
  // The tokens of one document (built on one rank).
  std::uint64_t max_document_tokens() const;
  // The vocabulary size V (the V x K topic-word table, spread over the ranks).
  std::uint64_t max_words() const;
  // The number of documents D (offsets on every rank).
  std::uint64_t max_documents() const;
};

// The physical memory of this machine alone: one process reading a corpus.
CorpusLimits MachineCorpusLimits(int topics = 0);

// The physical memory of the job's nodes, known by their host names. Collective.
CorpusLimits JobCorpusLimits(Communicator& comm, int topics);

// The limits for ranks on hosts (host name, physical memory in bytes), one pair per rank.
CorpusLimits LimitsOfRanks(const std::vector<std::pair<std::string, std::uint64_t>>& ranks,
                           int topics);

// The problems, each naming the count that crossed, the limit, and what it would take.
std::string TooManyTokensProblem(std::uint32_t count, std::uint64_t total,
                                 const CorpusLimits& limits);
std::string DocumentTooLongProblem(std::uint32_t count, std::uint64_t total,
                                   const CorpusLimits& limits);
// `words`: a vocabulary size, introduced by `what` ("vocabulary size W = 5", ...).
std::string TooManyWordsProblem(const std::string& what, std::uint64_t words,
                                const CorpusLimits& limits);
std::string TooManyDocumentsProblem(std::uint64_t documents, const CorpusLimits& limits);

// The tokens of a corpus's entries in file order, from `before` (the tokens of the lines
// before them): Add fails at the entry whose count takes the total past max_tokens().
class TokenTally {
 public:
  TokenTally(const CorpusLimits& limits, std::uint64_t before)
      : limits_(limits), max_(limits.max_tokens()), total_(before) {}

  void Add(std::uint32_t count, const Location& at) {
    total_ += count;  // no overflow: it stops within one count of max_tokens()
    if (total_ > max_) Fail(at, TooManyTokensProblem(count, total_, limits_));
  }
  std::uint64_t total() const { return total_; }

 private:
  CorpusLimits limits_;
  std::uint64_t max_;
  std::uint64_t total_;
};

}  // namespace carousel::io
