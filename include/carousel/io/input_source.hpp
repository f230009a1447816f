// The bytes of an input file as the readers see them. A gzip file, known by its first two
// bytes (1f 8b) whatever its name, is seen as the text it decompresses to (members of a
// concatenated file one after the other, as gunzip writes them); any other file as it is.
// Offsets and sizes are of those bytes, so the byte ranges each rank reads (DESIGN.md
// section 8, line_ranges.hpp) cut the same text whether the file is compressed or not.
//
// What gzip costs: a deflate stream cannot be entered in the middle, so reaching byte n
// means decompressing the n bytes before it, and the size is a pass over the whole file.
// Every rank therefore decompresses the stream once for the size and again up to the end of
// its range (for each cut and for the range itself): the time grows with the file, not with
// the rank's share, while memory stays a buffer. For the largest inputs, decompress first.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace carousel::io {

class InputSource {
 public:
  // Opens `path`. InputError(path, ...) if it cannot be opened or read.
  static std::unique_ptr<InputSource> Open(const std::string& path);

  virtual ~InputSource() = default;

  // The number of bytes the readers see (for gzip, a pass over the whole stream).
  virtual std::uint64_t Size() = 0;

  // Moves to byte `offset` (within Size()).
  virtual void Seek(std::uint64_t offset) = 0;

  // Reads up to `bytes` bytes at the current position; fewer only at the end. Throws
  // InputError(path, ...) if the file cannot be read, or for gzip data that is corrupt or
  // cut short (with zlib's words for what is wrong).
  virtual std::size_t Read(char* buffer, std::size_t bytes) = 0;
};

}  // namespace carousel::io
