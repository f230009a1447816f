// From a corpus file to this rank's share of it (DESIGN.md section 8): each rank parses
// only its byte range (after the UCI header, which every rank reads from the head of the
// file); line numbers and LDA-C document ids come from prefix sums of the ranges' line
// counts; every entry then travels once, in rounds of bounded size, to the rank that runs
// its document's row block. A UCI document whose lines are spread over ranges is put back
// together in file order; duplicate entries are found there and named by both lines, and so
// is a document longer than the model can hold. What the corpus may hold is the job's
// (corpus_limits.hpp).
#pragma once

#include <cstdint>
#include <string>

#include "carousel/comm/communicator.hpp"
#include "carousel/data/corpus.hpp"

namespace carousel::io {

struct CorpusInput {
  std::string path;
  std::string vocab;  // empty: no vocabulary file
  CorpusFormat format = CorpusFormat::kAuto;
  int tiles = 1;  // blocks of the tile grid (documents x vocabulary) the corpus is shared on
  std::uint64_t seed = 1;
  int topics = 0;  // K, for the size of the topic-word table (corpus_limits.hpp); 0: unknown
};

struct LoadedCorpus {
  // The corpus as ReadCorpus gives it, but for the documents of other ranks' row blocks,
  // which are empty here (doc_start still spans every document); `empty_documents` counts
  // the whole corpus's.
  Corpus share;
  double parse_seconds = 0.0;      // this rank's parsing of its range
  std::uint64_t parsed_bytes = 0;  // the size of that range
};

// Collective. Every problem with the input ends every rank with one carousel::Error
// (kInput), naming file:line as ReadCorpus would.
LoadedCorpus LoadCorpus(Communicator& comm, const CorpusInput& input);

}  // namespace carousel::io
