// Reading bag-of-words corpora for latent Dirichlet allocation: UCI and LDA-C.
//
// UCI (docword.*.txt of the UCI bag-of-words collection): three header lines D, W and
// NNZ, then NNZ lines "doc word count" with 1-based ids, in any order.
// LDA-C (Blei's lda-c): one document per line, "N id:count id:count ..." with N the
// number of distinct terms on the line and 0-based word ids.
//
// Either way the corpus comes back as a CSR matrix over documents with 0-based word ids.
// Documents without tokens are kept, so that document ids stay as in the file, and
// counted. Every problem with the input throws carousel::InputError ("file:line: problem").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace carousel::io {

enum class CorpusFormat {
  kAuto,  // the first non-blank line decides: one containing ':' is LDA-C, else UCI
  kUci,   // D, W, NNZ header lines, then "doc word count" (1-based ids)
  kLdaC,  // "N id:count ..." per document (0-based ids)
};

// Parses a --corpus-format value: "auto", "uci" or "ldac".
// Throws carousel::UsageError("--corpus-format", ...) for anything else.
CorpusFormat ParseCorpusFormat(const std::string& name);

// The --corpus-format spelling of `format` (the inverse of ParseCorpusFormat).
const char* CorpusFormatName(CorpusFormat format);

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
  std::vector<std::uint32_t> word;    // 0-based, < vocabulary
  std::vector<std::uint32_t> count;   // > 0
  std::vector<std::string> vocab;     // word id -> word; empty without a vocabulary file
  std::uint32_t empty_documents = 0;  // documents without tokens: kept (so ids stay), counted

  // The number of tokens: the sum of all counts.
  std::uint64_t tokens() const;
};

// Reads the corpus `path` and, unless `vocab_path` is empty, its vocabulary (one word per
// line; line i is word id i - 1). With a vocabulary every word id must be below its size,
// and for UCI its size must equal W. Throws carousel::Error with ExitCode::kInput for a
// missing or unreadable file, an empty corpus, a malformed header or line, an id out of
// range, a count below 1, an entry count that disagrees with NNZ or N, or a word listed
// twice for one document.
Corpus ReadCorpus(const std::string& path, const std::string& vocab_path = "",
                  CorpusFormat format = CorpusFormat::kAuto);

}  // namespace carousel::io
