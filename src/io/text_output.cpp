#include "carousel/io/text_output.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace carousel::io {

std::string CommentBlock(const std::vector<std::pair<std::string, std::string>>& entries) {
  std::string out;
  for (const auto& [key, value] : entries) out += "# " + key + ": " + value + "\n";
  return out;
}

std::string FormatReal(double value) {
  if (std::isnan(value)) return "nan";
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

void AppendCsvNumber(std::string& out, double value) {
  if (std::isnan(value)) {
    out += "nan";
    return;
  }
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.17g", value);
  out += buffer;
}

}  // namespace carousel::io
