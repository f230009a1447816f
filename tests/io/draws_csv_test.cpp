#include "carousel/io/draws_csv.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "carousel/util/error.hpp"
#include "scratch_dir_test.hpp"

namespace carousel::io {
namespace {

class DrawsCsvTest : public ScratchDirTest {
 protected:
  // The message of the InputError that reading `contents` throws ("" if none).
  std::string ErrorOf(const std::string& contents) {
    const std::string path = Write("bad.csv", contents);
    try {
      ReadDrawsCsv(path);
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::kInput);
      const std::string message = e.what();
      EXPECT_EQ(message.rfind(path, 0), 0u) << message;  // starts with the file
      return message.substr(path.size());
    }
    ADD_FAILURE() << "no error for:\n" << contents;
    return "";
  }
};

TEST_F(DrawsCsvTest, ReadsTheCmdStanLayout) {
  const std::string path = Write("chain-1.csv",
                                 "# model = bernoulli_model\n"
                                 "# seed = 4\n"
                                 "lp__,accept_stat__,theta.1,\"W[1,2]\"\n"
                                 "# Adaptation terminated\n"
                                 "# Step size = 0.9\n"
                                 "-7.1,0.9,0.25,1e-3\r\n"
                                 "\n"
                                 " -6.5 , 1 , +0.5 ,-2.5E+2\n"
                                 "-6.9,0.5,nan,inf\n"
                                 "#\n"
                                 "#  Elapsed Time: 0.005 seconds (Warm-up)\n");
  const DrawsCsv d = ReadDrawsCsv(path);
  EXPECT_EQ(d.columns, (std::vector<std::string>{"lp__", "accept_stat__", "theta.1", "W[1,2]"}));
  EXPECT_EQ(d.header_line, 3u);
  ASSERT_EQ(d.draws(), 3u);
  EXPECT_EQ(d.values[0], (std::vector<double>{-7.1, -6.5, -6.9}));
  EXPECT_EQ(d.values[2][1], 0.5);
  EXPECT_TRUE(std::isnan(d.values[2][2]));
  EXPECT_EQ(d.values[3], (std::vector<double>{1e-3, -250.0, INFINITY}));
  EXPECT_FALSE(d.partial_last_line);
}

TEST_F(DrawsCsvTest, AHeaderWithoutDrawsHasNone) {
  const DrawsCsv d = ReadDrawsCsv(Write("c.csv", "# just started\na,b\n"));
  EXPECT_EQ(d.columns.size(), 2u);
  EXPECT_EQ(d.draws(), 0u);
}

TEST_F(DrawsCsvTest, AnUnfinishedLastLineIsLeftOut) {
  const DrawsCsv d = ReadDrawsCsv(Write("c.csv", "a,b\n1,2\n3,4\n5,"));
  EXPECT_EQ(d.draws(), 2u);
  EXPECT_TRUE(d.partial_last_line);
  // A last line without its newline is left out even where it parses: it may be cut
  // within a number ("3,0.91" of "3,0.9145").
  const DrawsCsv cut = ReadDrawsCsv(Write("d.csv", "a,b\n1,2\n3,0.91"));
  EXPECT_EQ(cut.draws(), 1u);
  EXPECT_TRUE(cut.partial_last_line);
  EXPECT_FALSE(ReadDrawsCsv(Write("e.csv", "a,b\n1,2\n3,0.9145\n")).partial_last_line);
}

TEST_F(DrawsCsvTest, BadInputNamesFileAndLine) {
  EXPECT_EQ(ErrorOf("a,b\n1,2\n3\n4,5\n"), ":3: expected 2 fields (the header's columns), found 1");
  EXPECT_EQ(ErrorOf("a,b\n1,2,3\n"), ":2: expected 2 fields (the header's columns), found 3");
  EXPECT_EQ(ErrorOf("# c\na,b\n1,2\n1,x2\n"), ":4: column 2 (b): 'x2' is not a number");
  EXPECT_EQ(ErrorOf("a,b\n1,\n"), ":2: column 2 (b): '' is not a number");
  EXPECT_EQ(ErrorOf("a,b\n1,2\n3,4 5\n"), ":3: column 2 (b): '4 5' is not a number");
  EXPECT_EQ(ErrorOf("a,,b\n"), ":1: column 2 of the header has no name");
  EXPECT_EQ(ErrorOf("a,b,a\n"), ":1: column name 'a' appears twice (columns 1 and 3)");
  EXPECT_EQ(ErrorOf("# no header\n1.5,2\n3,4\n"),
            ":2: the first line that is not a comment holds numbers, not the header of column "
            "names");
  EXPECT_EQ(ErrorOf("# only comments\n\n"),
            ": no header line (column names) in a draws file: only comments or blank lines");
  EXPECT_EQ(ErrorOf("\"a,b\n"), ":1: unterminated quoted column name in the header");
}

TEST_F(DrawsCsvTest, AMissingFileIsAnInputError) {
  EXPECT_THROW(ReadDrawsCsv(Path("absent.csv")), Error);
}

}  // namespace
}  // namespace carousel::io
