// Cutting a text file into P byte ranges aligned to line starts, so that each rank reads
// and parses only its own (DESIGN.md section 8). Range p starts at the first line start
// at or after byte p * size / P, so every line lies in exactly one range, a CRLF pair is
// never split, and ranks agree on the cut without talking. A range's first line number is
// one plus the line ends of the ranges before it: a prefix sum of per-range counts, so
// error messages still name file:line.
//
// Groundwork for reading by rank (issue #11), not yet used by the readers: gathering
// every rank's parsed ratings on every rank was measured to cost more memory than each rank
// reading the whole file (1907 against 1669 MiB per rank at P = 2 on 25M ratings), so the
// ranges become useful once the entries go, by an all-to-all, only to the rank that owns
// their tile.
#pragma once

#include <cstdint>
#include <string>

namespace carousel::io {

struct ByteRange {
  std::uint64_t begin = 0, end = 0;  // [begin, end)
};

// Range `part` of `parts` of the file `path`, of `size` bytes. Reads only a few bytes
// around the two cuts. InputError(path, ...) if the file cannot be read.
ByteRange LineAlignedRange(const std::string& path, std::uint64_t size, int part, int parts);

// The bytes [range.begin, range.end) of `path`.
std::string ReadFileRange(const std::string& path, const ByteRange& range);

// The size of `path` in bytes; InputError(path, ...) for a missing file or a directory.
std::uint64_t FileSize(const std::string& path);

}  // namespace carousel::io
