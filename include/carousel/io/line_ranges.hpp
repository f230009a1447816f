// Cutting a text file into P byte ranges aligned to line starts, so that each rank reads
// and parses only its own (DESIGN.md section 8). Range p starts at the first line start
// at or after byte p * size / P, so every line lies in exactly one range, a CRLF pair is
// never split, and ranks agree on the cut without talking. A range's first line number is
// one plus the line ends of the ranges before it: a prefix sum of per-range counts, so
// error messages still name file:line.
//
// The rating loader (mf_loader.hpp) cuts the entries' part of a file this way and streams
// each range in chunks of whole lines, so a rank never holds its range's text whole.
//
// Bytes and sizes here are of the text the readers see (input_source.hpp): a gzip file's
// decompressed text, whose ranges are cut as the plain file's would be.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace carousel::io {

struct ByteRange {
  std::uint64_t begin = 0, end = 0;  // [begin, end)
};

// Range `part` of `parts` of the file `path`, of `size` bytes. Reads only a few bytes
// around the two cuts. InputError(path, ...) if the file cannot be read.
ByteRange LineAlignedRange(const std::string& path, std::uint64_t size, int part, int parts);

// The same within `whole` (which starts at a line start): part `part` of `parts` of the
// bytes [whole.begin, whole.end).
ByteRange LineAlignedRange(const std::string& path, const ByteRange& whole, int part, int parts);

// Reads `range` in pieces of about `chunk_bytes` and calls `consume` with each: whole lines
// (every piece but the last ends with '\n'; a line longer than a piece is passed whole), in
// order, so that the memory used is the piece, not the range.
void ReadRangeInPieces(const std::string& path, const ByteRange& range, std::size_t chunk_bytes,
                       const std::function<void(std::string_view)>& consume);

// The line ends ('\n') and the non-blank lines of `range` (line-aligned), streamed: what
// the ranks before a range must tell it for its line numbers and record indices.
struct LineCounts {
  std::uint64_t line_ends = 0;
  std::uint64_t non_blank = 0;
};
LineCounts CountLines(const std::string& path, const ByteRange& range);

// The bytes [range.begin, range.end) of `path`.
std::string ReadFileRange(const std::string& path, const ByteRange& range);

// The size of `path`'s text in bytes (for gzip, a pass over the file); InputError(path, ...)
// for a missing file or a directory.
std::uint64_t FileSize(const std::string& path);

}  // namespace carousel::io
