#include "carousel/io/text_output.hpp"

#include <charconv>
#include <cmath>

namespace carousel::io {

std::string CommentBlock(const std::vector<std::pair<std::string, std::string>>& entries) {
  std::string out;
  for (const auto& [key, value] : entries) out += "# " + key + ": " + value + "\n";
  return out;
}

// std::to_chars, not printf's "%.17g": the same doubles read back, in fewer digits, 3.5 times
// faster (44 against 151 ns per number for ratings-like values; printf's digit generation
// was a fifth of a one-iteration ml-100k run, writing predictions.csv).
void AppendCsvNumber(std::string& out, double value) {
  if (std::isnan(value)) {
    out += "nan";
    return;
  }
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  out.append(buffer, result.ptr);
}

void AppendCsvInteger(std::string& out, std::int64_t value) {
  char buffer[24];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  out.append(buffer, result.ptr);
}

std::string FormatReal(double value) {
  std::string out;
  AppendCsvNumber(out, value);
  return out;
}

}  // namespace carousel::io
