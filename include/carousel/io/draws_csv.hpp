// Reading a chain's draws in CmdStan's CSV layout, for `carousel summary`.
//
// The layout (CmdStan's output.csv, and what Carousel writes to OUT/draws/chain-<n>.csv):
// - lines whose first non-blank character is '#' are comments, wherever they are: the
//   configuration block at the top, CmdStan's adaptation block between the header and the
//   draws, and its timing footer after them;
// - blank lines are skipped;
// - the first other line is the header: comma-separated column names, unique and not
//   empty (a name may be enclosed in double quotes, with "" for a quote inside);
// - every further line is one draw: as many comma-separated numbers as there are columns
//   (decimal or exponent notation as strtod reads it; nan, inf and -inf are accepted).
// Lines may end in "\n" or "\r\n"; a byte-order mark at the start is skipped, and a
// gzip-compressed file is read as its contents.
//
// Every problem throws carousel::InputError naming file:line (a missing header, a name that
// is empty or repeated, a draw with the wrong number of fields, a field that is not a
// number), except that an unterminated last line is dropped and reported in
// `partial_last_line`: it is the draw being written while a run is going on, and may have
// been cut within a number that still parses ("0.91" of "0.9145").
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace carousel::io {

struct DrawsCsv {
  std::string path;
  std::vector<std::string> columns;         // the header's names, in file order
  std::vector<std::vector<double>> values;  // values[column][draw], draws in file order
  std::size_t header_line = 0;              // 1-based line of the header
  bool partial_last_line = false;           // an unterminated last line was dropped

  std::size_t draws() const { return values.empty() ? 0 : values.front().size(); }
};

// Reads `path`. A file with a header and no draws is returned with draws() == 0.
DrawsCsv ReadDrawsCsv(const std::string& path);

}  // namespace carousel::io
