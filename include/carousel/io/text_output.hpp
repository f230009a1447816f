// Small pieces of the text outputs every command writes: the '#' comment header that
// records a run's configuration, and numbers in CSV cells.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace carousel::io {

// `# key: value` lines describing the run.
std::string CommentBlock(const std::vector<std::pair<std::string, std::string>>& entries);

// The shortest decimal text that reads back as exactly `value` (6.25e-07, 0.05, 1000):
// configuration headers print every real option this way, so a run can be reproduced
// from its header.
std::string FormatReal(double value);

// Appends the shortest text that reads back as exactly `value` (as FormatReal), "nan" for NaN.
void AppendCsvNumber(std::string& out, double value);

// Appends `value` in decimal, without the temporary string of std::to_string.
void AppendCsvInteger(std::string& out, std::int64_t value);

}  // namespace carousel::io
