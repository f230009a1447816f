#include "carousel/io/line_ranges.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <system_error>

#include "carousel/util/error.hpp"

namespace carousel::io {
namespace {

using File = std::unique_ptr<std::FILE, int (*)(std::FILE*)>;

File Open(const std::string& path) {
  errno = 0;
  File file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file) throw InputError(path, std::string("cannot open: ") + std::strerror(errno));
  return file;
}

void Seek(std::FILE* file, const std::string& path, std::uint64_t offset) {
  if (std::fseek(file, static_cast<long>(offset), SEEK_SET) != 0)
    throw InputError(path, std::string("cannot read: ") + std::strerror(errno));
}

// The first line start at or after `offset`: offset itself if the byte before it ends a
// line, else the byte after the next '\n' (or `size` when no line starts later).
std::uint64_t LineStartAtOrAfter(const std::string& path, std::uint64_t size,
                                 std::uint64_t offset) {
  if (offset == 0 || offset >= size) return offset >= size ? size : 0;
  File file = Open(path);
  Seek(file.get(), path, offset - 1);
  constexpr std::size_t kChunk = 4096;
  char buffer[kChunk];
  std::uint64_t at = offset - 1;
  for (;;) {
    const std::size_t got = std::fread(buffer, 1, kChunk, file.get());
    if (got == 0) {
      if (std::ferror(file.get()))
        throw InputError(path, std::string("cannot read: ") + std::strerror(errno));
      return size;
    }
    if (const void* nl = std::memchr(buffer, '\n', got))
      return at + static_cast<std::uint64_t>(static_cast<const char*>(nl) - buffer) + 1;
    at += got;
  }
}

}  // namespace

std::uint64_t FileSize(const std::string& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error))
    throw InputError(path, "cannot read: Is a directory");
  const auto size = std::filesystem::file_size(path, error);
  if (error) throw InputError(path, "cannot open: " + error.message());
  return size;
}

ByteRange LineAlignedRange(const std::string& path, std::uint64_t size, int part, int parts) {
  auto nominal = [&](int p) {
    return static_cast<std::uint64_t>(static_cast<unsigned __int128>(size) *
                                      static_cast<unsigned>(p) / static_cast<unsigned>(parts));
  };
  ByteRange range;
  range.begin = LineStartAtOrAfter(path, size, nominal(part));
  range.end = part + 1 == parts ? size : LineStartAtOrAfter(path, size, nominal(part + 1));
  if (range.end < range.begin) range.end = range.begin;
  return range;
}

std::string ReadFileRange(const std::string& path, const ByteRange& range) {
  std::string text(range.end - range.begin, '\0');
  if (text.empty()) return text;
  File file = Open(path);
  Seek(file.get(), path, range.begin);
  if (std::fread(text.data(), 1, text.size(), file.get()) != text.size())
    throw InputError(path, std::string("cannot read: ") +
                               (std::ferror(file.get()) ? std::strerror(errno) : "file shrank"));
  return text;
}

}  // namespace carousel::io
