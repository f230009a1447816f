#include "carousel/io/text_corpus.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <fstream>
#include <limits>
#include <utility>

#include "carousel/io/atomic_file.hpp"
#include "carousel/io/text_input.hpp"
#include "carousel/util/error.hpp"

namespace carousel::io {
namespace {

bool IsContinuation(unsigned char byte, unsigned char low = 0x80, unsigned char high = 0xBF) {
  return byte >= low && byte <= high;
}

struct Range {
  char32_t first;
  char32_t last;
};

// Code points from U+0080 up that separate words (IsLetter), sorted, not overlapping.
constexpr std::array<Range, 35> kNonLetters = {{
    {0x0080, 0x00BF},     // C1 controls, no-break space, Latin-1 punctuation and symbols
    {0x00D7, 0x00D7},     // multiplication sign
    {0x00F7, 0x00F7},     // division sign
    {0x037E, 0x037E},     // Greek question mark
    {0x0387, 0x0387},     // Greek ano teleia
    {0x055A, 0x055F},     // Armenian punctuation
    {0x0589, 0x058A},     // Armenian full stop, hyphen
    {0x05BE, 0x05BE},     // Hebrew maqaf
    {0x05C0, 0x05C0},     // Hebrew paseq
    {0x05C3, 0x05C3},     // Hebrew sof pasuq
    {0x05F3, 0x05F4},     // Hebrew geresh, gershayim
    {0x060C, 0x060D},     // Arabic comma, date separator
    {0x061B, 0x061B},     // Arabic semicolon
    {0x061F, 0x061F},     // Arabic question mark
    {0x066A, 0x066D},     // Arabic percent, separators, star
    {0x06D4, 0x06D4},     // Arabic full stop
    {0x0964, 0x0965},     // Devanagari danda, double danda
    {0x1680, 0x1680},     // Ogham space
    {0x180E, 0x180E},     // Mongolian vowel separator
    {0x2000, 0x20CF},     // general punctuation and spaces, super/subscripts, currency
    {0x2150, 0x2BFF},     // number forms, arrows, math, technical, boxes, shapes, dingbats
    {0x2E00, 0x2E7F},     // supplemental punctuation
    {0x3000, 0x303F},     // CJK symbols and punctuation, ideographic space
    {0xE000, 0xF8FF},     // private use
    {0xFE00, 0xFE1F},     // variation selectors, vertical forms
    {0xFE30, 0xFE6F},     // CJK compatibility forms, small form variants
    {0xFEFF, 0xFEFF},     // zero-width no-break space (byte order mark)
    {0xFF00, 0xFF20},     // fullwidth punctuation and digits
    {0xFF3B, 0xFF40},     // fullwidth [ \ ] ^ _ `
    {0xFF5B, 0xFF65},     // fullwidth { | } ~, halfwidth CJK punctuation
    {0xFFF0, 0xFFFF},     // specials
    {0x1F000, 0x1FBFF},   // game symbols, enclosed alphanumerics, emoji, pictographs
    {0xE0000, 0xE007F},   // tags
    {0xE0100, 0xE01EF},   // variation selectors supplement
    {0xF0000, 0x10FFFF},  // supplementary private use
}};

// The built-in list: our own selection of English function words (articles, pronouns,
// prepositions, conjunctions, auxiliaries, common adverbs and quantifiers), fragments
// that splitting contractions on the apostrophe leaves ("don't" -> "don", "t"), and a few
// verbs too common to tell topics apart.
constexpr const char* kBuiltinStopWords[] = {
    "a",          "about",        "above",      "across",      "after",     "afterwards",
    "again",      "against",      "ain",        "all",         "almost",    "alone",
    "along",      "already",      "also",       "although",    "always",    "am",
    "among",      "amongst",      "an",         "and",         "another",   "any",
    "anyhow",     "anyone",       "anything",   "anyway",      "anywhere",  "are",
    "aren",       "around",       "as",         "at",          "back",      "be",
    "became",     "because",      "become",     "becomes",     "been",      "before",
    "beforehand", "behind",       "being",      "below",       "beside",    "besides",
    "between",    "beyond",       "both",       "but",         "by",        "can",
    "cannot",     "could",        "couldn",     "d",           "did",       "didn",
    "do",         "does",         "doesn",      "doing",       "don",       "done",
    "down",       "during",       "each",       "eg",          "either",    "else",
    "elsewhere",  "enough",       "etc",        "even",        "ever",      "every",
    "everyone",   "everything",   "everywhere", "few",         "for",       "former",
    "formerly",   "from",         "further",    "furthermore", "get",       "gets",
    "getting",    "got",          "had",        "hadn",        "has",       "hasn",
    "have",       "haven",        "having",     "he",          "hence",     "her",
    "here",       "hereafter",    "hereby",     "herein",      "hers",      "herself",
    "him",        "himself",      "his",        "how",         "however",   "i",
    "ie",         "if",           "in",         "indeed",      "instead",   "into",
    "is",         "isn",          "it",         "its",         "itself",    "just",
    "least",      "less",         "let",        "ll",          "m",         "many",
    "may",        "maybe",        "me",         "meanwhile",   "might",     "mightn",
    "more",       "moreover",     "most",       "mostly",      "much",      "must",
    "mustn",      "my",           "myself",     "namely",      "needn",     "neither",
    "never",      "nevertheless", "no",         "nobody",      "none",      "nor",
    "not",        "nothing",      "now",        "nowhere",     "o",         "of",
    "off",        "often",        "on",         "once",        "one",       "only",
    "onto",       "or",           "other",      "others",      "otherwise", "our",
    "ours",       "ourselves",    "out",        "over",        "own",       "per",
    "perhaps",    "quite",        "rather",     "re",          "really",    "s",
    "said",       "same",         "say",        "says",        "seem",      "seemed",
    "seeming",    "seems",        "several",    "shall",       "shan",      "she",
    "should",     "shouldn",      "since",      "so",          "some",      "somehow",
    "someone",    "something",    "sometimes",  "somewhere",   "still",     "such",
    "t",          "than",         "that",       "the",         "their",     "theirs",
    "them",       "themselves",   "then",       "thence",      "there",     "thereafter",
    "thereby",    "therefore",    "therein",    "these",       "they",      "this",
    "those",      "though",       "through",    "throughout",  "thus",      "to",
    "together",   "too",          "toward",     "towards",     "under",     "unless",
    "until",      "up",           "upon",       "us",          "ve",        "very",
    "via",        "was",          "wasn",       "we",          "well",      "were",
    "weren",      "what",         "whatever",   "when",        "whence",    "whenever",
    "where",      "whereas",      "whereby",    "wherever",    "whether",   "which",
    "while",      "whither",      "who",        "whoever",     "whole",     "whom",
    "whose",      "why",          "will",       "with",        "within",    "without",
    "won",        "would",        "wouldn",     "y",           "yet",       "you",
    "your",       "yours",        "yourself",   "yourselves",
};

// Lines of a file, read one at a time, with their numbers and byte offsets.
class LineReader {
 public:
  explicit LineReader(const std::string& path) : path_(path), in_(path, std::ios::binary) {
    if (!in_) throw InputError(path, "cannot open the file (missing or unreadable)");
  }

  bool Next(std::string* line) {
    offset_ = next_offset_;
    if (!std::getline(in_, *line)) {
      if (in_.bad()) throw InputError(path_, "read error after line " + std::to_string(number_));
      return false;
    }
    ++number_;
    next_offset_ += line->size() + 1;
    if (number_ == 1 && line->compare(0, 3, "\xEF\xBB\xBF") == 0) {
      line->erase(0, 3);
      offset_ += 3;
    }
    if (!line->empty() && line->back() == '\r') line->pop_back();
    return true;
  }

  std::uint64_t number() const { return number_; }
  std::uint64_t offset() const { return offset_; }  // of the current line's first byte

 private:
  std::string path_;
  std::ifstream in_;
  std::uint64_t number_ = 0;
  std::uint64_t offset_ = 0;
  std::uint64_t next_offset_ = 0;
};

// Tokenizes the reader's current line; InputError at malformed UTF-8.
void TokenizeLine(const std::string& path, const LineReader& reader, const std::string& line,
                  const TokenOptions& options, std::vector<std::string>* tokens) {
  const std::size_t bad = Tokenize(line, options, tokens);
  if (bad == std::string_view::npos) return;
  char byte[8];
  std::snprintf(byte, sizeof byte, "0x%02X", static_cast<unsigned char>(line[bad]));
  Fail({path, reader.number()},
       std::string("invalid UTF-8: byte ") + byte + " at byte offset " + std::to_string(bad) +
           " of the line (offset " + std::to_string(reader.offset() + bad) +
           " of the file); convert the text to UTF-8 first (e.g. iconv -f LATIN1 -t UTF-8)");
}

std::string ShortNumber(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

}  // namespace

bool DecodeUtf8(std::string_view text, std::size_t* pos, char32_t* code_point) {
  const std::size_t i = *pos;
  if (i >= text.size()) return false;
  const auto b0 = static_cast<unsigned char>(text[i]);
  auto at = [&](std::size_t k) {
    return i + k < text.size() ? static_cast<unsigned char>(text[i + k]) : 0;
  };
  if (b0 < 0x80) {
    *code_point = b0;
    *pos = i + 1;
    return true;
  }
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    if (!IsContinuation(at(1))) return false;
    *code_point = (char32_t{b0} & 0x1F) << 6 | (at(1) & 0x3F);
    *pos = i + 2;
    return true;
  }
  if (b0 >= 0xE0 && b0 <= 0xEF) {
    // E0: no overlong forms (A0..BF); ED: no surrogates (80..9F).
    const unsigned char low = b0 == 0xE0 ? 0xA0 : 0x80;
    const unsigned char high = b0 == 0xED ? 0x9F : 0xBF;
    if (!IsContinuation(at(1), low, high) || !IsContinuation(at(2))) return false;
    *code_point = (char32_t{b0} & 0x0F) << 12 | char32_t(at(1) & 0x3F) << 6 | (at(2) & 0x3F);
    *pos = i + 3;
    return true;
  }
  if (b0 >= 0xF0 && b0 <= 0xF4) {
    // F0: no overlong forms (90..BF); F4: nothing above U+10FFFF (80..8F).
    const unsigned char low = b0 == 0xF0 ? 0x90 : 0x80;
    const unsigned char high = b0 == 0xF4 ? 0x8F : 0xBF;
    if (!IsContinuation(at(1), low, high) || !IsContinuation(at(2)) || !IsContinuation(at(3)))
      return false;
    *code_point = (char32_t{b0} & 0x07) << 18 | char32_t(at(1) & 0x3F) << 12 |
                  char32_t(at(2) & 0x3F) << 6 | (at(3) & 0x3F);
    *pos = i + 4;
    return true;
  }
  return false;  // a continuation byte first, C0/C1 (overlong), F5..FF
}

void AppendUtf8(char32_t c, std::string* out) {
  if (c < 0x80) {
    out->push_back(static_cast<char>(c));
  } else if (c < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (c >> 6)));
    out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else if (c < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (c >> 12)));
    out->push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (c >> 18)));
    out->push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
  }
}

bool IsLetter(char32_t c) {
  if (c < 0x80) return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  // The first range that ends at or after c.
  const auto it = std::lower_bound(kNonLetters.begin(), kNonLetters.end(), c,
                                   [](const Range& r, char32_t v) { return r.last < v; });
  return c <= 0x10FFFF && !(it != kNonLetters.end() && it->first <= c);
}

char32_t ToLower(char32_t c) {
  if (c >= 'A' && c <= 'Z') return c + 0x20;
  if (c < 0xC0) return c;
  if (c <= 0xDE) return c == 0xD7 ? c : c + 0x20;  // Latin-1 capitals, not the multiplication sign
  if (c >= 0x100 && c <= 0x17F) {
    if (c == 0x130) return 'i';   // capital I with dot above
    if (c == 0x178) return 0xFF;  // capital Y with diaeresis
    const bool even_capitals = (c <= 0x137) || (c >= 0x14A && c <= 0x177);
    const bool odd_capitals = (c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17E);
    if ((even_capitals && c % 2 == 0) || (odd_capitals && c % 2 == 1)) return c + 1;
    return c;
  }
  if (c == 0x386) return 0x3AC;  // Greek capitals with tonos
  if (c >= 0x388 && c <= 0x38A) return c + 0x25;
  if (c == 0x38C) return 0x3CC;
  if (c == 0x38E || c == 0x38F) return c + 0x3F;
  if (c >= 0x391 && c <= 0x3AB && c != 0x3A2) return c + 0x20;  // Greek capitals
  if (c >= 0x400 && c <= 0x40F) return c + 0x50;                // Cyrillic Ѐ..Џ
  if (c >= 0x410 && c <= 0x42F) return c + 0x20;                // Cyrillic А..Я
  return c;
}

const std::vector<std::string>& BuiltinStopWords() {
  static const std::vector<std::string> words(std::begin(kBuiltinStopWords),
                                              std::end(kBuiltinStopWords));
  return words;
}

StopWords ReadStopWords(const std::string& path) {
  LineReader reader(path);
  StopWords words;
  std::string line, word;
  while (reader.Next(&line)) {
    const std::string_view text = Trim(line);
    word.clear();
    for (std::size_t pos = 0; pos < text.size();) {
      char32_t c = 0;
      if (!DecodeUtf8(text, &pos, &c)) {
        Fail({path, reader.number()}, "invalid UTF-8 in the stop-word list");
      }
      AppendUtf8(ToLower(c), &word);
    }
    if (!word.empty()) words.insert(word);
  }
  return words;
}

std::size_t Tokenize(std::string_view line, const TokenOptions& options,
                     std::vector<std::string>* tokens) {
  tokens->clear();
  std::string token;
  std::size_t length = 0;  // code points in `token`
  auto flush = [&] {
    if (length >= options.min_length &&
        !(options.stop_words && options.stop_words->count(token) > 0))
      tokens->push_back(token);
    token.clear();
    length = 0;
  };
  for (std::size_t pos = 0; pos < line.size();) {
    const std::size_t start = pos;
    char32_t c = 0;
    if (!DecodeUtf8(line, &pos, &c)) {
      flush();
      return start;
    }
    if (IsLetter(c)) {
      AppendUtf8(ToLower(c), &token);
      ++length;
    } else if (length > 0) {
      flush();
    }
  }
  flush();
  return std::string_view::npos;
}

std::vector<std::string> SelectVocabulary(const std::unordered_map<std::string, WordStats>& stats,
                                          std::uint64_t documents, const VocabularyCuts& cuts,
                                          CutCounts* counts) {
  *counts = CutCounts{};
  counts->distinct = stats.size();
  const double max_documents = cuts.max_df * static_cast<double>(documents);
  std::vector<std::pair<std::uint64_t, std::string>> kept;  // (documents, word)
  for (const auto& [word, s] : stats) {
    if (s.documents < cuts.min_df) {
      ++counts->below_min_df;
    } else if (static_cast<double>(s.documents) > max_documents) {
      ++counts->above_max_df;
    } else {
      kept.emplace_back(s.documents, word);
    }
  }
  if (cuts.max_vocab > 0 && kept.size() > cuts.max_vocab) {
    const auto by_frequency = [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first > b.first : a.second < b.second;
    };
    std::nth_element(kept.begin(), kept.begin() + static_cast<std::ptrdiff_t>(cuts.max_vocab),
                     kept.end(), by_frequency);
    counts->over_max_vocab = kept.size() - cuts.max_vocab;
    kept.resize(cuts.max_vocab);
  }
  std::vector<std::string> words;
  words.reserve(kept.size());
  for (auto& entry : kept) words.push_back(std::move(entry.second));
  std::sort(words.begin(), words.end());
  return words;
}

TextCorpusSummary ConvertTextCorpus(const std::string& text_path, const std::string& out_dir,
                                    const TextCorpusOptions& options, const std::string& command) {
  StopWords stop_words;
  std::string stop_words_label = options.stop_words;
  if (options.stop_words == "builtin") {
    stop_words.insert(BuiltinStopWords().begin(), BuiltinStopWords().end());
    stop_words_label = "builtin (English)";
  } else if (options.stop_words != "none") {
    stop_words = ReadStopWords(options.stop_words);
  }
  TokenOptions token_options;
  token_options.min_length = options.min_length;
  token_options.stop_words = options.stop_words == "none" ? nullptr : &stop_words;

  TextCorpusSummary summary;
  summary.stop_words = options.stop_words == "none" ? 0 : stop_words.size();

  // Pass 1: the document frequency and token count of every word.
  std::unordered_map<std::string, WordStats> stats;
  std::vector<std::string> tokens;
  std::string line;
  {
    LineReader reader(text_path);
    while (reader.Next(&line)) {
      if (reader.number() > std::numeric_limits<std::uint32_t>::max()) {
        Fail({text_path, reader.number()},
             "more than 4294967295 lines: UCI document ids are 32-bit");
      }
      TokenizeLine(text_path, reader, line, token_options, &tokens);
      summary.tokens_read += tokens.size();
      for (const std::string& token : tokens) ++stats[token].tokens;
      std::sort(tokens.begin(), tokens.end());
      tokens.erase(std::unique(tokens.begin(), tokens.end()), tokens.end());
      for (const std::string& token : tokens) ++stats[token].documents;
    }
    summary.documents = reader.number();
  }
  if (summary.documents == 0) throw InputError(text_path, "empty file: no documents");

  const std::vector<std::string> vocabulary =
      SelectVocabulary(stats, summary.documents, options.cuts, &summary.cuts);
  if (vocabulary.empty()) {
    const CutCounts& c = summary.cuts;
    throw InputError(
        text_path, "no vocabulary left: " + std::to_string(c.distinct) +
                       " distinct words after --min-length " + std::to_string(options.min_length) +
                       " and the stop words, of which " + std::to_string(c.below_min_df) +
                       " are in fewer than --min-df " + std::to_string(options.cuts.min_df) +
                       " documents and " + std::to_string(c.above_max_df) +
                       " in more than --max-df " + ShortNumber(options.cuts.max_df) + " of the " +
                       std::to_string(summary.documents) +
                       " documents; lower --min-df or raise --max-df");
  }
  std::unordered_map<std::string, std::uint32_t> id;
  id.reserve(vocabulary.size());
  for (std::size_t w = 0; w < vocabulary.size(); ++w) {
    const WordStats& s = stats.at(vocabulary[w]);
    summary.entries += s.documents;  // each of its documents is one "doc word count" line
    summary.tokens += s.tokens;
    id.emplace(vocabulary[w], static_cast<std::uint32_t>(w + 1));
  }
  summary.words = vocabulary.size();
  stats = {};

  // Pass 2: the entries, streamed to docword.txt after a header known from pass 1.
  EnsureDirectory(out_dir);
  AtomicFileWriter docword(out_dir + "/docword.txt");
  std::string buffer = std::to_string(summary.documents) + "\n" + std::to_string(summary.words) +
                       "\n" + std::to_string(summary.entries) + "\n";
  std::uint64_t entries = 0, documents = 0;
  std::vector<std::uint32_t> ids;
  {
    LineReader reader(text_path);
    while (reader.Next(&line)) {
      TokenizeLine(text_path, reader, line, token_options, &tokens);
      ids.clear();
      for (const std::string& token : tokens) {
        const auto it = id.find(token);
        if (it != id.end()) ids.push_back(it->second);
      }
      std::sort(ids.begin(), ids.end());
      if (ids.empty()) ++summary.empty_documents;
      const std::string doc = std::to_string(reader.number()) + " ";
      for (std::size_t i = 0; i < ids.size();) {
        std::size_t j = i;
        while (j < ids.size() && ids[j] == ids[i]) ++j;
        buffer += doc;
        buffer += std::to_string(ids[i]);
        buffer += ' ';
        buffer += std::to_string(j - i);
        buffer += '\n';
        ++entries;
        i = j;
      }
      if (buffer.size() >= (std::size_t{1} << 20)) {
        docword.Append(buffer);
        buffer.clear();
      }
    }
    documents = reader.number();
  }
  if (documents != summary.documents || entries != summary.entries) {
    throw InputError(text_path, "the file changed while it was read (" +
                                    std::to_string(summary.documents) + " then " +
                                    std::to_string(documents) + " lines)");
  }
  docword.Append(buffer);
  docword.Commit();

  buffer.clear();
  for (const std::string& word : vocabulary) buffer += word + "\n";
  WriteFileAtomically(out_dir + "/vocab.txt", buffer);

  const CutCounts& c = summary.cuts;
  const std::pair<const char*, std::string> fields[] = {
      {"command", command},
      {"text", text_path},
      {"min_length", std::to_string(options.min_length)},
      {"stop_words", stop_words_label},
      {"stop_words_count", std::to_string(summary.stop_words)},
      {"min_df", std::to_string(options.cuts.min_df)},
      {"max_df", ShortNumber(options.cuts.max_df)},
      {"max_vocab", std::to_string(options.cuts.max_vocab)},
      {"vocabulary_order", "alphabetical (UTF-8 byte order)"},
      {"documents", std::to_string(summary.documents)},
      {"empty_documents", std::to_string(summary.empty_documents)},
      {"words", std::to_string(summary.words)},
      {"entries", std::to_string(summary.entries)},
      {"tokens", std::to_string(summary.tokens)},
      {"tokens_before_vocabulary_cuts", std::to_string(summary.tokens_read)},
      {"distinct_words_before_cuts", std::to_string(c.distinct)},
      {"words_below_min_df", std::to_string(c.below_min_df)},
      {"words_above_max_df", std::to_string(c.above_max_df)},
      {"words_over_max_vocab", std::to_string(c.over_max_vocab)},
  };
  std::string manifest =
      "# carousel corpus: how docword.txt (UCI: D, W, NNZ, then doc word count, 1-based) and\n"
      "# vocab.txt (line i = word i) were made. Document d is line d of the text.\n";
  for (const auto& [key, value] : fields) manifest += std::string(key) + " = " + value + "\n";
  WriteFileAtomically(out_dir + "/corpus.txt", manifest);
  return summary;
}

}  // namespace carousel::io
