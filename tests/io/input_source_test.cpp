#include "carousel/io/input_source.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "carousel/io/line_ranges.hpp"
#include "carousel/io/text_input.hpp"
#include "carousel/util/error.hpp"

#include "scratch_dir_test.hpp"

namespace carousel::io {
namespace {

namespace fs = std::filesystem;

// Lines of ratings with CRLF ends, blank lines and a line far longer than a read buffer:
// about 1.3 MB, so that reaching a range means decompressing past many buffers.
std::string SampleText() {
  std::string text;
  for (int i = 0; i < 60000; ++i) {
    text += std::to_string(i) + " " + std::to_string(i * 7 % 1000) + " " +
            std::to_string(i % 5 + 1) + (i % 3 == 0 ? "\r\n" : "\n");
    if (i % 1000 == 0) text += "\n";
    if (i == 30000) text += std::string(300000, '7') + " 1 1\n";
  }
  return text + "7 8 9";  // no final line end
}

class GzipInput : public ScratchDirTest {
 protected:
  // Each of `members` compressed as one gzip member, one after the other (what `cat a.gz
  // b.gz` makes).
  std::string WriteGzip(const std::string& name, const std::vector<std::string>& members) {
    const std::string path = Path(name);
    fs::remove(path);
    for (const std::string& member : members) {
      gzFile file = gzopen(path.c_str(), "ab");
      EXPECT_NE(file, nullptr);
      EXPECT_EQ(gzwrite(file, member.data(), static_cast<unsigned>(member.size())),
                static_cast<int>(member.size()));
      EXPECT_EQ(gzclose(file), Z_OK);
    }
    return path;
  }

  static std::string Bytes(const std::string& path) { return ReadWholeFile(path); }

  // The message of the InputError that `f` throws, or "" for none.
  template <typename F>
  static std::string ErrorOf(F&& f) {
    try {
      f();
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::kInput) << e.what();
      return e.what();
    }
    return "";
  }
};

// What every reader sees through line_ranges.hpp is the same text, cut the same way,
// whether the file is gzip or not.
void ExpectSameText(const std::string& plain, const std::string& gzip, const std::string& text) {
  ASSERT_EQ(FileSize(plain), text.size());
  ASSERT_EQ(FileSize(gzip), text.size());
  EXPECT_EQ(ReadWholeFile(gzip), text);
  for (int parts : {1, 2, 3, 7}) {
    std::string joined;
    for (int p = 0; p < parts; ++p) {
      const ByteRange range = LineAlignedRange(plain, text.size(), p, parts);
      const ByteRange gz = LineAlignedRange(gzip, text.size(), p, parts);
      EXPECT_EQ(gz.begin, range.begin) << p << " of " << parts;
      EXPECT_EQ(gz.end, range.end) << p << " of " << parts;
      EXPECT_EQ(ReadFileRange(gzip, gz), ReadFileRange(plain, range));
      const LineCounts a = CountLines(plain, range), b = CountLines(gzip, gz);
      EXPECT_EQ(b.line_ends, a.line_ends);
      EXPECT_EQ(b.non_blank, a.non_blank);
      ReadRangeInPieces(gzip, gz, 1 << 16, [&](std::string_view piece) { joined += piece; });
    }
    EXPECT_EQ(joined, text) << parts << " parts";
  }
}

TEST_F(GzipInput, AGzipFileReadsAsItsText) {
  const std::string text = SampleText();
  ExpectSameText(Write("plain.txt", text), WriteGzip("ratings.gz", {text}), text);
}

// gzip is known by its first bytes: a gzip file named .txt is decompressed, a text file
// named .gz is read as it is.
TEST_F(GzipInput, GzipIsKnownByItsMagicBytesNotItsName) {
  const std::string text = "1 2 3\n4 5 6\n";
  EXPECT_EQ(Bytes(WriteGzip("ratings.txt", {text})), text);
  EXPECT_EQ(Bytes(Write("ratings.gz", text)), text);
  EXPECT_EQ(FileSize(Write("one.txt", "\x1f")), 1u);  // too short to be gzip
}

TEST_F(GzipInput, ConcatenatedMembersReadAsOneText) {
  const std::string text = SampleText();
  const std::size_t cut = text.size() / 3 + 5;  // mid-line: the text runs on across members
  const std::string gzip =
      WriteGzip("cat.gz", {text.substr(0, cut), "", text.substr(cut, 100), text.substr(cut + 100)});
  ExpectSameText(Write("plain.txt", text), gzip, text);
}

TEST_F(GzipInput, AnEmptyGzipFileIsEmpty) {
  EXPECT_EQ(FileSize(WriteGzip("empty.gz", {""})), 0u);
}

TEST_F(GzipInput, ATruncatedGzipFileIsAnInputErrorNamingIt) {
  const std::string gzip = WriteGzip("full.gz", {SampleText()});
  std::ifstream in(gzip, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string cut = Write("cut.txt", bytes.substr(0, bytes.size() / 2));
  for (const std::string& message :
       {ErrorOf([&] { FileSize(cut); }), ErrorOf([&] { ReadWholeFile(cut); }), ErrorOf([&] {
          ReadFileRange(cut, ByteRange{0, 1000000});
        })}) {
    EXPECT_EQ(message.rfind(cut + ": cannot decompress: unexpected end of file", 0), 0u) << message;
  }
  // Only the trailer missing (its CRC and length): still an error.
  const std::string no_trailer = Write("no_trailer.gz", bytes.substr(0, bytes.size() - 8));
  EXPECT_NE(ErrorOf([&] { FileSize(no_trailer); }), "");
}

TEST_F(GzipInput, CorruptGzipDataIsAnInputErrorWithZlibsWords) {
  const std::string gzip = WriteGzip("full.gz", {SampleText()});
  std::ifstream in(gzip, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (std::size_t i = 2000; i < 2100; ++i) bytes[i] = static_cast<char>(bytes[i] ^ 0x55);
  const std::string bad = Write("bad.gz", bytes);
  const std::string message = ErrorOf([&] { FileSize(bad); });
  EXPECT_EQ(message.rfind(bad + ": cannot decompress: ", 0), 0u) << message;
  EXPECT_NE(message.find("(a corrupt or truncated gzip file)"), std::string::npos) << message;
  // Not a gzip stream after the magic bytes.
  const std::string fake = Write("fake.gz", std::string("\x1f\x8b") + "not deflate at all\n");
  EXPECT_NE(ErrorOf([&] { FileSize(fake); }).find(fake + ": cannot decompress: "),
            std::string::npos);
}

// A pipe cannot seek back over the bytes taken to look for gzip's: a plain text still
// reads whole (ReadWholeFile: --vocab <(...)), gzip is refused by name.
TEST_F(GzipInput, APipeReadsAsPlainText) {
  const std::string fifo = (fs::path(dir_) / "fifo").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::thread writer([&] { std::ofstream(fifo, std::ios::binary) << "alpha\nbeta\n"; });
  EXPECT_EQ(ReadWholeFile(fifo), "alpha\nbeta\n");
  writer.join();
  std::thread gzip_writer([&] { std::ofstream(fifo, std::ios::binary) << "\x1f\x8b\x08rest"; });
  EXPECT_NE(ErrorOf([&] { ReadWholeFile(fifo); }).find("from a pipe"), std::string::npos);
  gzip_writer.join();
}

TEST_F(GzipInput, AMissingFileOrADirectoryIsAnInputError) {
  EXPECT_EQ(ErrorOf([&] { InputSource::Open(dir_ + "/missing"); }),
            dir_ + "/missing: cannot open: No such file or directory");
  EXPECT_EQ(ErrorOf([&] { InputSource::Open(dir_); }), dir_ + ": cannot read: Is a directory");
}

}  // namespace
}  // namespace carousel::io
