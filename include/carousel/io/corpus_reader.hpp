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

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "carousel/io/corpus_limits.hpp"
#include "carousel/io/line_ranges.hpp"

#include "carousel/data/corpus.hpp"

namespace carousel::io {

// Parses a --corpus-format value: "auto", "uci" or "ldac".
// Throws carousel::SettingError("corpus-format", ...) for anything else.
CorpusFormat ParseCorpusFormat(const std::string& name);

// The --corpus-format spelling of `format` (the inverse of ParseCorpusFormat).
const char* CorpusFormatName(CorpusFormat format);

// Reads the corpus `path` and, unless `vocab_path` is empty, its vocabulary (one word per
// line; line i is word id i - 1). With a vocabulary every word id must be below its size,
// and for UCI its size must equal W. Throws carousel::Error with ExitCode::kInput for a
// missing or unreadable file, an empty corpus, a malformed header or line, an id out of
// range, a count below 1, an entry count that disagrees with NNZ or N, a word listed twice
// for one document, or a corpus larger than `limits` allow (corpus_limits.hpp).
Corpus ReadCorpus(const std::string& path, const std::string& vocab_path = "",
                  CorpusFormat format = CorpusFormat::kAuto,
                  const CorpusLimits& limits = MachineCorpusLimits());

// ---------------------------------------------------------------------------------------
// Reading by byte range (DESIGN.md section 8): the pieces corpus_loader.hpp puts together.

// One vocabulary file (as ReadCorpus reads it).
std::vector<std::string> ReadVocabulary(const std::string& path);

struct UciHeader {
  std::uint64_t documents;
  std::uint64_t words;
  std::uint64_t entries;
  std::size_t documents_line;
  std::size_t words_line;
  std::size_t entries_line;
};

// What must be known before the ranges of a corpus file are parsed apart, read from its
// head: the format, and for UCI the header (D, W, NNZ) after which the entries start.
// `vocabulary_size` and `vocab_path` (empty: none) check W against the vocabulary; D, W and
// then the ranges are held to `limits`.
struct CorpusLayout {
  std::string path;
  CorpusFormat format = CorpusFormat::kUci;
  std::uint64_t size = 0;
  std::uint64_t data_begin = 0;     // first byte of the entries (UCI) or documents (LDA-C)
  std::size_t data_first_line = 1;  // its line number
  std::optional<UciHeader> uci;
  CorpusLimits limits;
};
CorpusLayout ReadCorpusLayout(const std::string& path, CorpusFormat format,
                              std::size_t vocabulary_size, const std::string& vocab_path,
                              const CorpusLimits& limits = MachineCorpusLimits());

// An entry: for UCI its 0-based document and word ids; for LDA-C the document is counted
// from 0 at the range's first document line.
struct CorpusEntry {
  std::uint32_t doc;
  std::uint32_t word;
  std::uint32_t count;
  std::uint64_t line;
};

// Parses the line-aligned `range` of the entries' part, whose first line is `first_line`,
// streaming it in pieces, and passes each entry to `on_entry`; LDA-C also raises
// *max_id_plus_one to one past the largest word id. Throws InputError at the first bad
// line, as ReadCorpus would, and at the entry whose count takes the corpus, from
// `tokens_before` tokens before the range, past layout.limits. The NNZ count, duplicate UCI
// entries and the length of a UCI document are checked by the caller across ranges.
void ParseCorpusRange(const CorpusLayout& layout, const ByteRange& range, std::size_t first_line,
                      std::uint64_t tokens_before, const std::string& vocab_path,
                      std::size_t vocabulary_size,
                      const std::function<void(const CorpusEntry&)>& on_entry,
                      std::uint64_t* max_id_plus_one);

// The messages of the whole-file checks.
std::string TooManyUciEntriesProblem(const UciHeader& header);
void CheckUciEntryCount(const std::string& path, const UciHeader& header, std::uint64_t found);
std::string DuplicateUciEntryProblem(std::uint32_t doc, std::uint32_t word,
                                     std::uint64_t first_line);
// The documents of `corpus` (of those it holds) with more than `limit` tokens, at most
// `at_most` of them.
std::vector<std::uint32_t> LongDocuments(const Corpus& corpus, std::uint64_t limit,
                                         std::size_t at_most);

}  // namespace carousel::io
