#include "carousel/io/corpus_limits.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <map>

namespace carousel::io {
namespace {

std::uint64_t PhysicalMemory() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page_bytes = ::sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_bytes <= 0) return CorpusLimits::kUnknown;  // then no limit
  return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page_bytes);
}

std::string HostName() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "";
  return name;
}

// "12.3 GiB": memory figures in messages, computed in double so that no product overflows.
std::string Bytes(double bytes) {
  const char* unit = "bytes";
  for (const char* next : {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}) {
    if (bytes < 1024.0) break;
    bytes /= 1024.0;
    unit = next;
  }
  char text[64];
  std::snprintf(text, sizeof text, unit[0] == 'b' ? "%.0f %s" : "%.1f %s", bytes, unit);
  return text;
}

// ": more than the 23.5 GiB of physical memory of the job's 2 nodes (at most 10 tokens)"
std::string MoreThan(std::uint64_t memory, const std::string& whose, std::uint64_t limit,
                     const std::string& what) {
  return ": more than the " + Bytes(static_cast<double>(memory)) + " of physical memory of " +
         whose + " (at most " + std::to_string(limit) + " " + what + ")";
}

std::string TheJobsNodes(const CorpusLimits& limits) {
  return "the job's " + std::to_string(limits.nodes) + (limits.nodes == 1 ? " node" : " nodes");
}

}  // namespace

std::uint64_t CorpusLimits::max_document_tokens() const {
  return std::min(kMaxDocumentTokens, node_memory / kBuildTokenBytes);
}

std::uint64_t CorpusLimits::max_words() const {
  return job_memory / (kTopicWordBytes * static_cast<std::uint64_t>(std::max(topics, 1)));
}

std::uint64_t CorpusLimits::max_documents() const {
  return job_memory / (kDocumentBytes * static_cast<std::uint64_t>(std::max(ranks, 1)));
}

CorpusLimits LimitsOfRanks(const std::vector<std::pair<std::string, std::uint64_t>>& ranks,
                           int topics) {
  // Ranks on one host share its memory: each host counts once (with the largest figure
  // any of its ranks saw, should they differ).
  std::map<std::string, std::uint64_t> hosts;
  for (const auto& [host, memory] : ranks) hosts[host] = std::max(hosts[host], memory);
  CorpusLimits limits;
  limits.job_memory = 0;
  limits.node_memory = 0;
  for (const auto& [host, memory] : hosts) {
    limits.job_memory = memory > CorpusLimits::kUnknown - limits.job_memory
                            ? CorpusLimits::kUnknown
                            : limits.job_memory + memory;
    limits.node_memory = std::max(limits.node_memory, memory);
  }
  limits.nodes = static_cast<int>(hosts.size());
  limits.ranks = static_cast<int>(ranks.size());
  limits.topics = topics;
  return limits;
}

CorpusLimits MachineCorpusLimits(int topics) {
  return LimitsOfRanks({{HostName(), PhysicalMemory()}}, topics);
}

CorpusLimits JobCorpusLimits(Communicator& comm, int topics) {
  const std::string mine = std::to_string(PhysicalMemory()) + " " + HostName();
  std::vector<std::pair<std::string, std::uint64_t>> ranks;
  for (const std::string& rank : comm.AllGather(mine)) {
    const std::size_t space = rank.find(' ');
    ranks.emplace_back(rank.substr(space + 1), std::stoull(rank.substr(0, space)));
  }
  return LimitsOfRanks(ranks, topics);
}

std::string TooManyTokensProblem(std::uint32_t count, std::uint64_t total,
                                 const CorpusLimits& limits) {
  return "count " + std::to_string(count) + " takes the corpus to " + std::to_string(total) +
         " tokens, which need at least " +
         Bytes(static_cast<double>(total) * static_cast<double>(kTokenBytes)) + " (" +
         std::to_string(kTokenBytes) + " bytes per token)" +
         MoreThan(limits.job_memory, TheJobsNodes(limits), limits.max_tokens(), "tokens");
}

std::string DocumentTooLongProblem(std::uint32_t count, std::uint64_t total,
                                   const CorpusLimits& limits) {
  const std::string start = "count " + std::to_string(count) + " takes its document to " +
                            std::to_string(total) + " tokens";
  if (total > kMaxDocumentTokens)
    return start + ", more than the " + std::to_string(kMaxDocumentTokens) +
           " the model can count in one document (32-bit topic counts)";
  return start + ", which need at least " +
         Bytes(static_cast<double>(total) * static_cast<double>(kBuildTokenBytes)) +
         " while the document is built (" + std::to_string(kBuildTokenBytes) +
         " bytes per token, on one rank)" +
         MoreThan(limits.node_memory,
                  limits.nodes == 1 ? TheJobsNodes(limits) : "the job's largest node",
                  limits.max_document_tokens(), "tokens in a document");
}

std::string TooManyWordsProblem(const std::string& what, std::uint64_t words,
                                const CorpusLimits& limits) {
  const double bytes = static_cast<double>(words) * static_cast<double>(kTopicWordBytes) *
                       static_cast<double>(std::max(limits.topics, 1));
  const std::string topics = limits.topics < 1    ? "even for one topic"
                             : limits.topics == 1 ? "1 topic"
                                                  : std::to_string(limits.topics) + " topics";
  return what + ": the topic-word table of " + std::to_string(words) + " words needs at least " +
         Bytes(bytes) + " (" + std::to_string(kTopicWordBytes) + " bytes per word and topic, " +
         topics + ")" +
         MoreThan(limits.job_memory, TheJobsNodes(limits), limits.max_words(), "words");
}

std::string TooManyDocumentsProblem(std::uint64_t documents, const CorpusLimits& limits) {
  const double bytes = static_cast<double>(documents) * static_cast<double>(kDocumentBytes) *
                       static_cast<double>(limits.ranks);
  return "number of documents D = " + std::to_string(documents) + ": their offsets need at least " +
         Bytes(bytes) + " (" + std::to_string(kDocumentBytes) + " bytes per document on each of " +
         std::to_string(limits.ranks) + (limits.ranks == 1 ? " rank)" : " ranks)") +
         MoreThan(limits.job_memory, TheJobsNodes(limits), limits.max_documents(), "documents");
}

}  // namespace carousel::io
