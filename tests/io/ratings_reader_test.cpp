#include "carousel/io/ratings_reader.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "carousel/util/error.hpp"

#include "scratch_dir_test.hpp"

namespace carousel::io {
namespace {

namespace fs = std::filesystem;

class RatingsReader : public ScratchDirTest {
 protected:
  // Writes `contents` to `name`, reads it, and checks that it fails with an input error
  // located at `line` (0: the file as a whole) whose message contains `keyword`.
  testing::AssertionResult FailsWith(const std::string& name, const std::string& contents,
                                     std::size_t line, const std::string& keyword,
                                     RatingsFormat format = RatingsFormat::kAuto) {
    const std::string path = Write(name, contents);
    const std::string where = line == 0 ? path + ": " : path + ":" + std::to_string(line) + ": ";
    return ErrorMatches(path, format, where, keyword);
  }

  static testing::AssertionResult ErrorMatches(const std::string& path, RatingsFormat format,
                                               const std::string& where,
                                               const std::string& keyword) {
    try {
      ReadRatings(path, format);
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

void ExpectRating(const RawRating& r, std::int64_t user, std::int64_t item, double value,
                  std::size_t line) {
  EXPECT_EQ(r.user, user);
  EXPECT_EQ(r.item, item);
  EXPECT_DOUBLE_EQ(r.value, value);
  EXPECT_EQ(r.line, line);
}

// --- Format names -----------------------------------------------------------------------

TEST(RatingsReaderFormat, NamesRoundTrip) {
  for (const char* name : {"auto", "movielens", "whitespace", "csv", "mtx"}) {
    EXPECT_STREQ(RatingsFormatName(ParseRatingsFormat(name)), name);
  }
  EXPECT_EQ(ParseRatingsFormat("mtx"), RatingsFormat::kMatrixMarket);
}

TEST(RatingsReaderFormat, UnknownNameIsSettingError) {
  try {
    ParseRatingsFormat("tsv");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kUsage);
    EXPECT_EQ(e.setting(), "format");  // the command line's --format
    EXPECT_NE(std::string(e.what()).find("'tsv'"), std::string::npos) << e.what();
  }
}

// --- Formats ----------------------------------------------------------------------------

TEST_F(RatingsReader, ReadsMovieLens) {
  const std::string path = Write("ratings.dat", "1::1193::5::978300760\n2::661::3.5\n");
  const RatingsFile file = ReadRatings(path);
  EXPECT_EQ(file.path, path);
  EXPECT_EQ(file.format, RatingsFormat::kMovieLens);
  ASSERT_EQ(file.ratings.size(), 2u);
  ExpectRating(file.ratings[0], 1, 1193, 5.0, 1);
  ExpectRating(file.ratings[1], 2, 661, 3.5, 2);
}

TEST_F(RatingsReader, ReadsWhitespaceWithTabsAndSpaces) {
  const RatingsFile file =
      ReadRatings(Write("u.data", "196\t242\t3\t881250949\n  186 302   3.5 \n22\t377 1\n"));
  EXPECT_EQ(file.format, RatingsFormat::kWhitespace);
  ASSERT_EQ(file.ratings.size(), 3u);
  ExpectRating(file.ratings[0], 196, 242, 3.0, 1);
  ExpectRating(file.ratings[1], 186, 302, 3.5, 2);
  ExpectRating(file.ratings[2], 22, 377, 1.0, 3);
}

TEST_F(RatingsReader, ReadsCsvWithHeader) {
  const RatingsFile file = ReadRatings(
      Write("ratings.csv", "userId,movieId,rating,timestamp\n1,31,2.5,1260759144\n1,1029,3.0,1\n"));
  EXPECT_EQ(file.format, RatingsFormat::kCsv);
  ASSERT_EQ(file.ratings.size(), 2u);
  ExpectRating(file.ratings[0], 1, 31, 2.5, 2);
  ExpectRating(file.ratings[1], 1, 1029, 3.0, 3);
}

TEST_F(RatingsReader, ReadsCsvWithoutHeader) {
  const RatingsFile file = ReadRatings(Write("r.csv", "7, 8, 4.5\n9,10,0.5,123\n"));
  EXPECT_EQ(file.format, RatingsFormat::kCsv);
  ASSERT_EQ(file.ratings.size(), 2u);
  ExpectRating(file.ratings[0], 7, 8, 4.5, 1);
  ExpectRating(file.ratings[1], 9, 10, 0.5, 2);
}

TEST_F(RatingsReader, ReadsCsvWithByteOrderMark) {
  const RatingsFile file = ReadRatings(Write("bom.csv", "\xEF\xBB\xBFuser,item,rating\n1,2,3\n"));
  ASSERT_EQ(file.ratings.size(), 1u);
  ExpectRating(file.ratings[0], 1, 2, 3.0, 2);
}

// RFC 4180 quoting, as spreadsheets and pandas (QUOTE_ALL, QUOTE_NONNUMERIC) write it: a
// field wholly enclosed in double quotes is read without them, on any line.
TEST_F(RatingsReader, ReadsCsvWithQuotedFields) {
  const RatingsFile file = ReadRatings(
      Write("q.csv", "\"1\",\"2\",\"3.5\"\n\"1\",3,\"4\"\r\n 2 , \"5\" ,1,\"978300760\"\n"));
  EXPECT_EQ(file.format, RatingsFormat::kCsv);
  ASSERT_EQ(file.ratings.size(), 3u);  // the first line is a rating: its fields are numbers
  ExpectRating(file.ratings[0], 1, 2, 3.5, 1);
  ExpectRating(file.ratings[1], 1, 3, 4.0, 2);
  ExpectRating(file.ratings[2], 2, 5, 1.0, 3);
}

TEST_F(RatingsReader, AQuotedHeaderIsAHeader) {
  const RatingsFile file =
      ReadRatings(Write("h.csv", "\"userId\",\"movie, id\",\"rating\"\n\"1\",\"2\",\"3\"\n"));
  ASSERT_EQ(file.ratings.size(), 1u);
  ExpectRating(file.ratings[0], 1, 2, 3.0, 2);
}

TEST_F(RatingsReader, BadQuotesAreErrorsAtTheirLine) {
  EXPECT_TRUE(FailsWith("a.csv", "1,2,3\n\"1,2,3\n", 2, "unterminated quote in field 1 '\"1,2,3'"));
  EXPECT_TRUE(FailsWith("b.csv", "1,2,3\n1,\"2\",\"3\n", 2, "unterminated quote in field 3"));
  EXPECT_TRUE(FailsWith("c.csv", "1,2,3\n\"1\"x,2,3\n", 2,
                        "stray characters after the closing quote of field 1 '\"1\"x'"));
  EXPECT_TRUE(FailsWith("d.csv", "1,2,3\n1,2\"x,3\n", 2, "non-numeric item id '2\"x' (a stray"));
  EXPECT_TRUE(FailsWith("e.csv", "1,2,3\n1,2,3.5\"\n", 2, "non-numeric rating '3.5\"' (a stray"));
  // Quoted, a comma or a doubled quote is part of the field: no number.
  EXPECT_TRUE(FailsWith("f.csv", "1,2,3\n\"1,5\",2,3\n", 2, "non-numeric user id '1,5'"));
  EXPECT_TRUE(FailsWith("g.csv", "1,2,3\n\"1\"\"\",2,3\n", 2, "non-numeric user id '1\"\"'"));
  EXPECT_TRUE(FailsWith("h.csv", "1,2,3\n\"\",2,3\n", 2, "empty user id"));
  // The first line too: an unterminated quote is no header.
  EXPECT_TRUE(FailsWith("i.csv", "\"user,\"item\",\"rating\n1,2,3\n", 1, "stray characters"));
}

TEST_F(RatingsReader, ReadsMatrixMarketKeepingOneBasedIds) {
  const RatingsFile file =
      ReadRatings(Write("m.mtx",
                        "%%MatrixMarket matrix coordinate real general\n% a comment\n%\n3 4 2\n"
                        "1 1 5\n3 4 2.5\n"));
  EXPECT_EQ(file.format, RatingsFormat::kMatrixMarket);
  ASSERT_EQ(file.ratings.size(), 2u);
  ExpectRating(file.ratings[0], 1, 1, 5.0, 5);
  ExpectRating(file.ratings[1], 3, 4, 2.5, 6);
}

TEST_F(RatingsReader, ReadsIntegerMatrixMarketWithAnyCaseBanner) {
  const RatingsFile file = ReadRatings(
      Write("m.mtx", "%%matrixmarket MATRIX Coordinate integer General\n2 2 1\n2 1 4\n"));
  ASSERT_EQ(file.ratings.size(), 1u);
  ExpectRating(file.ratings[0], 2, 1, 4.0, 3);
}

TEST_F(RatingsReader, KeepsLargeAndZeroIds) {
  const RatingsFile file =
      ReadRatings(Write("big.txt", "0 0 1\n9223372036854775807 1099511627776 2\n"));
  ASSERT_EQ(file.ratings.size(), 2u);
  ExpectRating(file.ratings[0], 0, 0, 1.0, 1);
  ExpectRating(file.ratings[1], INT64_MAX, std::int64_t{1} << 40, 2.0, 2);
}

// --- Line handling ----------------------------------------------------------------------

TEST_F(RatingsReader, AcceptsCrlfLineEnds) {
  const RatingsFile ml = ReadRatings(Write("crlf.dat", "1::2::5::0\r\n3::4::1.5::0\r\n"));
  ASSERT_EQ(ml.ratings.size(), 2u);
  ExpectRating(ml.ratings[1], 3, 4, 1.5, 2);

  const RatingsFile csv = ReadRatings(Write("crlf.csv", "u,i,r\r\n1,2,3\r\n"));
  ASSERT_EQ(csv.ratings.size(), 1u);
  ExpectRating(csv.ratings[0], 1, 2, 3.0, 2);

  const RatingsFile ws = ReadRatings(Write("crlf.txt", "1 2 3\r\n4\t5\t6\r\n"));
  ASSERT_EQ(ws.ratings.size(), 2u);
  ExpectRating(ws.ratings[1], 4, 5, 6.0, 2);

  const RatingsFile mtx = ReadRatings(
      Write("crlf.mtx", "%%MatrixMarket matrix coordinate real general\r\n2 2 1\r\n1 2 3\r\n"));
  ASSERT_EQ(mtx.ratings.size(), 1u);
  ExpectRating(mtx.ratings[0], 1, 2, 3.0, 3);
}

TEST_F(RatingsReader, SkipsBlankLinesAndCountsThem) {
  const RatingsFile file = ReadRatings(Write("blank.txt", "\n1 2 3\n\n \t \n4 5 6"));
  ASSERT_EQ(file.ratings.size(), 2u);
  ExpectRating(file.ratings[0], 1, 2, 3.0, 2);
  ExpectRating(file.ratings[1], 4, 5, 6.0, 5);
}

// --- Detection and override -------------------------------------------------------------

TEST_F(RatingsReader, DetectsMatrixMarketByBanner) {
  const RatingsFile file =
      ReadRatings(Write("m.txt", "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 2\n"));
  EXPECT_EQ(file.format, RatingsFormat::kMatrixMarket);
}

TEST_F(RatingsReader, DetectsMatrixMarketByExtension) {
  // Without the banner the file fails as Matrix Market, which shows it was read as one.
  EXPECT_TRUE(FailsWith("m.mtx", "1 2 3\n", 1, "missing %%MatrixMarket banner"));
}

TEST_F(RatingsReader, DetectsFromFirstDataLine) {
  EXPECT_EQ(ReadRatings(Write("a", "\n1::2::3\n")).format, RatingsFormat::kMovieLens);
  EXPECT_EQ(ReadRatings(Write("b", "\n1,2,3\n")).format, RatingsFormat::kCsv);
  EXPECT_EQ(ReadRatings(Write("c", "\n1 2 3\n")).format, RatingsFormat::kWhitespace);
}

TEST_F(RatingsReader, ExplicitFormatOverridesDetection) {
  const std::string path = Write("misnamed.mtx", "1 2 3\n4 5 6\n");
  const RatingsFile file = ReadRatings(path, RatingsFormat::kWhitespace);
  EXPECT_EQ(file.format, RatingsFormat::kWhitespace);
  EXPECT_EQ(file.ratings.size(), 2u);

  // Forced to CSV, a line without a comma is not taken for a header: its separator is named.
  EXPECT_TRUE(FailsWith("ws.txt", "1 2 3\n4 5 6\n", 1,
                        "unrecognised format: read as csv, but the line is separated by spaces",
                        RatingsFormat::kCsv));
  EXPECT_TRUE(FailsWith("tab.txt", "1\t2\t3\t881250949\n4\t5\t6\t881250950\n", 1,
                        "unrecognised format: read as csv, but the line is separated by tabs",
                        RatingsFormat::kCsv));
  EXPECT_TRUE(FailsWith("csv.txt", "1,2,3\n", 1,
                        "unrecognised format: read as movielens, but the line is separated by ','",
                        RatingsFormat::kMovieLens));
  // MovieLens' u.item ('|'-separated, with spaces in its titles) is no ratings file.
  EXPECT_TRUE(FailsWith("u.item", "1|Toy Story (1995)|01-Jan-1995||http://x\n", 1,
                        "unrecognised format: read as whitespace, but the line is separated by '|'"));
}

// --- File-level errors ------------------------------------------------------------------

TEST_F(RatingsReader, MissingFileIsInputError) {
  const std::string path = (fs::path(dir_) / "absent.dat").string();
  EXPECT_TRUE(ErrorMatches(path, RatingsFormat::kAuto, path + ": ", "No such file"));
}

TEST_F(RatingsReader, DirectoryIsInputError) {
  EXPECT_TRUE(ErrorMatches(dir_, RatingsFormat::kAuto, dir_ + ": ", "cannot"));
}

TEST_F(RatingsReader, EmptyFileIsInputError) {
  EXPECT_TRUE(FailsWith("empty.dat", "", 0, "no ratings"));
  EXPECT_TRUE(FailsWith("blank.dat", "\n \r\n\t\n", 0, "no ratings"));
  EXPECT_TRUE(FailsWith("empty.mtx", "", 0, "no ratings"));
}

TEST_F(RatingsReader, HeaderOnlyCsvHasNoRatings) {
  EXPECT_TRUE(FailsWith("h.csv", "userId,movieId,rating\n", 0, "no ratings"));
}

// --- Line-level errors ------------------------------------------------------------------

TEST_F(RatingsReader, WrongFieldCountNamesExpectedAndFound) {
  EXPECT_TRUE(FailsWith("a.txt", "1 2 3\n4 5 6\n7 8\n", 3, "expected 3 or 4"));
  EXPECT_TRUE(FailsWith("b.txt", "1 2 3\n4 5 6\n7 8\n", 3, "found 2"));
  EXPECT_TRUE(FailsWith("c.txt", "1 2 3 4 5\n", 1, "found 5"));
  EXPECT_TRUE(FailsWith("d.dat", "1::2::3\n1::2::3::4::5::6\n", 2, "found 6"));
  EXPECT_TRUE(FailsWith("e.csv", "1,2,3\n\n1,2\n", 3, "comma-separated fields"));
}

TEST_F(RatingsReader, NonNumericIdIsError) {
  EXPECT_TRUE(FailsWith("a.txt", "1 2 3\nabc 2 3\n", 2, "non-numeric user id 'abc'"));
  EXPECT_TRUE(FailsWith("b.txt", "1 2 3\n1 x7 3\n", 2, "non-numeric item id 'x7'"));
  EXPECT_TRUE(FailsWith("c.csv", "1,,3\n", 1, "empty item id"));
}

TEST_F(RatingsReader, NegativeIdIsError) {
  EXPECT_TRUE(FailsWith("a.txt", "1 2 3\n-4 2 3\n", 2, "negative user id -4"));
  EXPECT_TRUE(FailsWith("b.dat", "1::-2::3\n", 1, "negative item id -2"));
}

TEST_F(RatingsReader, NonIntegerIdIsError) {
  EXPECT_TRUE(FailsWith("a.txt", "1 2 3\n3.5 2 3\n", 2, "non-integer user id '3.5'"));
  EXPECT_TRUE(FailsWith("b.csv", "1,2e3,3\n", 1, "non-integer item id"));
}

TEST_F(RatingsReader, IdOutOfRangeIsError) {
  EXPECT_TRUE(FailsWith("a.txt", "99999999999999999999 1 1\n", 1, "out of range"));
}

TEST_F(RatingsReader, NonNumericRatingIsError) {
  EXPECT_TRUE(FailsWith("a.txt", "1 2 3\n1 3 abc\n", 2, "non-numeric rating 'abc'"));
  EXPECT_TRUE(FailsWith("b.csv", "1,2,4.5stars\n", 1, "non-numeric rating"));
}

TEST_F(RatingsReader, NanOrInfRatingIsError) {
  EXPECT_TRUE(FailsWith("a.txt", "1 2 3\n1 3 nan\n", 2, "NaN or inf"));
  EXPECT_TRUE(FailsWith("b.txt", "1 2 inf\n", 1, "NaN or inf"));
  EXPECT_TRUE(FailsWith("c.dat", "1::2::-INF::0\n", 1, "NaN or inf"));
  EXPECT_TRUE(FailsWith("d.txt", "1 2 1e999\n", 1, "out of the range"));
}

TEST_F(RatingsReader, DuplicatePairIsErrorNamingBothLines) {
  EXPECT_TRUE(FailsWith("a.txt", "1 2 3\n1 3 4\n5 6 7\n1 2 4\n", 4,
                        "duplicate rating for user 1 item 2 (first at line 1)"));
  // The csv header and blank lines count as lines.
  EXPECT_TRUE(FailsWith("b.csv", "u,i,r\n\n10,20,1\n10,20,1\n", 4, "(first at line 3)"));
}

TEST_F(RatingsReader, ReportsEarliestDuplicateInFileOrder) {
  // User 1 sorts first, but the pair of user 2 repeats earlier in the file.
  EXPECT_TRUE(FailsWith("a.txt", "1 1 1\n2 2 2\n2 2 3\n1 1 5\n2 2 4\n", 3,
                        "user 2 item 2 (first at line 2)"));
}

TEST_F(RatingsReader, HeaderIsErrorOutsideCsv) {
  EXPECT_TRUE(FailsWith("u.data", "user item rating\n1 2 3\n", 1, "header where none is expected"));
  EXPECT_TRUE(FailsWith("r.dat", "UserID::MovieID::Rating::Timestamp\n1::2::3::4\n", 1,
                        "header where none is expected"));
}

// A first line is a header only when none of its fields is a number: `I96,242,3` is a
// rating with a typo, reported, not a header silently skipped with its rating.
TEST_F(RatingsReader, AFirstLineWithANumericFieldIsNoHeader) {
  EXPECT_TRUE(FailsWith("typo.csv", "I96,242,3\n1,2,3\n", 1, "non-numeric user id 'I96'"));
  EXPECT_TRUE(FailsWith("typo.txt", "I96 242 3\n1 2 3\n", 1, "non-numeric user id 'I96'"));
  const RatingsFile file = ReadRatings(Write("h.csv", "user,item,rating,timestamp\n1,2,3,4\n"));
  EXPECT_EQ(file.ratings.size(), 1u);
}

// A message quotes at most 80 characters of a field, however long the field.
TEST_F(RatingsReader, AHugeFieldIsQuotedShort) {
  const std::string field(10'000'000, 'x');
  const std::string path = Write("huge.txt", "1 2 3\n" + field + " 2 3\n");
  try {
    ReadRatings(path);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_LT(message.size(), path.size() + 200) << message.substr(0, 300);
    EXPECT_NE(message.find("(10000000 characters)"), std::string::npos) << message.substr(0, 300);
    EXPECT_NE(message.find(":2: non-numeric user id 'xxxx"), std::string::npos);
  }
}

TEST_F(RatingsReader, CsvHeaderOnlyAllowedFirst) {
  EXPECT_TRUE(FailsWith("a.csv", "1,2,3\nuserId,movieId,rating\n", 2, "non-numeric user id"));
}

// --- Matrix Market errors ---------------------------------------------------------------

const char kMtxBanner[] = "%%MatrixMarket matrix coordinate real general\n";

TEST_F(RatingsReader, MatrixMarketRejectsUnsupportedTypes) {
  for (const char* banner : {"%%MatrixMarket matrix coordinate pattern general\n",
                             "%%MatrixMarket matrix coordinate real symmetric\n",
                             "%%MatrixMarket matrix array real general\n"}) {
    EXPECT_TRUE(FailsWith("t.mtx", std::string(banner) + "2 2 1\n1 1 1\n", 1, "unsupported"));
  }
}

TEST_F(RatingsReader, MatrixMarketNeedsSizeLine) {
  EXPECT_TRUE(FailsWith("s.mtx", std::string(kMtxBanner) + "% only comments\n", 0,
                        "missing Matrix Market size line"));
  EXPECT_TRUE(
      FailsWith("t.mtx", std::string(kMtxBanner) + "%\n3 3\n1 1 1\n", 3, "malformed size line"));
}

TEST_F(RatingsReader, MatrixMarketChecksIndexBounds) {
  const std::string head = std::string(kMtxBanner) + "3 4 2\n1 1 1\n";
  EXPECT_TRUE(FailsWith("a.mtx", head + "4 1 1\n", 4, "row index 4 outside 1..3"));
  EXPECT_TRUE(FailsWith("b.mtx", head + "1 5 1\n", 4, "column index 5 outside 1..4"));
  EXPECT_TRUE(FailsWith("c.mtx", head + "0 1 1\n", 4, "row index 0 outside"));
}

TEST_F(RatingsReader, MatrixMarketChecksEntryCount) {
  const std::string head = std::string(kMtxBanner) + "3 3 2\n1 1 1\n";
  EXPECT_TRUE(FailsWith("few.mtx", head, 0, "expected 2 entries"));
  EXPECT_TRUE(FailsWith("few2.mtx", head, 0, "found 1"));
  EXPECT_TRUE(FailsWith("many.mtx", head + "2 2 2\n3 3 3\n", 5, "more entries than the 2"));
}

TEST_F(RatingsReader, MatrixMarketChecksLinesAndDuplicates) {
  const std::string head = std::string(kMtxBanner) + "3 3 2\n1 1 1\n";
  EXPECT_TRUE(FailsWith("a.mtx", head + "2 2\n", 4, "expected 3 fields"));
  EXPECT_TRUE(FailsWith("b.mtx", head + "1 1 2\n", 4, "duplicate rating for user 1 item 1"));
  EXPECT_TRUE(FailsWith("c.mtx", head + "2 2 nan\n", 4, "NaN or inf"));
}

// --- Real data --------------------------------------------------------------------------

// --- Reading by byte range ------------------------------------------------------------

// The ratings of the file read as `parts` line-aligned ranges, each parsed on its own and
// numbered from its first line, then put back in order with global line numbers: what the
// loader does across ranks.
RatingsFile ReadInParts(const std::string& path, int parts, std::optional<RangeProblem>* problem) {
  const RatingsLayout layout = ReadRatingsLayout(path, RatingsFormat::kAuto);
  RatingsFile file{path, layout.format, {}};
  std::size_t first_line = layout.data_first_line;
  for (int p = 0; p < parts; ++p) {
    const ByteRange range =
        LineAlignedRange(path, ByteRange{layout.data_begin, layout.size}, p, parts);
    const RangeParseResult result = ParseRatingsRange(layout, range, [&](const RawRating& r) {
      file.ratings.push_back({r.user, r.item, r.value, first_line - 1 + r.line});
    });
    if (result.problem && !*problem)
      *problem = RangeProblem{first_line - 1 + result.problem->line, result.problem->problem};
    first_line += result.line_ends;
  }
  return file;
}

TEST_F(RatingsReader, RangesParsedApartGiveTheWholeFileWithItsLineNumbers) {
  const std::vector<std::pair<std::string, std::string>> files = {
      {"ws.txt", "\n196\t242\t3\n\n186 302 3.5\n22 377 1\n244 51 2"},
      {"h.csv", "\xEF\xBB\xBFuserId,movieId,rating\r\n1,2,3.5\r\n\r\n3,4,5\r\n5,6,1\r\n"},
      {"m.dat", "1::2::5::0\r\n3::4::1.5::0\r\n"},
      {"q.csv", "\"u\",\"i\",\"r\"\n\"1\",\"2\",\"3.5\"\n3,\"4\",5\n\n\"5\",6,\"1\"\n"},
      {"m.mtx",
       "%%MatrixMarket matrix coordinate real general\n% comment\n\n4 4 3\n1 1 5\n"
       "%x\n2 3 1\n4 4 2\n"}};
  for (const auto& [name, contents] : files) {
    const std::string path = Write(name, contents);
    const RatingsFile whole = ReadRatings(path);
    for (int parts = 1; parts <= static_cast<int>(contents.size()) + 1; ++parts) {
      std::optional<RangeProblem> problem;
      const RatingsFile pieces = ReadInParts(path, parts, &problem);
      EXPECT_FALSE(problem) << name << ", " << parts << " parts: " << problem->problem;
      ASSERT_EQ(pieces.ratings.size(), whole.ratings.size()) << name << ", " << parts << " parts";
      for (std::size_t k = 0; k < whole.ratings.size(); ++k) {
        EXPECT_EQ(pieces.ratings[k].user, whole.ratings[k].user);
        EXPECT_EQ(pieces.ratings[k].item, whole.ratings[k].item);
        EXPECT_EQ(pieces.ratings[k].value, whole.ratings[k].value);
        EXPECT_EQ(pieces.ratings[k].line, whole.ratings[k].line) << name << ", " << parts;
      }
    }
  }
}

TEST_F(RatingsReader, AProblemInARangeIsNumberedFromItsFirstLine) {
  const std::string path = Write("bad.txt", "1 2 3\n4 5 6\n7 8 9\n1 x 2\n");
  for (int parts = 1; parts <= 4; ++parts) {
    std::optional<RangeProblem> problem;
    ReadInParts(path, parts, &problem);
    ASSERT_TRUE(problem) << parts << " parts";
    EXPECT_EQ(problem->line, 4u) << parts << " parts";
    EXPECT_NE(problem->problem.find("non-numeric item id 'x'"), std::string::npos);
  }
}

TEST_F(RatingsReader, TheLayoutIsReadFromTheHeadOnly) {
  const RatingsLayout mm = ReadRatingsLayout(
      Write("h.mtx",
            "%%MatrixMarket matrix coordinate integer general\r\n%c\r\n2 2 1\r\n1 1 3\r\n"),
      RatingsFormat::kAuto);
  EXPECT_EQ(mm.format, RatingsFormat::kMatrixMarket);
  EXPECT_EQ(mm.data_first_line, 4u);
  ASSERT_TRUE(mm.matrix_size);
  EXPECT_EQ(mm.matrix_size->nnz, 1);
  EXPECT_EQ(mm.data_begin, mm.size - std::string("1 1 3\r\n").size());
  const RatingsLayout csv =
      ReadRatingsLayout(Write("b.csv", "\xEF\xBB\xBF\n\nu,i,r\n1,2,3\n"), RatingsFormat::kAuto);
  EXPECT_EQ(csv.format, RatingsFormat::kCsv);
  EXPECT_EQ(csv.data_begin, 3u);         // after the byte-order mark
  EXPECT_EQ(csv.first_data_offset, 5u);  // the header, where it may be
}

TEST(RatingsReaderSharedData, ReadsMl100kU1Base) {
  const std::string path = std::string(CAROUSEL_SHARED_DATA) + "/ml-100k/u1.base";
  if (!fs::exists(path)) GTEST_SKIP() << path << " not present";
  const RatingsFile file = ReadRatings(path);
  EXPECT_EQ(file.format, RatingsFormat::kWhitespace);
  ASSERT_EQ(file.ratings.size(), 80000u);
  ExpectRating(file.ratings.front(), 1, 1, 5.0, 1);
  const auto by_user = [](const RawRating& a, const RawRating& b) { return a.user < b.user; };
  const auto by_item = [](const RawRating& a, const RawRating& b) { return a.item < b.item; };
  EXPECT_EQ(std::max_element(file.ratings.begin(), file.ratings.end(), by_user)->user, 943);
  EXPECT_EQ(std::max_element(file.ratings.begin(), file.ratings.end(), by_item)->item, 1682);
  for (const RawRating& r : file.ratings) {
    ASSERT_TRUE(r.value >= 1.0 && r.value <= 5.0) << "line " << r.line;
  }
}

// --- (user, item) pairs: RatingField::kOptional (carousel predict --pairs) -------------

// Reads the file at `path` as (user, item) pairs.
RatingsFile ReadPairs(const std::string& path, RatingsFormat format = RatingsFormat::kAuto) {
  return ReadRatings(path, format, RatingField::kOptional);
}

TEST_F(RatingsReader, PairsMayOmitTheRatingInEveryFormat) {
  for (const auto& [name, contents] : std::vector<std::pair<std::string, std::string>>{
           {"p.txt", "196 242\n186\t302 3\n22 377 1 881250949\n"},
           {"p.dat", "196::242\n186::302::3\n22::377::1::881250949\n"},
           {"p.csv", "user,item\n196,242\n186,302,3\n22,377,1,881250949\n"},
           {"p.mtx",
            "%%MatrixMarket matrix coordinate real general\n300 400 3\n196 242\n186 302 3\n"
            "22 377 1\n"}}) {
    const RatingsFile file = ReadPairs(Write(name, contents));
    ASSERT_EQ(file.ratings.size(), 3u) << name;
    EXPECT_EQ(file.ratings[0].user, 196) << name;
    EXPECT_EQ(file.ratings[0].item, 242) << name;
    EXPECT_TRUE(std::isnan(file.ratings[0].value)) << name;
    EXPECT_EQ(file.ratings[1].user, 186) << name;
    EXPECT_DOUBLE_EQ(file.ratings[1].value, 3.0) << name;
    EXPECT_EQ(file.ratings[2].item, 377) << name;
  }
}

TEST_F(RatingsReader, PairsMayRepeat) {
  const RatingsFile file = ReadPairs(Write("p.txt", "1 2\n1 2\n"));
  EXPECT_EQ(file.ratings.size(), 2u);
}

TEST_F(RatingsReader, PairsStillCheckTheirFields) {
  const auto fails = [&](const std::string& name, const std::string& contents, std::size_t line,
                         const std::string& keyword) {
    const std::string path = Write(name, contents);
    try {
      ReadPairs(path);
    } catch (const Error& e) {
      const std::string message = e.what();
      const std::string where = path + ":" + std::to_string(line) + ": ";
      return e.code() == ExitCode::kInput && message.rfind(where, 0) == 0 &&
             message.find(keyword) != std::string::npos;
    }
    return false;
  };
  EXPECT_TRUE(fails("a.txt", "1 2\n3\n", 2, "expected 2 to 4 whitespace-separated fields"));
  EXPECT_TRUE(fails("b.txt", "1 2\n3 4 5 6 7\n", 2, "found 5"));
  EXPECT_TRUE(fails("c.csv", "1,2\nx,4\n", 2, "non-numeric user id 'x'"));
  EXPECT_TRUE(fails("d.txt", "1 2 abc\n", 1, "non-numeric rating 'abc'"));
  EXPECT_TRUE(fails("e.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1\n", 3,
                    "expected 2 or 3 fields"));
  const std::string empty = Write("f.csv", "user,item\n");
  try {
    ReadPairs(empty);
    ADD_FAILURE() << "no error for a file without pairs";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no (user, item) pairs"), std::string::npos) << e.what();
  }
}

TEST_F(RatingsReader, RatingsStillNeedTheirRating) {
  EXPECT_TRUE(FailsWith("a.txt", "1 2 3\n4 5\n", 2, "expected 3 or 4"));
}

}  // namespace
}  // namespace carousel::io
