#include "carousel/io/corpus_reader.hpp"
#include "carousel/io/text_input.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <limits>
#include <memory>
#include <numeric>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <utility>

#include "carousel/io/corpus_limits.hpp"
#include "carousel/io/line_ranges.hpp"
#include "carousel/util/error.hpp"

namespace carousel::io {
namespace {

struct FormatSpelling {
  CorpusFormat format;
  const char* name;
};

constexpr std::array<FormatSpelling, 3> kFormatSpellings = {{
    {CorpusFormat::kAuto, "auto"},
    {CorpusFormat::kUci, "uci"},
    {CorpusFormat::kLdaC, "ldac"},
}};

constexpr std::uint64_t kMaxUint32 = std::numeric_limits<std::uint32_t>::max();
// LDA-C word ids stop one short of the uint32 range so that "largest id + 1" fits.
constexpr std::uint64_t kMaxLdaCWordId = kMaxUint32 - 1;

// Takes the next run of non-blank characters off the front of `rest`.
bool NextField(std::string_view* rest, std::string_view* field) {
  std::size_t pos = 0;
  while (pos < rest->size() && IsBlankChar((*rest)[pos])) ++pos;
  if (pos == rest->size()) {
    rest->remove_prefix(pos);
    return false;
  }
  const std::size_t start = pos;
  while (pos < rest->size() && !IsBlankChar((*rest)[pos])) ++pos;
  *field = rest->substr(start, pos - start);
  rest->remove_prefix(pos);
  return true;
}

// Splits on runs of blanks, storing at most fields->size() fields; returns how many
// fields the line has, so that "found 5 fields" can still be reported.
template <std::size_t N>
std::size_t SplitOnBlanks(std::string_view line, std::array<std::string_view, N>* fields) {
  std::size_t count = 0;
  std::string_view field;
  while (NextField(&line, &field)) {
    if (count < N) (*fields)[count] = field;
    ++count;
  }
  return count;
}

// ---------------------------------------------------------------------------------------
// Numbers.

bool IsNumber(std::string_view field) {
  double value = 0;
  const char* last = field.data() + field.size();
  const auto [end, error] = std::from_chars(field.data(), last, value);
  return end == last && !field.empty() &&
         (error == std::errc() || error == std::errc::result_out_of_range);
}

// Parses a non-negative integer no larger than `max`; `what` names the field ("count",
// "document id", ...). It is a plain C string so that good lines build no std::string.
std::uint64_t ParseUnsigned(std::string_view field, std::uint64_t max, const char* what,
                            const Location& at) {
  std::uint64_t value = 0;
  const char* last = field.data() + field.size();
  const auto [end, error] = std::from_chars(field.data(), last, value);
  if (!field.empty() && end == last && error == std::errc() && value <= max) return value;

  if (field.empty()) Fail(at, "empty " + std::string(what));
  if (end == last && (error == std::errc::result_out_of_range || error == std::errc())) {
    Fail(at,
         what + (" " + Quoted(field)) + " is out of range (at most " + std::to_string(max) + ")");
  }
  if (field.front() == '-') {
    std::int64_t negative = 0;
    const auto [negative_end, negative_error] = std::from_chars(field.data(), last, negative);
    if (negative_end == last &&
        (negative_error == std::errc() || negative_error == std::errc::result_out_of_range)) {
      Fail(at, "negative " + std::string(what) + " " + std::string(field));
    }
  }
  if (IsNumber(field)) Fail(at, "non-integer " + std::string(what) + " " + Quoted(field));
  Fail(at, "non-numeric " + std::string(what) + " " + Quoted(field));
}

std::uint32_t ParseCount(std::string_view field, const Location& at) {
  const std::uint64_t count = ParseUnsigned(field, kMaxUint32, "count", at);
  if (count == 0) Fail(at, "count 0: every count must be at least 1");
  return static_cast<std::uint32_t>(count);
}

// ---------------------------------------------------------------------------------------
// Shared checks.

// Whether a word occurs twice in [begin, end). Files usually list a document's words in
// increasing order, which settles it in one pass; otherwise a sorted copy does. Memory
// stays proportional to the document, whatever W the file claims.
bool HasDuplicate(const std::uint32_t* begin, const std::uint32_t* end,
                  std::vector<std::uint32_t>* scratch) {
  if (std::adjacent_find(begin, end, std::greater_equal<std::uint32_t>()) == end) return false;
  scratch->assign(begin, end);
  std::sort(scratch->begin(), scratch->end());
  return std::adjacent_find(scratch->begin(), scratch->end()) != scratch->end();
}

struct Vocabulary {
  const std::string& path;  // empty without a vocabulary file
  std::size_t size;
};

[[noreturn]] void FailOutsideVocabulary(const Location& at, std::uint64_t id,
                                        const Vocabulary& vocabulary) {
  Fail(at, "word id " + std::to_string(id) + " outside the vocabulary of " +
               std::to_string(vocabulary.size) + " words (" + vocabulary.path + ")");
}

std::vector<std::string> ReadVocabularyFile(const std::string& path) {
  const std::string contents = ReadWholeFile(path);
  Lines lines(StripByteOrderMark(contents));
  std::vector<std::string> words;
  std::string_view line;
  std::size_t blank_line = 0;  // the first blank line not yet followed by a word
  while (lines.Next(&line)) {
    const std::string_view word = Trim(line);
    if (word.empty()) {
      if (blank_line == 0) blank_line = lines.number();
      continue;
    }
    // Skipping a blank line would shift the ids of every later word; trailing blank lines
    // shift nothing and are ignored.
    if (blank_line != 0) {
      Fail({path, blank_line},
           "blank line in the vocabulary: each line must hold one word (line i is word id i - 1)");
    }
    if (words.size() == kMaxUint32) {
      Fail({path, lines.number()}, "more than " + std::to_string(kMaxUint32) + " words");
    }
    words.emplace_back(word);
  }
  if (words.empty()) throw InputError(path, "empty vocabulary file: no words");
  return words;
}

// ---------------------------------------------------------------------------------------
// UCI: "D\nW\nNNZ\n" then "doc word count" lines, 1-based ids.

// Reads the three header lines; `lines` is left after them. D and W are held to what the
// job can hold: D offsets on every rank, a W x K topic-word table.
UciHeader ParseUciHeader(const std::string& path, Lines* lines, const CorpusLimits& limits) {
  struct Field {
    const char* name;
    std::uint64_t max;
  };
  // D and W must fit the uint32 document and word ids.
  constexpr std::array<Field, 3> kFields = {{
      {"number of documents D", kMaxUint32},
      {"vocabulary size W", kMaxUint32},
      {"number of entries NNZ", std::numeric_limits<std::uint64_t>::max()},
  }};
  std::array<std::uint64_t, 3> values{};
  std::array<std::size_t, 3> line_numbers{};
  std::string_view line;
  // Blank lines before the header are skipped, but not inside it: a line missing from
  // the header would otherwise take the first entry for NNZ.
  while (lines->Next(&line) && IsBlankLine(line)) {
  }
  for (std::size_t i = 0; i < kFields.size(); ++i) {
    if (i > 0 && !lines->Next(&line)) {
      throw InputError(path, std::string("truncated UCI header: missing the ") + kFields[i].name +
                                 " (a UCI file starts with the three lines D, W and NNZ)");
    }
    const Location at{path, lines->number()};
    std::array<std::string_view, 2> fields;
    const std::size_t count = SplitOnBlanks(line, &fields);
    if (count != 1) {
      Fail(at, std::string("malformed UCI header: expected the ") + kFields[i].name +
                   " alone on the line, found " +
                   (count == 0 ? std::string("a blank line") : std::to_string(count) + " fields"));
    }
    values[i] = ParseUnsigned(fields[0], kFields[i].max, kFields[i].name, at);
    line_numbers[i] = at.line;
    if (i == 0 && values[0] > limits.max_documents())
      Fail(at, TooManyDocumentsProblem(values[0], limits));
    if (i == 1 && values[1] > limits.max_words())
      Fail(at, TooManyWordsProblem("vocabulary size W = " + std::to_string(values[1]), values[1],
                                   limits) +
                   "; remap the word ids to 1..W for the W distinct words");
  }
  if (values[0] == 0) Fail({path, line_numbers[0]}, "no documents (D = 0)");
  return {values[0], values[1], values[2], line_numbers[0], line_numbers[1], line_numbers[2]};
}

// One entry line after the header: 0-based document and word ids and the count.
// `past_nnz`: the file already had NNZ entries before this line.
CorpusEntry ParseUciLine(std::string_view line, const UciHeader& header,
                         const Vocabulary& vocabulary, const Location& at, bool past_nnz) {
  std::array<std::string_view, 3> fields;
  const std::size_t found = SplitOnBlanks(line, &fields);
  if (found != 3) {
    Fail(at, "malformed line: expected 3 whitespace-separated fields (doc word count), found " +
                 std::to_string(found));
  }
  if (past_nnz) Fail(at, TooManyUciEntriesProblem(header));
  const std::uint64_t doc = ParseUnsigned(fields[0], kMaxUint32, "document id", at);
  const std::uint64_t word = ParseUnsigned(fields[1], kMaxUint32, "word id", at);
  const std::uint32_t count = ParseCount(fields[2], at);
  if (doc < 1 || doc > header.documents) {
    Fail(at, "document id " + std::to_string(doc) + " outside 1.." +
                 std::to_string(header.documents) + " (D on line " +
                 std::to_string(header.documents_line) + ")");
  }
  if (word < 1 || word > header.words) {
    // With a vocabulary file W equals its size, so the file is the better pointer.
    if (word > header.words && !vocabulary.path.empty()) {
      FailOutsideVocabulary(at, word, vocabulary);
    }
    Fail(at, "word id " + std::to_string(word) + " outside 1.." + std::to_string(header.words) +
                 " (W on line " + std::to_string(header.words_line) + ")");
  }
  return {static_cast<std::uint32_t>(doc - 1), static_cast<std::uint32_t>(word - 1), count,
          at.line};
}

// Validates each entry line after the header and calls on_entry(doc, word, count, line)
// with 0-based ids; returns the number of entries.
template <typename OnEntry>
std::uint64_t ForEachUciEntry(Lines lines, const UciHeader& header, const Vocabulary& vocabulary,
                              const std::string& path, OnEntry&& on_entry) {
  std::uint64_t entries = 0;
  std::string_view line;
  while (lines.Next(&line)) {
    if (IsBlankLine(line)) continue;
    const Location at{path, lines.number()};
    const CorpusEntry e = ParseUciLine(line, header, vocabulary, at, entries == header.entries);
    on_entry(e.doc, e.word, e.count, at.line);
    ++entries;
  }
  return entries;
}

// The slow path once the CSR showed a duplicate: reread the entries to name both lines of
// the first pair that repeats in file order.
[[noreturn]] void FailUciDuplicate(Lines entry_lines, const UciHeader& header,
                                   const Vocabulary& vocabulary, const std::string& path) {
  std::unordered_map<std::uint64_t, std::size_t> first_line;
  ForEachUciEntry(entry_lines, header, vocabulary, path,
                  [&](std::uint32_t doc, std::uint32_t word, std::uint32_t, std::size_t line) {
                    const std::uint64_t key = (std::uint64_t{doc} << 32) | word;
                    const auto [it, inserted] = first_line.emplace(key, line);
                    if (!inserted) {
                      Fail({path, line}, DuplicateUciEntryProblem(doc, word, it->second));
                    }
                  });
  throw Error(ExitCode::kInternal, path + ": duplicate entry found once but not again");
}

// The slow path once the CSR shows a document longer than one may be: reread the entries
// for the line at which a document's running total first crosses the limit.
void CheckUciDocumentLengths(Lines entry_lines, const UciHeader& header,
                             const Vocabulary& vocabulary, const CorpusLimits& limits,
                             const Corpus& corpus) {
  const std::uint64_t limit = limits.max_document_tokens();
  if (LongDocuments(corpus, limit, 1).empty()) return;
  std::vector<std::uint64_t> tokens(header.documents, 0);
  ForEachUciEntry(entry_lines, header, vocabulary, corpus.path,
                  [&](std::uint32_t doc, std::uint32_t, std::uint32_t count, std::size_t line) {
                    if ((tokens[doc] += count) > limit)
                      Fail({corpus.path, line}, DocumentTooLongProblem(count, tokens[doc], limits));
                  });
  throw Error(ExitCode::kInternal, corpus.path + ": long document found once but not again");
}

void ParseUci(std::string_view text, const Vocabulary& vocabulary, const CorpusLimits& limits,
              Corpus* corpus) {
  const std::string& path = corpus->path;
  Lines lines(text);
  const UciHeader header = ParseUciHeader(path, &lines, limits);
  if (!vocabulary.path.empty() && vocabulary.size != header.words) {
    throw InputError(vocabulary.path, "the vocabulary has " + std::to_string(vocabulary.size) +
                                          " words but " + path +
                                          " gives W = " + std::to_string(header.words) +
                                          " on line " + std::to_string(header.words_line));
  }

  // The entries in file order. NNZ is only a hint: a corrupt header must not reserve more
  // than the file can hold.
  std::vector<std::uint32_t> doc_of;
  EntryArray word;
  EntryArray count;
  const auto line_count = static_cast<std::uint64_t>(std::count(text.begin(), text.end(), '\n'));
  const std::size_t capacity = static_cast<std::size_t>(std::min(header.entries, line_count + 1));
  doc_of.reserve(capacity);
  word.reserve(capacity);
  count.reserve(capacity);
  bool doc_sorted = true;
  TokenTally tokens(limits, 0);
  const std::uint64_t entries =
      ForEachUciEntry(lines, header, vocabulary, path,
                      [&](std::uint32_t d, std::uint32_t w, std::uint32_t c, std::size_t line) {
                        tokens.Add(c, {path, line});
                        doc_sorted = doc_sorted && (doc_of.empty() || doc_of.back() <= d);
                        doc_of.push_back(d);
                        word.push_back(w);
                        count.push_back(c);
                      });
  CheckUciEntryCount(path, header, entries);

  // CSR by a stable counting sort on the document, which keeps each document's words in
  // file order. Files sorted by document (the usual case) need no permutation.
  std::vector<std::uint64_t>& start = corpus->doc_start;
  start.assign(header.documents + 1, 0);
  for (const std::uint32_t d : doc_of) ++start[d + 1];
  std::partial_sum(start.begin(), start.end(), start.begin());
  if (doc_sorted) {
    corpus->word = std::move(word);
    corpus->count = std::move(count);
  } else {
    std::vector<std::uint64_t> next(start.begin(), start.end() - 1);
    corpus->word.resize(word.size());
    corpus->count.resize(count.size());
    for (std::size_t i = 0; i < doc_of.size(); ++i) {
      const std::uint64_t slot = next[doc_of[i]]++;
      corpus->word[slot] = word[i];
      corpus->count[slot] = count[i];
    }
  }
  doc_of = {};

  std::vector<std::uint32_t> scratch;
  const std::uint32_t* words = corpus->word.data();
  for (std::uint64_t d = 0; d < header.documents; ++d) {
    if (HasDuplicate(words + start[d], words + start[d + 1], &scratch)) {
      FailUciDuplicate(lines, header, vocabulary, path);
    }
  }
  CheckUciDocumentLengths(lines, header, vocabulary, limits, *corpus);
  corpus->vocabulary = static_cast<std::uint32_t>(header.words);
}

// ---------------------------------------------------------------------------------------
// LDA-C: "N id:count id:count ..." per document, 0-based ids.

[[noreturn]] void FailLdaCDuplicate(const std::uint32_t* words, std::size_t size,
                                    const Location& at) {
  std::unordered_map<std::uint32_t, std::size_t> first_pair;
  for (std::size_t i = 0; i < size; ++i) {
    const auto [it, inserted] = first_pair.emplace(words[i], i + 1);
    if (!inserted) {
      Fail(at, "duplicate word id " + std::to_string(words[i]) + " on the line (pairs " +
                   std::to_string(it->second) + " and " + std::to_string(i + 1) + ")");
    }
  }
  throw Error(ExitCode::kInternal, at.path + ": duplicate word id found once but not again");
}

// A word id that cannot be one: past the 32-bit ids, or (without a vocabulary file, the
// vocabulary then being the largest id + 1) past the topic-word table the job can hold.
// Ids like these are usually hashed or offset, which remapping mends.
[[noreturn]] void FailWordId(std::string_view field, std::uint64_t id, const CorpusLimits& limits,
                             const Location& at) {
  const std::string remedy =
      "; remap the word ids to 0..V-1 for the V distinct words (a --vocab file then names "
      "them, line i for id i - 1)";
  if (id > kMaxLdaCWordId)
    Fail(at, "word id " + Quoted(field) + " is out of range (at most " +
                 std::to_string(kMaxLdaCWordId) + ")" + remedy);
  Fail(at, TooManyWordsProblem("word id " + std::to_string(id) + " (V = largest id + 1)", id + 1,
                               limits) +
               remedy);
}

// One document line: its pairs appended to `word` and `count`. Its tokens are held to
// what one document may have.
void ParseLdaCLine(std::string_view line, const Vocabulary& vocabulary, const CorpusLimits& limits,
                   const Location& at, EntryArray* word, EntryArray* count,
                   std::vector<std::uint32_t>* scratch, std::uint64_t* max_id_plus_one) {
  std::string_view rest = line;
  std::string_view field;
  NextField(&rest, &field);  // the line is not blank
  if (field.find(':') != std::string_view::npos) {
    Fail(at,
         "malformed line: expected the number of distinct terms N first (N id:count ...), "
         "found " +
             Quoted(field));
  }
  const std::uint64_t expected = ParseUnsigned(field, kMaxUint32, "term count N", at);
  const bool has_vocabulary = !vocabulary.path.empty();
  const std::uint64_t max_words = has_vocabulary ? kMaxLdaCWordId + 1 : limits.max_words();
  const std::uint64_t max_tokens = limits.max_document_tokens();
  const std::size_t begin = word->size();
  std::uint64_t pairs = 0, tokens = 0;
  while (NextField(&rest, &field)) {
    ++pairs;
    const std::size_t colon = field.find(':');
    if (colon == std::string_view::npos) {
      Fail(at, "malformed pair " + Quoted(field) + " (pair " + std::to_string(pairs) +
                   "): expected id:count");
    }
    const std::string_view id_field = field.substr(0, colon);
    const std::uint64_t id =
        ParseUnsigned(id_field, std::numeric_limits<std::uint64_t>::max(), "word id", at);
    if (id > kMaxLdaCWordId || id >= max_words) FailWordId(id_field, id, limits, at);
    const std::uint32_t n = ParseCount(field.substr(colon + 1), at);
    if (has_vocabulary && id >= vocabulary.size) FailOutsideVocabulary(at, id, vocabulary);
    if ((tokens += n) > max_tokens) Fail(at, DocumentTooLongProblem(n, tokens, limits));
    *max_id_plus_one = std::max(*max_id_plus_one, id + 1);
    word->push_back(static_cast<std::uint32_t>(id));
    count->push_back(n);
  }
  if (pairs != expected) {
    Fail(at, "N = " + std::to_string(expected) + " distinct terms but the line has " +
                 std::to_string(pairs) + " id:count pairs");
  }
  const std::uint32_t* words = word->data() + begin;
  const std::size_t size = word->size() - begin;
  if (HasDuplicate(words, words + size, scratch)) FailLdaCDuplicate(words, size, at);
}

void ParseLdaC(std::string_view text, const Vocabulary& vocabulary, const CorpusLimits& limits,
               Corpus* corpus) {
  const std::size_t pairs_hint =
      static_cast<std::size_t>(std::count(text.begin(), text.end(), ':'));
  corpus->word.reserve(pairs_hint);
  corpus->count.reserve(pairs_hint);
  corpus->doc_start.assign(1, 0);

  const bool has_vocabulary = !vocabulary.path.empty();
  std::uint64_t max_id_plus_one = 0;
  std::vector<std::uint32_t> scratch;
  TokenTally tokens(limits, 0);
  Lines lines(text);
  std::string_view line;
  while (lines.Next(&line)) {
    if (IsBlankLine(line)) continue;
    const Location at{corpus->path, lines.number()};
    if (corpus->doc_start.size() - 1 == kMaxUint32) {
      Fail(at, "more than " + std::to_string(kMaxUint32) + " documents");
    }
    const std::size_t begin = corpus->count.size();
    ParseLdaCLine(line, vocabulary, limits, at, &corpus->word, &corpus->count, &scratch,
                  &max_id_plus_one);
    for (std::size_t k = begin; k < corpus->count.size(); ++k) tokens.Add(corpus->count[k], at);
    corpus->doc_start.push_back(corpus->word.size());
  }
  corpus->vocabulary =
      static_cast<std::uint32_t>(has_vocabulary ? vocabulary.size : max_id_plus_one);
}

// ---------------------------------------------------------------------------------------

CorpusFormat DetectFormat(std::string_view text) {
  Lines lines(text);
  std::string_view line;
  while (lines.Next(&line) && IsBlankLine(line)) {
  }
  return line.find(':') != std::string_view::npos ? CorpusFormat::kLdaC : CorpusFormat::kUci;
}

}  // namespace

CorpusFormat ParseCorpusFormat(const std::string& name) {
  for (const FormatSpelling& spelling : kFormatSpellings) {
    if (name == spelling.name) return spelling.format;
  }
  throw SettingError("corpus-format",
                     "unknown corpus format " + Quoted(name) + " (expected auto, uci or ldac)");
}

const char* CorpusFormatName(CorpusFormat format) {
  for (const FormatSpelling& spelling : kFormatSpellings) {
    if (format == spelling.format) return spelling.name;
  }
  return "unknown";
}

std::string TooManyUciEntriesProblem(const UciHeader& header) {
  return "more entries than the " + std::to_string(header.entries) + " given by NNZ on line " +
         std::to_string(header.entries_line);
}

void CheckUciEntryCount(const std::string& path, const UciHeader& header, std::uint64_t found) {
  if (found != header.entries) {
    throw InputError(
        path, "expected " + std::to_string(header.entries) + " entries as given by NNZ on line " +
                  std::to_string(header.entries_line) + ", found " + std::to_string(found));
  }
}

std::string DuplicateUciEntryProblem(std::uint32_t doc, std::uint32_t word,
                                     std::uint64_t first_line) {
  return "duplicate entry for document " + std::to_string(doc + 1) + " word " +
         std::to_string(word + 1) + " (first at line " + std::to_string(first_line) + ")";
}

std::vector<std::string> ReadVocabulary(const std::string& path) {
  return ReadVocabularyFile(path);
}

CorpusLayout ReadCorpusLayout(const std::string& path, CorpusFormat format,
                              std::size_t vocabulary_size, const std::string& vocab_path,
                              const CorpusLimits& limits) {
  CorpusLayout layout;
  layout.path = path;
  layout.limits = limits;
  layout.size = FileSize(path);
  // As much of the head as holds the first non-blank line and, for UCI, the header.
  for (std::uint64_t bytes = 1 << 16;; bytes *= 4) {
    const std::string contents =
        ReadFileRange(path, ByteRange{0, std::min<std::uint64_t>(layout.size, bytes)});
    const bool whole = contents.size() == layout.size;
    const std::string_view text = StripByteOrderMark(contents);
    const std::uint64_t bom = contents.size() - text.size();
    const std::string_view complete = whole ? text : text.substr(0, text.rfind('\n') + 1);
    if (IsBlankText(complete)) {
      if (!whole) continue;
      throw InputError(path, "empty file: no documents");
    }
    layout.format = format == CorpusFormat::kAuto ? DetectFormat(complete) : format;
    layout.data_begin = bom;
    if (layout.format == CorpusFormat::kLdaC) return layout;
    Lines lines(complete);
    UciHeader header{};
    try {
      header = ParseUciHeader(path, &lines, limits);
    } catch (const Error&) {
      // Only a head that ends within the header's three lines may have cut it short.
      Lines all(complete);
      std::string_view line;
      int non_blank = 0;
      while (non_blank < 3 && all.Next(&line)) non_blank += IsBlankLine(line) ? 0 : 1;
      if (!whole && non_blank < 3) continue;
      throw;
    }
    if (!vocab_path.empty() && vocabulary_size != header.words) {
      throw InputError(vocab_path, "the vocabulary has " + std::to_string(vocabulary_size) +
                                       " words but " + path +
                                       " gives W = " + std::to_string(header.words) + " on line " +
                                       std::to_string(header.words_line));
    }
    layout.uci = header;
    // The entries start after the NNZ line.
    std::size_t offset = 0;
    for (std::size_t n = 0; n < header.entries_line; ++n) {
      const std::size_t newline = complete.find('\n', offset);
      offset = newline == std::string_view::npos ? complete.size() : newline + 1;
    }
    layout.data_begin = bom + offset;
    layout.data_first_line = header.entries_line + 1;
    return layout;
  }
}

void ParseCorpusRange(const CorpusLayout& layout, const ByteRange& range, std::size_t first_line,
                      std::uint64_t tokens_before, const std::string& vocab_path,
                      std::size_t vocabulary_size,
                      const std::function<void(const CorpusEntry&)>& on_entry,
                      std::uint64_t* max_id_plus_one) {
  const Vocabulary vocabulary{vocab_path, vocabulary_size};
  TokenTally tokens(layout.limits, tokens_before);
  constexpr std::size_t kPieceBytes = std::size_t{16} << 20;
  std::size_t line_base = first_line - 1;  // lines before the current piece
  std::uint32_t document = 0;              // LDA-C: documents of the range so far
  EntryArray words, counts;
  std::vector<std::uint32_t> scratch;
  ReadRangeInPieces(layout.path, range, kPieceBytes, [&](std::string_view piece) {
    Lines lines(piece);
    std::string_view line;
    while (lines.Next(&line)) {
      if (IsBlankLine(line)) continue;
      const Location at{layout.path, line_base + lines.number()};
      // An entry's tokens are counted after the caller has seen it, as ReadCorpus does after
      // its checks of the entry (the count NNZ).
      if (layout.uci) {
        const CorpusEntry entry = ParseUciLine(line, *layout.uci, vocabulary, at, false);
        on_entry(entry);
        tokens.Add(entry.count, at);
        continue;
      }
      words.clear();
      counts.clear();
      ParseLdaCLine(line, vocabulary, layout.limits, at, &words, &counts, &scratch,
                    max_id_plus_one);
      for (std::size_t k = 0; k < words.size(); ++k) {
        on_entry({document, words[k], counts[k], at.line});
        tokens.Add(counts[k], at);
      }
      ++document;
    }
    line_base += lines.number();
  });
}

std::vector<std::uint32_t> LongDocuments(const Corpus& corpus, std::uint64_t limit,
                                         std::size_t at_most) {
  std::vector<std::uint32_t> documents;
  const std::size_t count = corpus.doc_start.empty() ? 0 : corpus.doc_start.size() - 1;
  for (std::uint32_t d = 0; d < count && documents.size() < at_most; ++d) {
    std::uint64_t tokens = 0;
    for (std::uint64_t e = corpus.doc_start[d]; e < corpus.doc_start[d + 1]; ++e)
      tokens += corpus.count[e];
    if (tokens > limit) documents.push_back(d);
  }
  return documents;
}

Corpus ReadCorpus(const std::string& path, const std::string& vocab_path, CorpusFormat format,
                  const CorpusLimits& limits) {
  const std::string contents = ReadWholeFile(path);
  const std::string_view text = StripByteOrderMark(contents);
  if (IsBlankText(text)) throw InputError(path, "empty file: no documents");

  Corpus corpus;
  corpus.path = path;
  corpus.format = format == CorpusFormat::kAuto ? DetectFormat(text) : format;
  if (!vocab_path.empty()) corpus.vocab = ReadVocabularyFile(vocab_path);
  const Vocabulary vocabulary{vocab_path, corpus.vocab.size()};
  if (corpus.format == CorpusFormat::kLdaC) {
    ParseLdaC(text, vocabulary, limits, &corpus);
  } else {
    ParseUci(text, vocabulary, limits, &corpus);
  }

  corpus.documents = static_cast<std::uint32_t>(corpus.doc_start.size() - 1);
  for (std::size_t d = 0; d < corpus.documents; ++d) {
    if (corpus.doc_start[d] == corpus.doc_start[d + 1]) ++corpus.empty_documents;
  }
  return corpus;
}

}  // namespace carousel::io
