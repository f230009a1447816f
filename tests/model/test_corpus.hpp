// In-memory corpora for the tests of the topic models (data/corpus.hpp).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "carousel/data/corpus.hpp"

namespace carousel::testing {

using Doc = std::vector<std::pair<std::uint32_t, std::uint32_t>>;  // (word, count)

// One document per entry of `docs`, its words in the given order; empty ones counted.
inline Corpus MakeCorpus(const std::vector<Doc>& docs, std::uint32_t vocabulary) {
  Corpus c;
  c.documents = static_cast<std::uint32_t>(docs.size());
  c.vocabulary = vocabulary;
  c.doc_start.push_back(0);
  for (const Doc& d : docs) {
    for (const auto& [w, n] : d) {
      c.word.push_back(w);
      c.count.push_back(n);
    }
    c.doc_start.push_back(c.word.size());
    if (d.empty()) c.empty_documents++;
  }
  return c;
}

// counts[d][w]: word w's count in document d (0: absent).
inline Corpus CorpusFromCounts(const std::vector<std::vector<std::uint32_t>>& counts,
                               std::uint32_t vocabulary) {
  std::vector<Doc> docs;
  for (const auto& row : counts) {
    Doc d;
    for (std::uint32_t w = 0; w < vocabulary; ++w)
      if (row[w] > 0) d.emplace_back(w, row[w]);
    docs.push_back(std::move(d));
  }
  return MakeCorpus(docs, vocabulary);
}

}  // namespace carousel::testing
