#include "carousel/io/corpus_reader.hpp"
#include "carousel/io/line_ranges.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "carousel/util/error.hpp"

#include "scratch_dir_test.hpp"

namespace carousel::io {
namespace {

namespace fs = std::filesystem;

using Words = EntryArray;  // word ids or counts, as Corpus holds them

// Document d's words and counts, in CSR order.
Words WordsOf(const Corpus& corpus, std::uint32_t d) {
  return Words(corpus.word.begin() + static_cast<std::ptrdiff_t>(corpus.doc_start[d]),
               corpus.word.begin() + static_cast<std::ptrdiff_t>(corpus.doc_start[d + 1]));
}

Words CountsOf(const Corpus& corpus, std::uint32_t d) {
  return Words(corpus.count.begin() + static_cast<std::ptrdiff_t>(corpus.doc_start[d]),
               corpus.count.begin() + static_cast<std::ptrdiff_t>(corpus.doc_start[d + 1]));
}

// The invariants every corpus must satisfy, whatever the file.
void ExpectWellFormed(const Corpus& corpus) {
  EXPECT_NE(corpus.format, CorpusFormat::kAuto);
  ASSERT_EQ(corpus.doc_start.size(), std::size_t{corpus.documents} + 1);
  EXPECT_EQ(corpus.doc_start.front(), 0u);
  EXPECT_EQ(corpus.doc_start.back(), corpus.word.size());
  ASSERT_EQ(corpus.word.size(), corpus.count.size());
  std::uint32_t empty = 0;
  for (std::uint32_t d = 0; d < corpus.documents; ++d) {
    ASSERT_LE(corpus.doc_start[d], corpus.doc_start[d + 1]);
    if (corpus.doc_start[d] == corpus.doc_start[d + 1]) {
      ++empty;
    }
  }
  EXPECT_EQ(corpus.empty_documents, empty);
  for (std::size_t i = 0; i < corpus.word.size(); ++i) {
    ASSERT_LT(corpus.word[i], corpus.vocabulary) << "entry " << i;
    ASSERT_GE(corpus.count[i], 1u) << "entry " << i;
  }
  if (!corpus.vocab.empty()) {
    EXPECT_EQ(corpus.vocab.size(), corpus.vocabulary);
  }
}

class CorpusReader : public ScratchDirTest {
 protected:
  Corpus Read(const std::string& contents, CorpusFormat format = CorpusFormat::kAuto,
              const std::string& vocab_path = "") {
    const Corpus corpus = ReadCorpus(Write("corpus.txt", contents), vocab_path, format);
    ExpectWellFormed(corpus);
    return corpus;
  }

  // Writes `contents` to `name`, reads it, and checks that it fails with an input error
  // located at `line` of `name` (0: the file as a whole) whose message contains `keyword`.
  testing::AssertionResult FailsWith(const std::string& name, const std::string& contents,
                                     std::size_t line, const std::string& keyword,
                                     CorpusFormat format = CorpusFormat::kAuto,
                                     const std::string& vocab_path = "") {
    const std::string path = Write(name, contents);
    return ErrorMatches(path, vocab_path, format, Where(path, line), keyword);
  }

  static std::string Where(const std::string& path, std::size_t line) {
    return line == 0 ? path + ": " : path + ":" + std::to_string(line) + ": ";
  }

  static testing::AssertionResult ErrorMatches(const std::string& path,
                                               const std::string& vocab_path, CorpusFormat format,
                                               const std::string& where,
                                               const std::string& keyword) {
    try {
      ReadCorpus(path, vocab_path, format);
    } catch (const Error& e) {
      const std::string message = e.what();
      if (e.code() != ExitCode::kInput) {
        return testing::AssertionFailure() << "wrong exit code for: " << message;
      }
      if (message.rfind(where, 0) != 0) {
        return testing::AssertionFailure() << "expected '" << where << "' first in: " << message;
      }
      if (message.find(keyword) == std::string::npos) {
        return testing::AssertionFailure() << "expected '" << keyword << "' in: " << message;
      }
      return testing::AssertionSuccess();
    }
    return testing::AssertionFailure() << "no error reading " << path;
  }
};

// --- Format names -----------------------------------------------------------------------

TEST(CorpusReaderFormat, NamesRoundTrip) {
  for (const char* name : {"auto", "uci", "ldac"}) {
    EXPECT_STREQ(CorpusFormatName(ParseCorpusFormat(name)), name);
  }
  EXPECT_EQ(ParseCorpusFormat("uci"), CorpusFormat::kUci);
  EXPECT_EQ(ParseCorpusFormat("ldac"), CorpusFormat::kLdaC);
}

TEST(CorpusReaderFormat, UnknownNameIsSettingError) {
  try {
    ParseCorpusFormat("lda-c");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kUsage);
    EXPECT_EQ(e.setting(), "corpus-format");  // the command line's --corpus-format
    EXPECT_NE(std::string(e.what()).find("'lda-c'"), std::string::npos) << e.what();
  }
}

// --- UCI --------------------------------------------------------------------------------

TEST_F(CorpusReader, ReadsUciIntoCsrKeepingFileOrderWithinDocuments) {
  // Documents out of order; document 3 has no entries.
  const Corpus corpus = Read("4\n5\n5\n2 3 1\n1 5 2\n2 1 4\n4 2 1\n1 1 3\n");
  EXPECT_EQ(corpus.format, CorpusFormat::kUci);
  EXPECT_EQ(corpus.documents, 4u);
  EXPECT_EQ(corpus.vocabulary, 5u);
  EXPECT_EQ(corpus.empty_documents, 1u);
  EXPECT_EQ(corpus.tokens(), 11u);
  EXPECT_TRUE(corpus.vocab.empty());
  EXPECT_EQ(corpus.doc_start, (std::vector<std::uint64_t>{0, 2, 4, 4, 5}));
  EXPECT_EQ(WordsOf(corpus, 0), (Words{4, 0}));
  EXPECT_EQ(CountsOf(corpus, 0), (Words{2, 3}));
  EXPECT_EQ(WordsOf(corpus, 1), (Words{2, 0}));
  EXPECT_EQ(CountsOf(corpus, 1), (Words{1, 4}));
  EXPECT_EQ(WordsOf(corpus, 3), (Words{1}));
}

// What the loader does across ranks: the entries' part cut into line-aligned ranges, each
// parsed on its own from its first line number, gives ReadCorpus's entries and lines.
TEST_F(CorpusReader, RangesParsedApartGiveTheWholeFile) {
  const std::vector<std::pair<std::string, std::string>> files = {
      {"uci.txt", "\n3\n5\n6\n2 4 1\n1 1 2\n\n3 5 1\r\n1 3 7\n2 2 2\n3 1 1\n"},
      {"c.ldac", "2 0:1 4:2\n\n0\n3 1:1 2:5 3:1\r\n1 4:4"}};
  for (const auto& [name, contents] : files) {
    const std::string path = Write(name, contents);
    const Corpus whole = ReadCorpus(path);
    const CorpusLayout layout = ReadCorpusLayout(path, CorpusFormat::kAuto, 0, "");
    EXPECT_EQ(layout.format, whole.format);
    for (int parts = 1; parts <= static_cast<int>(contents.size()) + 1; ++parts) {
      std::vector<std::vector<std::uint32_t>> words(whole.documents + 1);
      std::size_t first_line = layout.data_first_line;
      std::uint32_t first_doc = 0;
      std::uint64_t max_id = 0;
      for (int p = 0; p < parts; ++p) {
        const ByteRange range =
            LineAlignedRange(path, ByteRange{layout.data_begin, layout.size}, p, parts);
        ParseCorpusRange(
            layout, range, first_line, 0, "", 0,
            [&](const CorpusEntry& e) {
              words[layout.uci ? e.doc : first_doc + e.doc].push_back(e.word);
            },
            &max_id);
        const LineCounts counts = CountLines(path, range);
        first_line += counts.line_ends;
        first_doc += static_cast<std::uint32_t>(counts.non_blank);
      }
      for (std::uint32_t d = 0; d < whole.documents; ++d) {
        const std::vector<std::uint32_t> expected(whole.word.begin() + whole.doc_start[d],
                                                  whole.word.begin() + whole.doc_start[d + 1]);
        EXPECT_EQ(words[d], expected) << name << ", " << parts << " parts, document " << d;
      }
    }
  }
}

TEST_F(CorpusReader, ReadsSortedUci) {
  const Corpus corpus = Read("3\n4\n4\n1 1 1\n1 4 2\n3 2 7\n3 3 1\n");
  EXPECT_EQ(corpus.doc_start, (std::vector<std::uint64_t>{0, 2, 2, 4}));
  EXPECT_EQ(corpus.word, (Words{0, 3, 1, 2}));
  EXPECT_EQ(corpus.count, (Words{1, 2, 7, 1}));
  EXPECT_EQ(corpus.empty_documents, 1u);
  EXPECT_EQ(corpus.tokens(), 11u);
}

TEST_F(CorpusReader, UciTrailingEmptyDocumentsAndNoEntries) {
  const Corpus corpus = Read("5\n3\n1\n2 3 4\n");
  EXPECT_EQ(corpus.documents, 5u);
  EXPECT_EQ(corpus.empty_documents, 4u);
  EXPECT_EQ(corpus.tokens(), 4u);

  const Corpus none = Read("2\n3\n0\n");
  EXPECT_EQ(none.documents, 2u);
  EXPECT_EQ(none.empty_documents, 2u);
  EXPECT_EQ(none.vocabulary, 3u);
  EXPECT_EQ(none.tokens(), 0u);
}

TEST_F(CorpusReader, ReadsUciWithVocabulary) {
  const std::string vocab = Write("vocab.txt", "apple\nbanana\ncherry\n");
  const Corpus corpus = Read("2\n3\n2\n1 3 1\n2 1 2\n", CorpusFormat::kAuto, vocab);
  EXPECT_EQ(corpus.vocab, (std::vector<std::string>{"apple", "banana", "cherry"}));
  EXPECT_EQ(corpus.vocabulary, 3u);
}

// --- LDA-C ------------------------------------------------------------------------------

TEST_F(CorpusReader, ReadsLdaC) {
  const Corpus corpus = Read("2 0:1 3:2\n0\n1 5:4\n3 2:1 0:1 1:9\n");
  EXPECT_EQ(corpus.format, CorpusFormat::kLdaC);
  EXPECT_EQ(corpus.documents, 4u);
  EXPECT_EQ(corpus.empty_documents, 1u);
  EXPECT_EQ(corpus.vocabulary, 6u);  // largest id + 1
  EXPECT_EQ(corpus.tokens(), 18u);
  EXPECT_EQ(corpus.doc_start, (std::vector<std::uint64_t>{0, 2, 2, 3, 6}));
  EXPECT_EQ(WordsOf(corpus, 0), (Words{0, 3}));
  EXPECT_EQ(CountsOf(corpus, 0), (Words{1, 2}));
  EXPECT_EQ(WordsOf(corpus, 3), (Words{2, 0, 1}));
  EXPECT_EQ(CountsOf(corpus, 3), (Words{1, 1, 9}));
}

TEST_F(CorpusReader, LdaCVocabularySizeComesFromTheFile) {
  const std::string vocab = Write("vocab.txt", "a\nb\nc\nd\n");
  const Corpus corpus = Read("1 1:1\n1 0:2\n", CorpusFormat::kAuto, vocab);
  EXPECT_EQ(corpus.vocabulary, 4u);
  EXPECT_EQ(corpus.vocab.size(), 4u);
  EXPECT_EQ(corpus.vocab[3], "d");
}

TEST_F(CorpusReader, LdaCOnlyEmptyDocuments) {
  // Detection needs a ':' somewhere on the first line, so the format is forced.
  const Corpus corpus = Read("0\n0\n", CorpusFormat::kLdaC);
  EXPECT_EQ(corpus.documents, 2u);
  EXPECT_EQ(corpus.empty_documents, 2u);
  EXPECT_EQ(corpus.vocabulary, 0u);
}

// --- Line handling ----------------------------------------------------------------------

TEST_F(CorpusReader, AcceptsCrlfEverywhere) {
  const std::string vocab = Write("vocab.txt", "one\r\ntwo\r\nthree\r\n");
  const Corpus uci = Read("2\r\n3\r\n2\r\n1 1 1\r\n2 3 2\r\n", CorpusFormat::kAuto, vocab);
  EXPECT_EQ(uci.format, CorpusFormat::kUci);
  EXPECT_EQ(uci.word, (Words{0, 2}));
  EXPECT_EQ(uci.count, (Words{1, 2}));
  EXPECT_EQ(uci.vocab, (std::vector<std::string>{"one", "two", "three"}));

  const Corpus ldac = Read("1 2:3\r\n0\r\n2 0:1 1:1\r\n", CorpusFormat::kAuto, vocab);
  EXPECT_EQ(ldac.format, CorpusFormat::kLdaC);
  EXPECT_EQ(ldac.documents, 3u);
  EXPECT_EQ(ldac.empty_documents, 1u);
  EXPECT_EQ(ldac.word, (Words{2, 0, 1}));
  EXPECT_EQ(ldac.count, (Words{3, 1, 1}));
}

TEST_F(CorpusReader, SkipsBlankLinesButCountsThem) {
  const Corpus uci = Read("\n2\n3\n2\n\n1 1 1\n \t\n2 3 2\n\n");
  EXPECT_EQ(uci.word, (Words{0, 2}));
  // Line numbers in errors still count the blank lines.
  EXPECT_TRUE(FailsWith("a.txt", "2\n3\n2\n\n1 1 1\n\n2 4 2\n", 7, "word id 4"));

  const Corpus ldac = Read("\n1 0:1\n\n \n1 1:1\n");
  EXPECT_EQ(ldac.documents, 2u);  // blank lines are not documents
  EXPECT_EQ(ldac.empty_documents, 0u);
  EXPECT_TRUE(FailsWith("b.txt", "1 0:1\n\n1 1:x\n", 3, "non-numeric count 'x'"));
}

TEST_F(CorpusReader, AcceptsByteOrderMark) {
  const Corpus corpus = Read(
      "\xEF\xBB\xBF"
      "1 0:1\n");
  EXPECT_EQ(corpus.format, CorpusFormat::kLdaC);
  EXPECT_EQ(corpus.documents, 1u);
}

TEST_F(CorpusReader, BlankLinesAtTheEndOfTheVocabularyAreIgnored) {
  const std::string vocab = Write("vocab.txt", "x\ny\n\n\r\n");
  EXPECT_EQ(Read("1 1:1\n", CorpusFormat::kAuto, vocab).vocab.size(), 2u);
}

// --- Detection and override -------------------------------------------------------------

TEST_F(CorpusReader, DetectsFromFirstNonBlankLine) {
  EXPECT_EQ(Read("\n\n1 0:1\n").format, CorpusFormat::kLdaC);
  EXPECT_EQ(Read("\n1\n1\n1\n1 1 1\n").format, CorpusFormat::kUci);
}

TEST_F(CorpusReader, ExplicitFormatOverridesDetection) {
  // A UCI file read as LDA-C: "2" announces two pairs that are not there.
  EXPECT_TRUE(FailsWith("a.txt", "2\n3\n1\n1 1 1\n", 1, "0 id:count pairs", CorpusFormat::kLdaC));
  // An LDA-C file read as UCI has no numeric header.
  EXPECT_TRUE(FailsWith("b.txt", "1 0:1\n", 1, "malformed UCI header", CorpusFormat::kUci));
}

// --- File-level errors ------------------------------------------------------------------

TEST_F(CorpusReader, MissingFileIsInputError) {
  const std::string path = (fs::path(dir_) / "absent.txt").string();
  EXPECT_TRUE(ErrorMatches(path, "", CorpusFormat::kAuto, path + ": ", "No such file"));
}

TEST_F(CorpusReader, DirectoryIsInputError) {
  EXPECT_TRUE(ErrorMatches(dir_, "", CorpusFormat::kAuto, dir_ + ": ", "cannot"));
}

TEST_F(CorpusReader, EmptyFileIsInputError) {
  EXPECT_TRUE(FailsWith("empty.txt", "", 0, "no documents"));
  EXPECT_TRUE(FailsWith("blank.txt", "\n \r\n\t\n", 0, "no documents", CorpusFormat::kLdaC));
}

TEST_F(CorpusReader, VocabularyFileErrors) {
  const std::string corpus = Write("c.txt", "1 0:1\n");
  const std::string absent = (fs::path(dir_) / "absent.vocab").string();
  EXPECT_TRUE(ErrorMatches(corpus, absent, CorpusFormat::kAuto, absent + ": ", "No such file"));

  const std::string empty = Write("empty.vocab", "\n\n");
  EXPECT_TRUE(ErrorMatches(corpus, empty, CorpusFormat::kAuto, empty + ": ", "empty vocabulary"));

  // A blank line inside would shift the ids of every later word.
  const std::string holey = Write("holey.vocab", "a\nb\n\nc\n");
  EXPECT_TRUE(ErrorMatches(corpus, holey, CorpusFormat::kAuto, holey + ":3: ", "blank line"));
}

// --- UCI header errors ------------------------------------------------------------------

TEST_F(CorpusReader, UciHeaderMustBeThreeNumbers) {
  EXPECT_TRUE(FailsWith("a.txt", "abc\n3\n1\n1 1 1\n", 1, "non-numeric number of documents D"));
  EXPECT_TRUE(FailsWith("b.txt", "2\n-3\n1\n1 1 1\n", 2, "negative vocabulary size W -3"));
  EXPECT_TRUE(FailsWith("c.txt", "2\n3\n1.5\n1 1 1\n", 3, "non-integer number of entries NNZ"));
  EXPECT_TRUE(FailsWith("d.txt", "2 3\n3\n1\n1 1 1\n", 1, "alone on the line, found 2 fields"));
  EXPECT_TRUE(FailsWith("e.txt", "2\n3\n1x\n1 1 1\n", 3, "'1x'"));
  EXPECT_TRUE(FailsWith("f.txt", "99999999999\n3\n1\n1 1 1\n", 1, "out of range"));
}

TEST_F(CorpusReader, UciHeaderAllowsNoBlankLines) {
  EXPECT_TRUE(FailsWith("a.txt", "2\n\n3\n1\n1 1 1\n", 2, "found a blank line"));
  EXPECT_TRUE(FailsWith("b.txt", "2\n3\r\n\r\n1\n", 3, "expected the number of entries NNZ"));
}

TEST_F(CorpusReader, UciHeaderTruncated) {
  EXPECT_TRUE(FailsWith("a.txt", "2\n3\n", 0, "missing the number of entries NNZ"));
  EXPECT_TRUE(FailsWith("b.txt", "2", 0, "missing the vocabulary size W"));
}

TEST_F(CorpusReader, UciHeaderWithoutDocuments) {
  EXPECT_TRUE(FailsWith("a.txt", "0\n3\n0\n", 1, "no documents"));
}

// --- UCI entry errors -------------------------------------------------------------------

const char kUciHead[] = "3\n5\n2\n1 1 1\n";  // the first entry is line 4, the second line 5

TEST_F(CorpusReader, UciEntryNeedsThreeFields) {
  EXPECT_TRUE(FailsWith("a.txt", std::string(kUciHead) + "2 2\n", 5, "expected 3"));
  EXPECT_TRUE(FailsWith("b.txt", std::string(kUciHead) + "2 2 1 1\n", 5, "found 4"));
}

TEST_F(CorpusReader, UciEntryMalformedNumbers) {
  const std::string head = kUciHead;
  EXPECT_TRUE(FailsWith("a.txt", head + "x 2 1\n", 5, "non-numeric document id 'x'"));
  EXPECT_TRUE(FailsWith("b.txt", head + "2 2 3x\n", 5, "non-numeric count '3x'"));
  EXPECT_TRUE(FailsWith("c.txt", head + "2 2.5 1\n", 5, "non-integer word id '2.5'"));
  EXPECT_TRUE(FailsWith("d.txt", head + "-2 2 1\n", 5, "negative document id -2"));
  EXPECT_TRUE(FailsWith("e.txt", head + "2 2 -1\n", 5, "negative count -1"));
  EXPECT_TRUE(FailsWith("f.txt", head + "2 2 99999999999\n", 5, "count '99999999999' is out"));
}

TEST_F(CorpusReader, UciCountMustBePositive) {
  EXPECT_TRUE(FailsWith("a.txt", std::string(kUciHead) + "2 2 0\n", 5, "count 0"));
}

TEST_F(CorpusReader, UciIdsMustBeWithinTheHeader) {
  const std::string head = kUciHead;
  EXPECT_TRUE(FailsWith("a.txt", head + "0 2 1\n", 5, "document id 0 outside 1..3 (D on line 1)"));
  EXPECT_TRUE(FailsWith("b.txt", head + "4 2 1\n", 5, "document id 4 outside 1..3"));
  EXPECT_TRUE(FailsWith("c.txt", head + "2 0 1\n", 5, "word id 0 outside 1..5 (W on line 2)"));
  EXPECT_TRUE(FailsWith("d.txt", head + "2 6 1\n", 5, "word id 6 outside 1..5"));
}

TEST_F(CorpusReader, UciEntryCountMustMatchNnz) {
  EXPECT_TRUE(FailsWith("few.txt", kUciHead, 0, "expected 2 entries as given by NNZ on line 3"));
  EXPECT_TRUE(FailsWith("few2.txt", kUciHead, 0, "found 1"));
  EXPECT_TRUE(FailsWith("many.txt", std::string(kUciHead) + "2 2 1\n\n3 3 1\n", 7,
                        "more entries than the 2 given by NNZ on line 3"));
}

TEST_F(CorpusReader, UciDuplicatePairNamesBothLines) {
  EXPECT_TRUE(FailsWith("a.txt", "3\n5\n4\n1 1 1\n2 2 1\n1 3 1\n2 2 5\n", 7,
                        "duplicate entry for document 2 word 2 (first at line 5)"));
  // Unsorted: the pair that repeats first in the file is reported, whatever the CSR order.
  EXPECT_TRUE(FailsWith("b.txt", "3\n5\n5\n3 4 1\n1 1 1\n3 4 2\n1 1 1\n2 2 2\n", 6,
                        "document 3 word 4 (first at line 4)"));
}

TEST_F(CorpusReader, UciVocabularyMustMatchW) {
  const std::string vocab = Write("v.txt", "a\nb\nc\nd\n");
  const std::string corpus = Write("c.txt", kUciHead);
  EXPECT_TRUE(ErrorMatches(corpus, vocab, CorpusFormat::kAuto, vocab + ": ",
                           "the vocabulary has 4 words but " + corpus + " gives W = 5 on line 2"));
}

TEST_F(CorpusReader, UciWordOutsideVocabularyNamesTheVocabularyFile) {
  const std::string vocab = Write("v.txt", "a\nb\nc\nd\ne\n");
  EXPECT_TRUE(FailsWith("c.txt", std::string(kUciHead) + "2 7 1\n", 5,
                        "word id 7 outside the vocabulary of 5 words (" + vocab + ")",
                        CorpusFormat::kAuto, vocab));
}

// --- LDA-C errors -----------------------------------------------------------------------

TEST_F(CorpusReader, LdaCPairCountMustMatchN) {
  EXPECT_TRUE(FailsWith("a.txt", "1 0:1\n3 0:1 1:1\n", 2, "N = 3"));
  EXPECT_TRUE(FailsWith("b.txt", "1 0:1\n3 0:1 1:1\n", 2, "2 id:count pairs"));
  EXPECT_TRUE(FailsWith("c.txt", "1 0:1\n1 0:1 1:1\n", 2, "2 id:count pairs"));
  EXPECT_TRUE(FailsWith("d.txt", "1 0:1\n\n0 4:1\n", 3, "N = 0"));
}

TEST_F(CorpusReader, LdaCMalformedLines) {
  EXPECT_TRUE(FailsWith("a.txt", "0:1 1:1\n", 1, "number of distinct terms N first"));
  EXPECT_TRUE(FailsWith("b.txt", "1 0:1\n2 0:1 7\n", 2, "malformed pair '7' (pair 2)"));
  EXPECT_TRUE(FailsWith("c.txt", "1 0:1\nx 0:1\n", 2, "non-numeric term count N 'x'"));
  EXPECT_TRUE(FailsWith("d.txt", "1 0:1\n1 a:1\n", 2, "non-numeric word id 'a'"));
  EXPECT_TRUE(FailsWith("e.txt", "1 0:1\n1 :1\n", 2, "empty word id"));
  EXPECT_TRUE(FailsWith("f.txt", "1 0:1\n1 3:\n", 2, "empty count"));
  EXPECT_TRUE(FailsWith("g.txt", "1 0:1\n1 -3:1\n", 2, "negative word id -3"));
  EXPECT_TRUE(FailsWith("h.txt", "1 0:1\n1 3:2junk\n", 2, "non-numeric count '2junk'"));
  EXPECT_TRUE(FailsWith("i.txt", "1 0:1\n1 3:1:1\n", 2, "non-numeric count '1:1'"));
  EXPECT_TRUE(FailsWith("j.txt", "1 0:1\n-1\n", 2, "negative term count N -1"));
  EXPECT_TRUE(FailsWith("k.txt", "1 0:1\n1 4294967295:1\n", 2, "word id '4294967295' is out"));
}

TEST_F(CorpusReader, LdaCCountMustBePositive) {
  EXPECT_TRUE(FailsWith("a.txt", "2 0:1 1:0\n", 1, "count 0"));
}

TEST_F(CorpusReader, LdaCDuplicateIdOnALine) {
  EXPECT_TRUE(FailsWith("a.txt", "1 0:1\n4 5:1 2:1 7:1 2:3\n", 2,
                        "duplicate word id 2 on the line (pairs 2 and 4)"));
  EXPECT_TRUE(FailsWith("b.txt", "2 5:1 5:1\n", 1, "duplicate word id 5"));
  // The same id on different lines is fine.
  EXPECT_EQ(Read("1 5:1\n1 5:1\n").documents, 2u);
}

TEST_F(CorpusReader, LdaCWordOutsideVocabulary) {
  const std::string vocab = Write("v.txt", "a\nb\nc\n");
  EXPECT_TRUE(FailsWith("c.txt", "1 0:1\n2 1:1 3:1\n", 2,
                        "word id 3 outside the vocabulary of 3 words (" + vocab + ")",
                        CorpusFormat::kAuto, vocab));
}

// --- Real data --------------------------------------------------------------------------

TEST(CorpusReaderSharedData, ReadsKos) {
  const std::string dir = std::string(CAROUSEL_SHARED_DATA) + "/kos";
  const std::string path = dir + "/docword.kos.txt";
  const std::string vocab = dir + "/vocab.kos.txt";
  if (!fs::exists(path) || !fs::exists(vocab)) GTEST_SKIP() << path << " not present";
  const Corpus corpus = ReadCorpus(path, vocab);
  ExpectWellFormed(corpus);
  EXPECT_EQ(corpus.format, CorpusFormat::kUci);
  EXPECT_EQ(corpus.documents, 3430u);
  EXPECT_EQ(corpus.vocabulary, 6906u);
  EXPECT_EQ(corpus.word.size(), 353160u);
  EXPECT_EQ(corpus.tokens(), 467714u);
  EXPECT_EQ(corpus.empty_documents, 0u);
  ASSERT_EQ(corpus.vocab.size(), 6906u);
  EXPECT_EQ(corpus.vocab.front(), "aarp");
  EXPECT_EQ(corpus.vocab.back(), "zones");
  // The first entry lines are "1 61 2" and "1 76 1".
  ASSERT_GE(corpus.doc_start[1], 2u);
  EXPECT_EQ(corpus.word[0], 60u);
  EXPECT_EQ(corpus.count[0], 2u);
  EXPECT_EQ(corpus.word[1], 75u);
  EXPECT_EQ(corpus.count[1], 1u);
}

TEST(CorpusReaderSharedData, ReadsReuters) {
  const std::string dir = std::string(CAROUSEL_SHARED_DATA) + "/reuters";
  const std::string path = dir + "/reuters.ldac";
  const std::string vocab = dir + "/reuters.tokens";
  if (!fs::exists(path) || !fs::exists(vocab)) GTEST_SKIP() << path << " not present";
  const Corpus corpus = ReadCorpus(path, vocab);
  ExpectWellFormed(corpus);
  EXPECT_EQ(corpus.format, CorpusFormat::kLdaC);
  EXPECT_EQ(corpus.documents, 395u);
  EXPECT_EQ(corpus.vocabulary, 4258u);
  ASSERT_EQ(corpus.vocab.size(), 4258u);
  EXPECT_EQ(corpus.vocab.front(), "church");
  EXPECT_EQ(corpus.vocab.back(), "jailed");
  EXPECT_EQ(corpus.empty_documents, 0u);
  EXPECT_EQ(corpus.word.size(), 60114u);  // the sum of N over the lines
  EXPECT_EQ(corpus.tokens(), 84010u);
  // The first line starts "159 0:1 2:1 6:1".
  EXPECT_EQ(corpus.doc_start[1], 159u);
  EXPECT_EQ(WordsOf(corpus, 0)[2], 6u);

  // Without the vocabulary the size is the largest id + 1.
  const Corpus bare = ReadCorpus(path);
  EXPECT_TRUE(bare.vocab.empty());
  EXPECT_EQ(bare.vocabulary, 4258u);
  EXPECT_EQ(bare.word, corpus.word);
}

}  // namespace
}  // namespace carousel::io
