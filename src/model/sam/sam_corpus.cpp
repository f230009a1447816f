// tf-idf unit vectors of supplement F.3 (see sam_corpus.hpp).
#include "carousel/model/sam/sam_corpus.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

#include "carousel/util/byte_buffer.hpp"

namespace carousel {

std::vector<std::uint32_t> ChooseTfIdfVocabulary(const std::vector<std::uint64_t>& df,
                                                 std::uint64_t documents,
                                                 const TfIdfOptions& options) {
  const double d = static_cast<double>(documents);
  std::vector<std::uint32_t> kept;
  for (std::uint32_t w = 0; w < df.size(); ++w) {
    const double fraction = static_cast<double>(df[w]) / d;
    const bool positive_idf = df[w] + 1 < documents;  // log(D / (1 + df)) > 0
    if (df[w] > 0 && positive_idf && fraction >= options.min_df && fraction <= options.max_df)
      kept.push_back(w);
  }
  if (options.max_vocabulary > 0 && kept.size() > options.max_vocabulary) {
    // The most frequent words; among equal frequencies the smaller id.
    std::stable_sort(kept.begin(), kept.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return df[a] > df[b]; });
    kept.resize(options.max_vocabulary);
    std::sort(kept.begin(), kept.end());
  }
  return kept;
}

SamCorpusShare BuildSamCorpus(Communicator& comm, const Corpus& share,
                              const TfIdfOptions& options) {
  // Document frequencies and the documents with a token, added over the ranks.
  std::vector<std::uint64_t> local(static_cast<std::size_t>(share.vocabulary) + 1, 0);
  for (std::uint32_t doc = 0; doc < share.documents; ++doc) {
    if (share.doc_start[doc] == share.doc_start[doc + 1]) continue;
    local.back()++;
    for (std::uint64_t e = share.doc_start[doc]; e < share.doc_start[doc + 1]; ++e)
      local[share.word[e]]++;
  }
  std::vector<std::uint64_t> df(local.size(), 0);
  for (const std::string& part : comm.AllGather(PodBytes(local))) {
    std::vector<std::uint64_t> counts;
    AppendPods(part, counts);
    for (std::size_t w = 0; w < df.size(); ++w) df[w] += counts[w];
  }
  const std::uint64_t documents = df.back();
  df.pop_back();

  SamCorpusShare out;
  out.kept_words = ChooseTfIdfVocabulary(df, documents, options);
  std::vector<std::int64_t> new_id(df.size(), -1);
  for (std::size_t i = 0; i < out.kept_words.size(); ++i) new_id[out.kept_words[i]] = i;
  SamCorpus& c = out.corpus;
  c.documents = share.documents;
  c.words = static_cast<std::uint32_t>(out.kept_words.size());
  c.doc_start.reserve(static_cast<std::size_t>(share.documents) + 1);
  c.doc_start.push_back(0);
  std::vector<std::pair<std::uint32_t, double>> entries;
  const double D = static_cast<double>(documents);
  for (std::uint32_t doc = 0; doc < share.documents; ++doc) {
    entries.clear();
    for (std::uint64_t e = share.doc_start[doc]; e < share.doc_start[doc + 1]; ++e) {
      const std::uint32_t w = share.word[e];
      if (new_id[w] < 0) continue;
      const double idf = std::log(D / (1.0 + static_cast<double>(df[w])));
      entries.emplace_back(static_cast<std::uint32_t>(new_id[w]), share.count[e] * idf);
    }
    std::sort(entries.begin(), entries.end());
    double norm = 0.0;
    for (const auto& [w, x] : entries) norm += x * x;
    norm = std::sqrt(norm);
    for (const auto& [w, x] : entries) {
      c.word.push_back(w);
      c.value.push_back(x / norm);
    }
    c.doc_start.push_back(c.word.size());
    out.entries_held += entries.size();
  }
  return out;
}

}  // namespace carousel
