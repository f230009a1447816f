#include "gzip_source.hpp"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>

#include "carousel/util/error.hpp"

namespace carousel::io {
namespace {

// Offsets past 4 GiB of text must reach gzseek whole.
static_assert(sizeof(z_off_t) >= sizeof(std::uint64_t), "zlib without 64-bit offsets");

// A gzip file through zlib's gzFile, which reads concatenated members as one stream and
// checks each member's CRC and length. Seeking forward decompresses and discards; seeking
// back starts over from the beginning.
class GzipSource final : public InputSource {
 public:
  GzipSource(const std::string& path, gzFile file) : path_(path), file_(file) {}
  ~GzipSource() override { gzclose(file_); }
  GzipSource(const GzipSource&) = delete;
  GzipSource& operator=(const GzipSource&) = delete;

  // Nothing in the file gives the size of the text (a member's trailer holds it modulo
  // 2^32, for that member only), so it is counted. Called once per file and process: by
  // the layout of the file (ReadRatingsLayout, ReadCorpusLayout).
  std::uint64_t Size() override {
    Seek(0);
    std::string scratch(std::size_t{1} << 20, '\0');
    std::uint64_t size = 0;
    while (const std::size_t got = Read(scratch.data(), scratch.size())) size += got;
    Seek(0);
    return size;
  }

  void Seek(std::uint64_t offset) override {
    if (gzseek(file_, static_cast<z_off_t>(offset), SEEK_SET) < 0) Fail();
  }

  std::size_t Read(char* buffer, std::size_t bytes) override {
    std::size_t total = 0;
    while (total < bytes) {
      // gzread takes an unsigned count and returns an int.
      const auto want = static_cast<unsigned>(
          std::min<std::size_t>(bytes - total, std::numeric_limits<int>::max()));
      const int got = gzread(file_, buffer + total, want);
      if (got < 0) Fail();
      if (got == 0) {
        // The end of the data, or a stream cut short: zlib reads what there is and keeps
        // "unexpected end of file" aside, to be asked for.
        int error = Z_OK;
        gzerror(file_, &error);
        if (error != Z_OK) Fail();
        break;
      }
      total += static_cast<std::size_t>(got);
    }
    return total;
  }

 private:
  [[noreturn]] void Fail() {
    int error = Z_OK;
    const char* message = gzerror(file_, &error);
    if (error == Z_ERRNO)
      throw InputError(path_, std::string("cannot read: ") + std::strerror(errno));
    std::string text = message ? message : "unknown zlib error";
    const std::string prefix = path_ + ": ";  // zlib names the file itself
    if (text.compare(0, prefix.size(), prefix) == 0) text.erase(0, prefix.size());
    throw InputError(path_, "cannot decompress: " + text + " (a corrupt or truncated gzip file)");
  }

  std::string path_;
  gzFile file_;
};

}  // namespace

std::unique_ptr<InputSource> OpenGzipSource(const std::string& path) {
  errno = 0;
  gzFile file = gzopen(path.c_str(), "rb");
  if (file == nullptr) throw InputError(path, std::string("cannot open: ") + std::strerror(errno));
  // zlib's default 8 KiB input buffer costs a read call per 8 KiB.
  gzbuffer(file, 1 << 17);
  return std::make_unique<GzipSource>(path, file);
}

}  // namespace carousel::io
