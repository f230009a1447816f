// Small pieces of the text outputs every command writes: the '#' comment header that
// records a run's configuration, and numbers in CSV cells.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace carousel::io {

// `# key: value` lines describing the run.
std::string CommentBlock(const std::vector<std::pair<std::string, std::string>>& entries);

// Appends `value` with 17 significant digits (round-trips a double), "nan" for NaN.
void AppendCsvNumber(std::string& out, double value);

}  // namespace carousel::io
