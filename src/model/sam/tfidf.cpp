// tf-idf unit vectors (tfidf.hpp; Liu, Zhu & Song 2016, supplement F.3).
#include "carousel/model/sam/tfidf.hpp"

#include <cmath>
#include <string>

#include "carousel/util/error.hpp"

namespace carousel {
namespace {

void CheckOptions(const TfIdfOptions& options) {
  const bool ok = options.min_df >= 0.0 && options.max_df <= 1.0 &&
                  options.min_df <= options.max_df;  // false for NaN too
  if (!ok)
    throw Error(ExitCode::kUsage,
                "tf-idf: document-frequency band [" + std::to_string(options.min_df) + ", " +
                    std::to_string(options.max_df) + "] is not within [0, 1] with min <= max");
}

// Of the words with keep[v], keeps the `limit` of highest df (ties: smaller id), by counting
// words per df value (df <= D), so no sort is needed.
void KeepHighestDf(const std::vector<std::uint32_t>& df, std::uint32_t documents,
                   std::uint32_t limit, std::vector<bool>& keep) {
  std::vector<std::uint32_t> per_df(static_cast<std::size_t>(documents) + 1, 0);
  std::uint64_t kept = 0;
  for (std::size_t v = 0; v < df.size(); ++v)
    if (keep[v]) ++per_df[df[v]], ++kept;
  if (kept <= limit) return;
  // From the highest df down: every word with df > cut fits, those with df == cut only in
  // part.
  std::uint64_t above = 0;  // kept words with df > cut
  std::uint32_t cut = documents;
  while (above + per_df[cut] <= limit) above += per_df[cut--];
  std::uint64_t at_cut = limit - above;  // words with df == cut to keep, smallest ids first
  for (std::size_t v = 0; v < df.size(); ++v) {
    if (!keep[v] || df[v] > cut) continue;
    if (df[v] == cut && at_cut > 0) {
      --at_cut;
      continue;
    }
    keep[v] = false;
  }
}

}  // namespace

TfIdfCorpus BuildTfIdf(const Corpus& corpus, const TfIdfOptions& options) {
  // Document frequencies: a document lists each of its words once (corpus.hpp).
  std::vector<std::uint32_t> df(corpus.vocabulary, 0);
  for (std::uint32_t v : corpus.word) ++df[v];
  return BuildTfIdf(corpus, df, options);
}

TfIdfCorpus BuildTfIdf(const Corpus& corpus, const std::vector<std::uint32_t>& df,
                       const TfIdfOptions& options) {
  CheckOptions(options);
  const std::uint32_t documents = corpus.documents;
  if (documents == 0) throw InputError(corpus.path, "tf-idf of a corpus without documents");
  if (df.size() != corpus.vocabulary)
    throw Error(ExitCode::kInternal, "tf-idf: one document frequency per word expected");
  const double dd = documents;

  TfIdfCorpus out;
  out.documents = documents;
  std::vector<bool> keep(corpus.vocabulary, false);
  for (std::uint32_t v = 0; v < corpus.vocabulary; ++v) {
    const double fraction = df[v] / dd;
    if (df[v] == 0 || fraction < options.min_df || fraction > options.max_df) continue;
    if (static_cast<std::uint64_t>(df[v]) + 1 >= documents) {  // idf <= 0
      ++out.dropped_nonpositive_idf;
      continue;
    }
    keep[v] = true;
  }
  if (options.max_vocabulary > 0) KeepHighestDf(df, documents, options.max_vocabulary, keep);

  // New ids in ascending original order, and each kept word's idf.
  constexpr std::uint32_t kDropped = 0xffffffffu;
  std::vector<std::uint32_t> new_id(corpus.vocabulary, kDropped);
  std::vector<double>& idf = out.idf;
  for (std::uint32_t v = 0; v < corpus.vocabulary; ++v) {
    if (!keep[v]) continue;
    new_id[v] = static_cast<std::uint32_t>(out.vocabulary.size());
    out.vocabulary.push_back(v);
    idf.push_back(std::log(dd / (1.0 + df[v])));
  }
  const std::size_t kept_words = out.vocabulary.size();

  // Within a document the corpus keeps file order; two counting passes (documents -> words
  // -> documents) sort each document's entries by new id in O(nnz + vocabulary + D).
  std::vector<std::uint64_t> word_start(kept_words + 1, 0);
  std::vector<std::uint64_t> doc_count(documents, 0);
  for (std::uint32_t d = 0; d < documents; ++d)
    for (std::uint64_t i = corpus.doc_start[d]; i < corpus.doc_start[d + 1]; ++i) {
      const std::uint32_t w = new_id[corpus.word[i]];
      if (w == kDropped) continue;
      ++word_start[w + 1];
      ++doc_count[d];
    }
  for (std::size_t w = 0; w < kept_words; ++w) word_start[w + 1] += word_start[w];
  const std::uint64_t nnz = word_start[kept_words];
  std::vector<std::uint32_t> by_word_doc(nnz);
  std::vector<double> by_word_value(nnz);
  std::vector<std::uint64_t> fill(word_start.begin(), word_start.end() - 1);
  for (std::uint32_t d = 0; d < documents; ++d)
    for (std::uint64_t i = corpus.doc_start[d]; i < corpus.doc_start[d + 1]; ++i) {
      const std::uint32_t w = new_id[corpus.word[i]];
      if (w == kDropped) continue;
      by_word_doc[fill[w]] = d;
      by_word_value[fill[w]++] = corpus.count[i] * idf[w];
    }

  out.doc_start.assign(static_cast<std::size_t>(documents) + 1, 0);
  for (std::uint32_t d = 0; d < documents; ++d)
    out.doc_start[d + 1] = out.doc_start[d] + doc_count[d];
  out.word.resize(nnz);
  out.value.resize(nnz);
  std::vector<std::uint64_t> next(out.doc_start.begin(), out.doc_start.end() - 1);
  for (std::uint32_t w = 0; w < kept_words; ++w)
    for (std::uint64_t j = word_start[w]; j < word_start[w + 1]; ++j) {
      const std::uint64_t at = next[by_word_doc[j]]++;
      out.word[at] = w;
      out.value[at] = by_word_value[j];
    }

  // l2-normalise; a document without kept words cannot be a unit vector: mark it.
  out.empty.assign(documents, false);
  for (std::uint32_t d = 0; d < documents; ++d) {
    const std::uint64_t begin = out.doc_start[d], end = out.doc_start[d + 1];
    if (begin == end) {
      out.empty[d] = true;
      ++out.empty_documents;
      continue;
    }
    double squares = 0.0;
    for (std::uint64_t i = begin; i < end; ++i) squares += out.value[i] * out.value[i];
    const double inverse = 1.0 / std::sqrt(squares);
    for (std::uint64_t i = begin; i < end; ++i) out.value[i] *= inverse;
  }
  return out;
}

}  // namespace carousel
