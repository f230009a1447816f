#include "carousel/io/line_ranges.hpp"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <memory>
#include <system_error>

#include "carousel/io/input_source.hpp"
#include "carousel/io/text_input.hpp"
#include "carousel/util/error.hpp"

namespace carousel::io {
namespace {

std::unique_ptr<InputSource> OpenAt(const std::string& path, std::uint64_t offset) {
  std::unique_ptr<InputSource> source = InputSource::Open(path);
  source->Seek(offset);
  return source;
}

// The first line start at or after `offset`: offset itself if the byte before it ends a
// line, else the byte after the next '\n' (or `size` when no line starts later).
std::uint64_t LineStartAtOrAfter(const std::string& path, std::uint64_t size,
                                 std::uint64_t offset) {
  if (offset == 0 || offset >= size) return offset >= size ? size : 0;
  const std::unique_ptr<InputSource> source = OpenAt(path, offset - 1);
  constexpr std::size_t kChunk = 4096;
  char buffer[kChunk];
  std::uint64_t at = offset - 1;
  for (;;) {
    const std::size_t got = source->Read(buffer, kChunk);
    if (got == 0) return size;
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
  return InputSource::Open(path)->Size();
}

ByteRange LineAlignedRange(const std::string& path, std::uint64_t size, int part, int parts) {
  return LineAlignedRange(path, ByteRange{0, size}, part, parts);
}

ByteRange LineAlignedRange(const std::string& path, const ByteRange& whole, int part, int parts) {
  const std::uint64_t length = whole.end - whole.begin;
  auto nominal = [&](int p) {
    return whole.begin +
           static_cast<std::uint64_t>(static_cast<unsigned __int128>(length) *
                                      static_cast<unsigned>(p) / static_cast<unsigned>(parts));
  };
  // A cut exactly at whole.begin is a line start by contract (LineStartAtOrAfter cannot see
  // the byte before it as the end of a line when it belongs to a header).
  auto start = [&](std::uint64_t offset) {
    return offset == whole.begin ? offset : LineStartAtOrAfter(path, whole.end, offset);
  };
  ByteRange range;
  range.begin = start(nominal(part));
  range.end = part + 1 == parts ? whole.end : start(nominal(part + 1));
  if (range.end < range.begin) range.end = range.begin;
  return range;
}

void ReadRangeInPieces(const std::string& path, const ByteRange& range, std::size_t chunk_bytes,
                       const std::function<void(std::string_view)>& consume) {
  if (range.end <= range.begin) return;
  const std::unique_ptr<InputSource> source = OpenAt(path, range.begin);
  std::string buffer;
  std::uint64_t left = range.end - range.begin;
  std::size_t kept = 0;  // bytes of an unfinished line carried over from the last piece
  while (left > 0) {
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(chunk_bytes, left));
    buffer.resize(kept + want);
    if (source->Read(buffer.data() + kept, want) != want)
      throw InputError(path, "cannot read: file shrank");
    left -= want;
    const std::size_t filled = kept + want;
    const std::size_t last_newline = std::string_view(buffer.data(), filled).rfind('\n');
    if (left == 0 || last_newline == std::string_view::npos) {
      if (left > 0) {  // one line longer than a piece: keep reading it
        kept = filled;
        continue;
      }
      consume(std::string_view(buffer.data(), filled));
      return;
    }
    consume(std::string_view(buffer.data(), last_newline + 1));
    kept = filled - (last_newline + 1);
    std::memmove(buffer.data(), buffer.data() + last_newline + 1, kept);
  }
}

LineCounts CountLines(const std::string& path, const ByteRange& range) {
  LineCounts counts;
  ReadRangeInPieces(path, range, std::size_t{16} << 20, [&](std::string_view piece) {
    Lines lines(piece);
    std::string_view line;
    while (lines.Next(&line)) counts.non_blank += IsBlankLine(line) ? 0 : 1;
    counts.line_ends += static_cast<std::uint64_t>(std::count(piece.begin(), piece.end(), '\n'));
  });
  return counts;
}

std::string ReadFileRange(const std::string& path, const ByteRange& range) {
  std::string text(range.end - range.begin, '\0');
  if (text.empty()) return text;
  if (OpenAt(path, range.begin)->Read(text.data(), text.size()) != text.size())
    throw InputError(path, "cannot read: file shrank");
  return text;
}

}  // namespace carousel::io
