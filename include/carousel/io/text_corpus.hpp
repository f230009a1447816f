// Raw text to a UCI bag-of-words corpus (`carousel corpus`): one document per line of
// UTF-8 text becomes DIR/docword.txt (D, W, NNZ, then "doc word count", 1-based ids),
// DIR/vocab.txt (line i is word i) and DIR/corpus.txt (how they were made: the UCI reader
// takes no comments, so the options cannot go into docword.txt itself).
//
// Tokens (doc/lda.md, "Raw text in: carousel corpus"):
// - The text is decoded as UTF-8; a malformed sequence (a stray continuation byte, a
//   truncated or overlong sequence, a surrogate, a code point above U+10FFFF) is an error
//   naming file:line and the byte, never replaced.
// - A token is a maximal run of letters. Letters are the ASCII letters and every code point
//   from U+0080 up that is not in a small table of punctuation, symbols, spaces and controls
//   (IsLetter). Digits, apostrophes and hyphens split words: "don't" gives "don" and "t".
// - Tokens are lower-cased: ASCII, Latin-1, Latin Extended-A, basic Greek and Cyrillic
//   (ToLower); other scripts are kept as written.
// - Tokens shorter than min_length code points, and stop words (compared after lower-casing),
//   are dropped.
//
// Vocabulary: a word is kept if it occurs in at least min_df documents and in at most
// max_df x D of them (D counts every line, empty ones too); then, with max_vocab > 0, only
// the max_vocab words of largest document frequency (ties: the word that sorts first).
// The kept words are listed in byte order of their UTF-8 (= code point order).
//
// Documents: document d is line d of the text, so that ids stay line numbers. A line left
// without words has no entries (UCI cannot say more); it counts in D and is reported.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace carousel::io {

// ---------------------------------------------------------------------------------------
// UTF-8 and letters.

// Decodes the code point at text[*pos] and advances *pos past it; false (and *pos
// unchanged) if the bytes there are not well-formed UTF-8.
bool DecodeUtf8(std::string_view text, std::size_t* pos, char32_t* code_point);

// Appends the UTF-8 encoding of a valid code point.
void AppendUtf8(char32_t code_point, std::string* out);

// Whether a code point is part of a word: ASCII letters, and from U+0080 up everything but
// the table of non-letters (C1 controls, Latin-1 punctuation and symbols, x and /, general
// punctuation and spaces, currency, arrows, mathematical and technical symbols, box drawing,
// dingbats, CJK punctuation, fullwidth ASCII punctuation, specials, emoji). Combining marks
// and letters of every script count; so do non-ASCII digits. For simplicity the table takes
// U+0080..U+00BF whole (so the rare letters ª, µ and º split words) and U+2000..U+20CF
// whole (so do superscript letters such as ⁿ).
bool IsLetter(char32_t code_point);

// Lower case of ASCII, Latin-1 (U+00C0..U+00DE), Latin Extended-A (U+0100..U+017F),
// Greek (U+0391..U+03AB) and Cyrillic (U+0400..U+042F); every other code point unchanged.
char32_t ToLower(char32_t code_point);

// ---------------------------------------------------------------------------------------
// Tokens.

using StopWords = std::unordered_set<std::string>;

// The built-in English stop words: common function words, contraction fragments and a few
// very common verbs, lower case.
const std::vector<std::string>& BuiltinStopWords();

// Reads a stop-word file: one word per line, trimmed and lower-cased as tokens are; blank
// lines are skipped. InputError for a missing file or invalid UTF-8 (file:line).
StopWords ReadStopWords(const std::string& path);

struct TokenOptions {
  std::size_t min_length = 3;             // in code points
  const StopWords* stop_words = nullptr;  // none if null
};

// The tokens of one line in order, appended to *tokens (which is cleared first). Returns
// std::string_view::npos, or the 0-based byte offset in `line` of the first malformed
// UTF-8 sequence (then *tokens holds the tokens before it).
std::size_t Tokenize(std::string_view line, const TokenOptions& options,
                     std::vector<std::string>* tokens);

// ---------------------------------------------------------------------------------------
// Vocabulary.

struct WordStats {
  std::uint64_t documents = 0;  // documents holding the word (document frequency)
  std::uint64_t tokens = 0;     // its occurrences in all
};

struct VocabularyCuts {
  std::uint64_t min_df = 2;
  double max_df = 0.5;          // a fraction of all documents, in (0, 1]
  std::uint64_t max_vocab = 0;  // 0: no limit
};

// How many distinct words each cut removed, in the order they apply.
struct CutCounts {
  std::uint64_t distinct = 0;  // distinct words before the cuts
  std::uint64_t below_min_df = 0;
  std::uint64_t above_max_df = 0;
  std::uint64_t over_max_vocab = 0;
};

// The words kept by `cuts` out of `stats` for a corpus of `documents` documents, in byte
// order.
std::vector<std::string> SelectVocabulary(const std::unordered_map<std::string, WordStats>& stats,
                                          std::uint64_t documents, const VocabularyCuts& cuts,
                                          CutCounts* counts);

// ---------------------------------------------------------------------------------------
// The whole conversion.

struct TextCorpusOptions {
  std::size_t min_length = 3;
  std::string stop_words = "builtin";  // "builtin", "none" or a file
  VocabularyCuts cuts;
};

struct TextCorpusSummary {
  std::uint64_t documents = 0;
  std::uint64_t empty_documents = 0;  // no entries after the cuts
  std::uint64_t words = 0;
  std::uint64_t entries = 0;
  std::uint64_t tokens = 0;       // tokens written (in the vocabulary)
  std::uint64_t tokens_read = 0;  // tokens after the length and stop-word filters
  std::uint64_t stop_words = 0;   // size of the stop-word list in use
  CutCounts cuts;
};

// Reads `text_path` twice, line by line (memory follows the vocabulary, not the file), and
// writes out_dir/docword.txt, vocab.txt and corpus.txt, each atomically. InputError
// (exit 3) for a missing or unreadable file, an empty file, invalid UTF-8 (file:line and
// the byte) or no word left after the cuts; OutputError (exit 4) if out_dir cannot be
// written. `command` is recorded in corpus.txt.
TextCorpusSummary ConvertTextCorpus(const std::string& text_path, const std::string& out_dir,
                                    const TextCorpusOptions& options, const std::string& command);

}  // namespace carousel::io
