// A bag-of-words corpus as models see it: a CSR matrix over documents with 0-based word
// ids (io/corpus_reader.hpp reads one from UCI or LDA-C files).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "carousel/util/default_init_allocator.hpp"

namespace carousel {

enum class CorpusFormat {
  kAuto,  // the first non-blank line decides: one containing ':' is LDA-C, else UCI
  kUci,   // D, W, NNZ header lines, then "doc word count" (1-based ids)
  kLdaC,  // "N id:count ..." per document (0-based ids)
};

// Word ids or counts of a corpus's entries: resize leaves them to be written (a loader fills
// them in any order), see default_init_allocator.hpp.
using EntryArray = std::vector<std::uint32_t, DefaultInitAllocator<std::uint32_t>>;

struct Corpus {
  std::string path;
  CorpusFormat format = CorpusFormat::kUci;  // the format actually parsed; never kAuto
  std::uint32_t documents = 0;               // including empty ones
  // W from the UCI header, else the vocabulary file's size, else the largest id + 1.
  std::uint32_t vocabulary = 0;
  // CSR over documents: document d's distinct words are word[doc_start[d] ..
  // doc_start[d + 1]) with their counts; doc_start has documents + 1 entries. Within a
  // document the words keep their order in the file.
  std::vector<std::uint64_t> doc_start;
  EntryArray word;                    // 0-based, < vocabulary
  EntryArray count;                   // > 0
  std::vector<std::string> vocab;     // word id -> word; empty without a vocabulary file
  std::uint32_t empty_documents = 0;  // documents without tokens: kept (so ids stay), counted

  // The number of tokens: the sum of all counts.
  std::uint64_t tokens() const;
};

}  // namespace carousel
