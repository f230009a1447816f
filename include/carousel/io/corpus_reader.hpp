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

#include "carousel/data/corpus.hpp"

namespace carousel::io {

// Parses a --corpus-format value: "auto", "uci" or "ldac".
// Throws carousel::UsageError("--corpus-format", ...) for anything else.
CorpusFormat ParseCorpusFormat(const std::string& name);

// The --corpus-format spelling of `format` (the inverse of ParseCorpusFormat).
const char* CorpusFormatName(CorpusFormat format);

// Reads the corpus `path` and, unless `vocab_path` is empty, its vocabulary (one word per
// line; line i is word id i - 1). With a vocabulary every word id must be below its size,
// and for UCI its size must equal W. Throws carousel::Error with ExitCode::kInput for a
// missing or unreadable file, an empty corpus, a malformed header or line, an id out of
// range, a count below 1, an entry count that disagrees with NNZ or N, or a word listed
// twice for one document.
Corpus ReadCorpus(const std::string& path, const std::string& vocab_path = "",
                  CorpusFormat format = CorpusFormat::kAuto);

}  // namespace carousel::io
