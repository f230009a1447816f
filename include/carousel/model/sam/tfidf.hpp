// tf-idf unit vectors of a bag-of-words corpus: the documents of the spherical admixture
// model (SAM), as in Liu, Zhu & Song (2016), supplement F.3.
//
// tf-idf(d, v) = tf(d, v) * log(D / (1 + df(v))), with D the number of documents of the
// corpus given (empty ones included) and df(v) the number of its documents containing v,
// both over the WHOLE corpus given (a caller that wants idf from training documents only
// passes those). Each document's vector is then l2-normalised.
#pragma once

#include <cstdint>
#include <vector>

#include "carousel/data/corpus.hpp"

namespace carousel {

struct TfIdfOptions {
  // Keep words whose document-frequency fraction df(v) / D lies in [min_df, max_df], both
  // ends included. F.3 used 0.36%..11.77% (20News) and 0.44%..5.99% (Wikipedia); the
  // defaults are the 20News band, which keeps 4,942 of KOS's 6,906 words (df 13..403 of
  // 3,430 documents) and 3,927 of Reuters' 4,258 (df 2..46 of 395), no document left empty.
  double min_df = 0.0036;
  double max_df = 0.1177;
  // Then, when > 0 and more words remain, only the max_vocabulary of highest df (ties: the
  // smaller original word id).
  std::uint32_t max_vocabulary = 0;
};

struct TfIdfCorpus {
  std::uint32_t documents = 0;  // D, as in the corpus given
  // New word id -> original word id, ascending in both.
  std::vector<std::uint32_t> vocabulary;
  // Each kept word's idf, log(D / (1 + df)), by new id: what a new document's tf-idf needs.
  std::vector<double> idf;
  // CSR over documents of the unit vectors: document d's entries are
  // word[doc_start[d] .. doc_start[d + 1]) (new ids, ascending) with value (> 0, squares
  // summing to 1).
  std::vector<std::uint64_t> doc_start;
  std::vector<std::uint32_t> word;
  std::vector<double> value;
  // Documents left with no kept word have a zero vector, which is no point of the sphere:
  // they are marked here (and have no entries) for the model to exclude, never dropped, so
  // document ids stay those of the corpus.
  std::vector<bool> empty;
  std::uint32_t empty_documents = 0;
  // Words inside the df band but with idf = log(D / (1 + df)) <= 0 (df >= D - 1): their
  // weight would be <= 0, so they are dropped (counted here). Words with df = 0 are dropped
  // too (no document uses them).
  std::uint32_t dropped_nonpositive_idf = 0;
};

// Deterministic, O(nnz + vocabulary + D). Throws Error(kUsage) for options outside
// 0 <= min_df <= max_df <= 1 and Error(kInput) for a corpus without documents.
TfIdfCorpus BuildTfIdf(const Corpus& corpus, const TfIdfOptions& options = {});

// The same with the document frequencies (one per word of corpus.vocabulary) given: for a
// rank's share of a corpus (the documents of other ranks empty), whose df are those of the
// whole corpus (BuildSamCorpus adds them over the ranks). D is corpus.documents.
TfIdfCorpus BuildTfIdf(const Corpus& corpus, const std::vector<std::uint32_t>& df,
                       const TfIdfOptions& options);

}  // namespace carousel
