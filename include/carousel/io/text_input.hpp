// Shared pieces of the text readers (ratings, corpora): reading a whole file, walking its
// lines with their numbers, blank handling, and "file:line" errors built only on failure.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "carousel/util/error.hpp"

namespace carousel::io {

// Where a problem is. The "file:line" string is only built when something is wrong:
// formatting it for each of millions of good lines would cost more than parsing them.
struct Location {
  const std::string& path;
  std::size_t line;
};

[[noreturn]] inline void Fail(const Location& at, const std::string& problem) {
  throw InputError(at.path + ":" + std::to_string(at.line), problem);
}

// A field quoted in a message: at most 80 characters of it, so that a 10 MB "field" (a
// binary file, a missing newline) does not end up on stderr whole.
inline std::string Quoted(std::string_view text) {
  constexpr std::size_t kMax = 80;
  if (text.size() <= kMax) return "'" + std::string(text) + "'";
  return "'" + std::string(text.substr(0, kMax)) + "...' (" + std::to_string(text.size()) +
         " characters)";
}

// ---------------------------------------------------------------------------------------
// Reading files and walking their lines.

// Reads a whole file; InputError(path, ...) if it cannot be opened or read.
std::string ReadWholeFile(const std::string& path);

inline std::string_view StripByteOrderMark(std::string_view text) {
  constexpr std::string_view kBom = "\xEF\xBB\xBF";
  if (text.substr(0, kBom.size()) == kBom) text.remove_prefix(kBom.size());
  return text;
}

// Yields the lines of a text without their "\n" or "\r\n", counting from 1. Copies are
// cheap, and a copy resumes where the original was.
class Lines {
 public:
  explicit Lines(std::string_view text) : rest_(text) {}

  bool Next(std::string_view* line) {
    if (rest_.empty()) return false;
    const std::size_t end = rest_.find('\n');
    *line = rest_.substr(0, end);
    rest_.remove_prefix(end == std::string_view::npos ? rest_.size() : end + 1);
    if (!line->empty() && line->back() == '\r') line->remove_suffix(1);
    ++number_;
    return true;
  }

  std::size_t number() const { return number_; }

 private:
  std::string_view rest_;
  std::size_t number_ = 0;
};

inline bool IsBlankChar(char c) {
  return c == ' ' || c == '\t' || c == '\r';
}

inline std::string_view Trim(std::string_view text) {
  while (!text.empty() && IsBlankChar(text.front())) text.remove_prefix(1);
  while (!text.empty() && IsBlankChar(text.back())) text.remove_suffix(1);
  return text;
}

inline bool IsBlankLine(std::string_view line) {
  return Trim(line).empty();
}

inline bool IsBlankText(std::string_view text) {
  return text.find_first_not_of(" \t\r\n") == std::string_view::npos;
}

}  // namespace carousel::io
