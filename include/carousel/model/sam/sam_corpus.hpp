// This rank's share of the tf-idf unit vectors SAM models (tfidf.hpp, supplement F.3), built
// with the document frequencies of the whole corpus so that every rank keeps the same
// vocabulary and weights, whatever documents it holds.
#pragma once

#include <cstdint>

#include "carousel/comm/communicator.hpp"
#include "carousel/data/corpus.hpp"
#include "carousel/model/sam/tfidf.hpp"

namespace carousel {

// The unit vectors of the documents of this rank's row blocks (other documents empty); a
// document without a kept word has no unit vector and is left out of the model.
struct SamCorpusShare {
  TfIdfCorpus corpus;
  std::uint64_t entries_held = 0;  // entries of this rank's documents
};

// Collective: document frequencies are added over the ranks (each holds the documents of its
// row blocks, the others empty).
SamCorpusShare BuildSamCorpus(Communicator& comm, const Corpus& share, const TfIdfOptions& options);

}  // namespace carousel
