#include "carousel/model/lda/word_columns.hpp"

#include <algorithm>

#include "carousel/model/lda/lda_tokens.hpp"
#include "carousel/util/mix64.hpp"

namespace carousel {

WordColumns::WordColumns(std::uint32_t vocabulary) : vocabulary_(vocabulary) {}

WordColumns::WordColumns(const std::vector<std::uint64_t>& word_tokens, int tiles)
    : vocabulary_(static_cast<std::uint32_t>(word_tokens.size())) {
  std::uint64_t total = 0;
  for (std::uint64_t t : word_tokens) total += t;
  if (total == 0 || tiles < 2) return;
  const auto blocks = static_cast<std::uint64_t>(tiles);
  for (std::uint32_t w = 0; w < vocabulary_; ++w) {
    // ceil(t_w B / T), in integers: more than one where t_w exceeds a block's mean share.
    const std::uint64_t replicas =
        std::min<std::uint64_t>(blocks, (word_tokens[w] * blocks + total - 1) / total);
    if (replicas < 2) continue;
    if (replica_count_.empty()) {
      replica_count_.assign(vocabulary_, 1);
      first_extra_.assign(vocabulary_, 0);
    }
    replica_count_[w] = static_cast<std::uint32_t>(replicas);
    first_extra_[w] = extra_;
    std::vector<std::uint32_t>& columns = replicas_.emplace_back(1, w);
    for (std::uint64_t r = 1; r < replicas; ++r) {
      columns.push_back(vocabulary_ + extra_);
      word_of_extra_.push_back(w);
      ++extra_;
    }
  }
}

std::uint32_t WordColumns::ColumnOf(std::uint32_t word, std::uint32_t document) const {
  if (replica_count_.empty() || replica_count_[word] < 2) return word;
  const auto r = static_cast<std::uint32_t>(SplitMix64(document) % replica_count_[word]);
  return r == 0 ? word : vocabulary_ + first_extra_[word] + r - 1;
}

std::vector<std::uint64_t> WordColumns::ColumnTokens(const Corpus& corpus,
                                                     const std::vector<DocumentRole>& roles) const {
  std::vector<std::uint64_t> tokens(columns(), 0);
  for (std::uint32_t d = 0; d < corpus.documents; ++d) {
    if (roles[d] != DocumentRole::kTrain) continue;
    for (std::uint64_t e = corpus.doc_start[d]; e < corpus.doc_start[d + 1]; ++e)
      tokens[ColumnOf(corpus.word[e], d)] += corpus.count[e];
  }
  return tokens;
}

}  // namespace carousel
