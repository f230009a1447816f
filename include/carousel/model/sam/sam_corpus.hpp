// From a bag-of-words corpus to the tf-idf unit vectors SAM models, exactly as supplement F.3
// of Liu, Zhu and Song (2016) builds its data sets:
//   tf-idf(d, v) = tf(d, v) * log(D / (1 + df(v))),
// D the documents with at least one token, df(v) the documents containing word v; each
// document's vector is then l2-normalised. The vocabulary is first cut to words of moderate
// document frequency, df(v) / D in [min_df, max_df] (F.3 kept 0.36%-11.77% of 20News and
// 0.44%-5.99% of Wikipedia), then optionally to the max_vocabulary words of largest df. A
// word with df >= D - 1 has idf <= 0 and is never kept. df and D count every document, held
// out or not, as F.3 computes tf-idf before splitting (unsupervised; no labels involved).
// A document left without kept words has no unit vector; the model leaves it out and says
// how many there were.
#pragma once

#include <cstdint>
#include <vector>

#include "carousel/comm/communicator.hpp"
#include "carousel/data/corpus.hpp"

namespace carousel {

struct TfIdfOptions {
  double min_df = 0.0036;  // F.3's cut of 20News-different
  double max_df = 0.1177;
  std::uint32_t max_vocabulary = 0;  // 0: no cap
};

// The kept words, ascending by original id (new id = position), given every word's document
// frequency over the whole corpus and the number of documents with a token.
std::vector<std::uint32_t> ChooseTfIdfVocabulary(const std::vector<std::uint64_t>& df,
                                                 std::uint64_t documents,
                                                 const TfIdfOptions& options);

// This rank's share of a tf-idf corpus: the unit vectors of the documents of its row blocks
// (other documents are empty here); a document without any kept word has no unit vector and
// is left out of the model.
struct SamCorpus {
  std::uint32_t documents = 0;  // of the whole corpus
  std::uint32_t words = 0;      // V: the kept vocabulary, the dimension of the topic vectors
  std::vector<std::uint64_t> doc_start;  // documents + 1 entries
  std::vector<std::uint32_t> word;       // kept-vocabulary ids, ascending within a document
  std::vector<double> value;             // each document's entries have unit norm
};

struct SamCorpusShare {
  SamCorpus corpus;
  std::vector<std::uint32_t> kept_words;  // new id -> original word id
  std::uint64_t entries_held = 0;         // entries of this rank's documents
};

// Collective: document frequencies are added over the ranks (each holds the documents of its
// row blocks, the others empty), so every rank keeps the same vocabulary.
SamCorpusShare BuildSamCorpus(Communicator& comm, const Corpus& share, const TfIdfOptions& options);

}  // namespace carousel
