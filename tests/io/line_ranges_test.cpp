#include "carousel/io/line_ranges.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "carousel/util/error.hpp"

namespace carousel::io {
namespace {

class LineRangesTest : public ::testing::Test {
 protected:
  std::string Write(const std::string& text) {
    path_ = (std::filesystem::temp_directory_path() /
             ("carousel_line_ranges_" + std::to_string(::getpid()) + ".txt"))
                .string();
    std::ofstream(path_, std::ios::binary) << text;
    return path_;
  }
  void TearDown() override { std::filesystem::remove(path_); }
  std::string path_;
};

// Every cut is a line start, the ranges tile the file in order, and together they hold it.
void ExpectLineAlignedTiling(const std::string& path, const std::string& text, int parts) {
  std::string joined;
  std::uint64_t previous_end = 0;
  for (int p = 0; p < parts; ++p) {
    const ByteRange r = LineAlignedRange(path, text.size(), p, parts);
    EXPECT_EQ(r.begin, previous_end) << "part " << p << " of " << parts;
    EXPECT_TRUE(r.begin == 0 || r.begin == text.size() || text[r.begin - 1] == '\n')
        << "part " << p << " of " << parts << " starts mid-line at " << r.begin;
    joined += ReadFileRange(path, r);
    previous_end = r.end;
  }
  EXPECT_EQ(previous_end, text.size());
  EXPECT_EQ(joined, text) << parts << " parts";
}

TEST_F(LineRangesTest, RangesTileTheFileAtLineStartsForAnyNumberOfParts) {
  const std::string text =
      "user,item,rating\r\n1,2,5\r\n10,20,3.5\r\n\r\n100,200,1\r\n7,8,2";  // header, CRLF, no final
                                                                           // EOL
  const std::string path = Write(text);
  for (int parts = 1; parts <= static_cast<int>(text.size()) + 2; ++parts)
    ExpectLineAlignedTiling(path, text, parts);
}

TEST_F(LineRangesTest, ACutInsideALineOrACrlfPairMovesToTheNextLineStart) {
  const std::string text = "1 2 5\r\n3 4 1\r\n";  // 14 bytes: '\r' at 5, '\n' at 6
  const std::string path = Write(text);
  // 2 parts cut nominally at byte 7, a line start: kept.
  EXPECT_EQ(LineAlignedRange(path, text.size(), 1, 2).begin, 7u);
  // 7 parts cut part 3 nominally at byte 6, between '\r' and '\n': moved past the '\n'.
  EXPECT_EQ(LineAlignedRange(path, text.size(), 3, 7).begin, 7u);
  // 14 parts cut part 2 at byte 2, inside the first line: moved to the second line.
  EXPECT_EQ(LineAlignedRange(path, text.size(), 2, 14).begin, 7u);
  // Parts whose cut falls in the last line are empty.
  const ByteRange last = LineAlignedRange(path, text.size(), 13, 14);
  EXPECT_EQ(last.begin, last.end);
}

TEST_F(LineRangesTest, RangesWithinAPartStartAtItsBeginAndTileIt) {
  // A Matrix Market head (banner, size line) the entries' part starts after.
  const std::string head = "%%MatrixMarket matrix coordinate real general\n3 3 3\n";
  const std::string text = head + "1 1 5\r\n2 2 1\r\n3 3 2";
  const std::string path = Write(text);
  const ByteRange whole{head.size(), text.size()};
  for (int parts = 1; parts <= 12; ++parts) {
    std::string joined;
    std::uint64_t previous_end = whole.begin;
    for (int p = 0; p < parts; ++p) {
      const ByteRange r = LineAlignedRange(path, whole, p, parts);
      EXPECT_EQ(r.begin, previous_end) << "part " << p << " of " << parts;
      EXPECT_TRUE(r.begin == whole.begin || r.begin == text.size() || text[r.begin - 1] == '\n');
      joined += ReadFileRange(path, r);
      previous_end = r.end;
    }
    EXPECT_EQ(joined, text.substr(head.size())) << parts << " parts";
  }
}

// Pieces are whole lines (a CRLF pair is never split), in order, whatever the piece size;
// a line longer than a piece comes whole.
TEST_F(LineRangesTest, PiecesAreWholeLinesWhateverThePieceSize) {
  const std::string text = "1 2 5\r\n10 20 3.5\r\n" + std::string(40, '7') + " 1 1\n\n4 5 6";
  const std::string path = Write(text);
  for (std::size_t piece = 1; piece <= text.size() + 1; ++piece) {
    std::string joined;
    std::vector<std::string> pieces;
    ReadRangeInPieces(path, ByteRange{0, text.size()}, piece, [&](std::string_view p) {
      pieces.emplace_back(p);
      joined += p;
    });
    EXPECT_EQ(joined, text) << "piece size " << piece;
    for (std::size_t k = 0; k + 1 < pieces.size(); ++k)
      EXPECT_EQ(pieces[k].back(), '\n') << "piece size " << piece << ", piece " << k;
  }
}

TEST_F(LineRangesTest, AMissingFileOrADirectoryIsAnInputError) {
  EXPECT_THROW(FileSize("/nonexistent/carousel.txt"), Error);
  EXPECT_THROW(FileSize(std::filesystem::temp_directory_path().string()), Error);
}

}  // namespace
}  // namespace carousel::io
