// Raw text to a UCI corpus (io/text_corpus.hpp): UTF-8 decoding, letters and case folding,
// tokens (length, stop words), the vocabulary cuts and the files written, read back by the
// corpus reader `carousel lda` uses.
#include "carousel/io/text_corpus.hpp"

#include <gtest/gtest.h>

#include <string>
#include <unordered_map>
#include <vector>

#include "carousel/io/corpus_reader.hpp"
#include "carousel/io/text_input.hpp"
#include "carousel/util/error.hpp"
#include "scratch_dir_test.hpp"

namespace carousel::io {
namespace {

std::vector<std::string> Tokens(std::string_view line, std::size_t min_length = 1,
                                const StopWords* stop = nullptr) {
  std::vector<std::string> tokens;
  const std::size_t bad = Tokenize(line, {min_length, stop}, &tokens);
  EXPECT_EQ(bad, std::string_view::npos) << line;
  return tokens;
}

using Words = std::vector<std::string>;

TEST(Utf8Test, DecodesEveryLengthAndRoundTrips) {
  for (const char32_t c : {char32_t{0x41}, char32_t{0xE9}, char32_t{0x3B1}, char32_t{0x4E2D},
                           char32_t{0xFFFD}, char32_t{0x1F600}, char32_t{0x10FFFF}}) {
    std::string bytes;
    AppendUtf8(c, &bytes);
    std::size_t pos = 0;
    char32_t back = 0;
    ASSERT_TRUE(DecodeUtf8(bytes, &pos, &back)) << std::hex << c;
    EXPECT_EQ(back, c);
    EXPECT_EQ(pos, bytes.size());
  }
}

TEST(Utf8Test, RejectsMalformedSequences) {
  for (const std::string& bad : {
           std::string("\x80"),              // continuation byte first
           std::string("\xC3"),              // truncated
           std::string("\xC3("),             // bad continuation
           std::string("\xC0\xAF"),          // overlong '/'
           std::string("\xE0\x80\xAF"),      // overlong, 3 bytes
           std::string("\xED\xA0\x80"),      // surrogate U+D800
           std::string("\xF4\x90\x80\x80"),  // above U+10FFFF
           std::string("\xF5\x80\x80\x80"),  // F5 lead byte
           std::string("\xFF"),
       }) {
    std::size_t pos = 0;
    char32_t c = 0;
    EXPECT_FALSE(DecodeUtf8(bad, &pos, &c)) << testing::PrintToString(bad);
    EXPECT_EQ(pos, 0u);
  }
}

TEST(TokenizeTest, ReportsTheByteOffsetOfInvalidUtf8) {
  std::vector<std::string> tokens;
  EXPECT_EQ(Tokenize("good w\xE9rd", {1, nullptr}, &tokens), 6u);  // Latin-1 é
  EXPECT_EQ(tokens, (Words{"good", "w"}));
  EXPECT_EQ(Tokenize("caf\xC3\xA9 ok", {1, nullptr}, &tokens), std::string_view::npos);
}

TEST(LetterTest, SplitsOnPunctuationDigitsAndSymbolsButNotOnLetters) {
  EXPECT_TRUE(IsLetter('a'));
  EXPECT_TRUE(IsLetter('Z'));
  EXPECT_FALSE(IsLetter('0'));
  EXPECT_FALSE(IsLetter('\''));
  EXPECT_FALSE(IsLetter('-'));
  EXPECT_FALSE(IsLetter(0xA0));     // no-break space
  EXPECT_FALSE(IsLetter(0xAB));     // «
  EXPECT_FALSE(IsLetter(0xD7));     // ×
  EXPECT_FALSE(IsLetter(0x2019));   // ’
  EXPECT_FALSE(IsLetter(0x2014));   // em dash
  EXPECT_FALSE(IsLetter(0x20AC));   // €
  EXPECT_FALSE(IsLetter(0x3002));   // ideographic full stop
  EXPECT_FALSE(IsLetter(0xFF0C));   // fullwidth comma
  EXPECT_FALSE(IsLetter(0x1F600));  // emoji
  EXPECT_TRUE(IsLetter(0xE9));      // é
  EXPECT_TRUE(IsLetter(0x153));     // œ
  EXPECT_TRUE(IsLetter(0x3B1));     // α
  EXPECT_TRUE(IsLetter(0x436));     // ж
  EXPECT_TRUE(IsLetter(0x5D0));     // א
  EXPECT_TRUE(IsLetter(0x4E2D));    // 中
  EXPECT_TRUE(IsLetter(0x301));     // combining acute accent
  EXPECT_EQ(Tokens("don't stop-me now: 42times, «vite» \xE2\x80\x94 fin"),
            (Words{"don", "t", "stop", "me", "now", "times", "vite", "fin"}));
}

TEST(LetterTest, LowerCasesAsciiLatinGreekAndCyrillic) {
  EXPECT_EQ(ToLower('A'), char32_t{'a'});
  EXPECT_EQ(ToLower('z'), char32_t{'z'});
  EXPECT_EQ(ToLower(0xC9), char32_t{0xE9});    // É
  EXPECT_EQ(ToLower(0xDE), char32_t{0xFE});    // Þ
  EXPECT_EQ(ToLower(0xD7), char32_t{0xD7});    // × stays
  EXPECT_EQ(ToLower(0xDF), char32_t{0xDF});    // ß has no capital here
  EXPECT_EQ(ToLower(0x152), char32_t{0x153});  // Œ
  EXPECT_EQ(ToLower(0x141), char32_t{0x142});  // Ł (odd capital)
  EXPECT_EQ(ToLower(0x17D), char32_t{0x17E});  // Ž
  EXPECT_EQ(ToLower(0x178), char32_t{0xFF});   // Ÿ
  EXPECT_EQ(ToLower(0x130), char32_t{'i'});    // İ
  EXPECT_EQ(ToLower(0x153), char32_t{0x153});  // œ stays
  EXPECT_EQ(ToLower(0x391), char32_t{0x3B1});  // Α
  EXPECT_EQ(ToLower(0x3A3), char32_t{0x3C3});  // Σ
  EXPECT_EQ(ToLower(0x388), char32_t{0x3AD});  // Έ
  EXPECT_EQ(ToLower(0x416), char32_t{0x436});  // Ж
  EXPECT_EQ(ToLower(0x401), char32_t{0x451});  // Ё
  EXPECT_EQ(ToLower(0x4E2D), char32_t{0x4E2D});
  EXPECT_EQ(Tokens("\xC3\x89T\xC3\x89 Stra\xC3\x9F"
                   "e \xCE\x91\xCE\xB8\xCE\x97\xCE\x9D\xCE\x91"),
            (Words{"\xC3\xA9t\xC3\xA9",
                   "stra\xC3\x9F"
                   "e",
                   "\xCE\xB1\xCE\xB8\xCE\xB7\xCE\xBD\xCE\xB1"}));
}

TEST(TokenizeTest, DropsShortTokensCountingCodePoints) {
  EXPECT_EQ(Tokens("a an ant ants", 3), (Words{"ant", "ants"}));
  // "été" is 3 letters in 5 bytes; "éa" 2 letters in 3 bytes.
  EXPECT_EQ(Tokens("\xC3\xA9t\xC3\xA9 \xC3\xA9"
                   "a",
                   3),
            (Words{"\xC3\xA9t\xC3\xA9"}));
  EXPECT_EQ(Tokens("", 1), Words{});
  EXPECT_EQ(Tokens("  ,,  ", 1), Words{});
}

TEST(TokenizeTest, DropsStopWordsAfterLowerCasing) {
  const StopWords stop(BuiltinStopWords().begin(), BuiltinStopWords().end());
  EXPECT_EQ(Tokens("The cat and THE Hat, which I don't like", 1, &stop),
            (Words{"cat", "hat", "like"}));
  EXPECT_EQ(Tokens("the cat", 1, nullptr), (Words{"the", "cat"}));
}

TEST(StopWordsTest, BuiltinListIsLowerCaseWithoutRepeats) {
  const std::vector<std::string>& words = BuiltinStopWords();
  EXPECT_GE(words.size(), 150u);
  EXPECT_LE(words.size(), 300u);
  const StopWords set(words.begin(), words.end());
  EXPECT_EQ(set.size(), words.size());
  for (const std::string& w : words) {
    std::vector<std::string> tokens;
    ASSERT_EQ(Tokenize(w, {1, nullptr}, &tokens), std::string_view::npos);
    EXPECT_EQ(tokens, Words{w}) << w;
  }
  for (const char* w : {"the", "and", "of", "which", "don", "would"}) EXPECT_EQ(set.count(w), 1u);
}

class TextCorpusTest : public ScratchDirTest {};

TEST_F(TextCorpusTest, ReadsAStopWordFileLowerCased) {
  const StopWords stop = ReadStopWords(Write("stop.txt", "  Foo \n\nBAR\r\n\xC3\x89t\xC3\xA9\n"));
  EXPECT_EQ(stop, (StopWords{"foo", "bar", "\xC3\xA9t\xC3\xA9"}));
  try {
    ReadStopWords(Write("bad.txt", "ok\nb\xFFz\n"));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kInput);
    EXPECT_NE(std::string(e.what()).find("bad.txt:2:"), std::string::npos) << e.what();
  }
}

TEST(VocabularyTest, CutsByDocumentFrequencyThenSize) {
  std::unordered_map<std::string, WordStats> stats = {
      {"rare", {1, 3}}, {"pear", {2, 2}}, {"apple", {3, 9}},
      {"plum", {3, 3}}, {"fig", {5, 5}},  {"common", {6, 6}},
  };
  CutCounts counts;
  // 10 documents: max_df 0.5 keeps df <= 5.
  EXPECT_EQ(SelectVocabulary(stats, 10, {2, 0.5, 0}, &counts),
            (Words{"apple", "fig", "pear", "plum"}));
  EXPECT_EQ(counts.distinct, 6u);
  EXPECT_EQ(counts.below_min_df, 1u);
  EXPECT_EQ(counts.above_max_df, 1u);
  EXPECT_EQ(counts.over_max_vocab, 0u);
  // The 2 in most documents: fig (5), then apple and plum tie at 3 and apple sorts first.
  EXPECT_EQ(SelectVocabulary(stats, 10, {2, 0.5, 2}, &counts), (Words{"apple", "fig"}));
  EXPECT_EQ(counts.over_max_vocab, 2u);
  EXPECT_EQ(SelectVocabulary(stats, 10, {1, 1.0, 0}, &counts).size(), 6u);
  EXPECT_EQ(SelectVocabulary(stats, 10, {7, 1.0, 0}, &counts), Words{});
  EXPECT_EQ(counts.below_min_df, 6u);
}

TEST_F(TextCorpusTest, WritesAUciCorpusTheReaderAccepts) {
  const std::string text = Write("text.txt",
                                 "\xEF\xBB\xBF"
                                 "Apples and pears; apples!\r\n"
                                 "the\n"
                                 "Pears, plums and APPLES\n"
                                 "Plums \xE2\x80\x94 caf\xC3\xA9 CAF\xC3\x89\n");
  TextCorpusOptions options;
  options.cuts = {2, 1.0, 0};
  const std::string out = Path("out");
  const TextCorpusSummary s = ConvertTextCorpus(text, out, options, "test");
  EXPECT_EQ(s.documents, 4u);
  EXPECT_EQ(s.empty_documents, 1u);  // line 2 held only a stop word
  EXPECT_EQ(s.words, 3u);            // café is in one document only
  EXPECT_EQ(s.entries, 6u);
  EXPECT_EQ(s.tokens, 7u);
  EXPECT_EQ(ReadWholeFile(out + "/vocab.txt"), "apples\npears\nplums\n");
  EXPECT_EQ(ReadWholeFile(out + "/docword.txt"),
            "4\n3\n6\n"
            "1 1 2\n1 2 1\n"
            "3 1 1\n3 2 1\n3 3 1\n"
            "4 3 1\n");
  const std::string manifest = ReadWholeFile(out + "/corpus.txt");
  EXPECT_NE(manifest.find("min_df = 2\n"), std::string::npos) << manifest;
  EXPECT_NE(manifest.find("empty_documents = 1\n"), std::string::npos) << manifest;

  const Corpus corpus = ReadCorpus(out + "/docword.txt", out + "/vocab.txt");
  EXPECT_EQ(corpus.documents, 4u);
  EXPECT_EQ(corpus.empty_documents, 1u);
  EXPECT_EQ(corpus.vocab, (Words{"apples", "pears", "plums"}));
}

TEST_F(TextCorpusTest, FailsWithFileLineAndExitCode3) {
  const auto expect_input_error = [&](const std::string& path, const std::string& where,
                                      const std::string& words) {
    try {
      ConvertTextCorpus(path, Path("out"), TextCorpusOptions{}, "test");
      ADD_FAILURE() << "no error for " << path;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::kInput) << e.what();
      const std::string message = e.what();
      EXPECT_EQ(message.rfind(where, 0), 0u) << message;
      EXPECT_NE(message.find(words), std::string::npos) << message;
    }
  };
  const std::string bad = Write("bad.txt", "fine words here\nmore w\xE9rds\n");
  expect_input_error(bad, bad + ":2: ",
                     "invalid UTF-8: byte 0xE9 at byte offset 6 of the line "
                     "(offset 22 of the file)");
  expect_input_error(Path("missing.txt"), Path("missing.txt") + ": ", "cannot open");
  expect_input_error(Write("empty.txt", ""), Path("empty.txt") + ": ", "empty file");
  expect_input_error(Write("none.txt", "the and of\nunique words\n"), Path("none.txt") + ": ",
                     "no vocabulary left");
  EXPECT_FALSE(std::filesystem::exists(Path("out/docword.txt")));
}

}  // namespace
}  // namespace carousel::io
