#include "carousel/io/input_source.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "carousel/util/error.hpp"
#include "gzip_source.hpp"

namespace carousel::io {
namespace {

using File = std::unique_ptr<std::FILE, int (*)(std::FILE*)>;

[[noreturn]] void FailToRead(const std::string& path) {
  throw InputError(path, std::string("cannot read: ") + std::strerror(errno));
}

// A file read as it is, through stdio: what every reader did before gzip was known.
// `taken`: the bytes Open took off the front of a stream that cannot seek back (a pipe),
// read again first.
class PlainSource final : public InputSource {
 public:
  PlainSource(const std::string& path, File file, std::string taken)
      : path_(path), file_(std::move(file)), taken_(std::move(taken)) {}

  std::uint64_t Size() override {
    struct stat info {};
    if (::fstat(::fileno(file_.get()), &info) != 0) FailToRead(path_);
    return static_cast<std::uint64_t>(info.st_size);
  }

  void Seek(std::uint64_t offset) override {
    if (::fseeko(file_.get(), static_cast<off_t>(offset), SEEK_SET) != 0) FailToRead(path_);
  }

  std::size_t Read(char* buffer, std::size_t bytes) override {
    const std::size_t given = taken_.copy(buffer, bytes);
    taken_.erase(0, given);
    const std::size_t got = std::fread(buffer + given, 1, bytes - given, file_.get());
    if (given + got < bytes && std::ferror(file_.get())) FailToRead(path_);
    return given + got;
  }

 private:
  std::string path_;
  File file_;
  std::string taken_;
};

}  // namespace

std::unique_ptr<InputSource> InputSource::Open(const std::string& path) {
  errno = 0;
  File file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file) throw InputError(path, std::string("cannot open: ") + std::strerror(errno));
  // The format is in the first bytes, not the name: "ratings.txt" may be gzip, and
  // "ratings.gz" may have been decompressed in place.
  unsigned char magic[2] = {0, 0};
  const std::size_t got = std::fread(magic, 1, sizeof magic, file.get());
  if (got < sizeof magic && std::ferror(file.get())) FailToRead(path);  // a directory: EISDIR
  const bool seekable = ::fseeko(file.get(), 0, SEEK_SET) == 0;
  if (got == sizeof magic && magic[0] == 0x1f && magic[1] == 0x8b) {
    if (!seekable)
      throw InputError(path, "cannot read gzip data from a pipe: decompress it into the pipe");
    return OpenGzipSource(path);
  }
  std::string taken = seekable ? "" : std::string(reinterpret_cast<const char*>(magic), got);
  return std::make_unique<PlainSource>(path, std::move(file), std::move(taken));
}

}  // namespace carousel::io
