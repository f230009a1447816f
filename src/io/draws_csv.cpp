#include "carousel/io/draws_csv.hpp"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <optional>
#include <string_view>
#include <system_error>
#include <unordered_map>

#include "carousel/io/text_input.hpp"

namespace carousel::io {
namespace {

bool IsComment(std::string_view line) {
  const std::string_view text = Trim(line);
  return !text.empty() && text.front() == '#';
}

// Parses one number; nullopt when `field` is not one.
std::optional<double> ParseNumber(std::string_view field) {
  if (field.size() > 1 && field.front() == '+' && field[1] != '-') field.remove_prefix(1);
  if (field.empty()) return std::nullopt;
  double value = 0.0;
  const char* last = field.data() + field.size();
  const auto [end, error] = std::from_chars(field.data(), last, value);
  if (end != last) return std::nullopt;
  // Out of range: from_chars leaves `value` alone; strtod's answer (+-HUGE_VAL or 0) is right.
  if (error == std::errc::result_out_of_range)
    return std::strtod(std::string(field).c_str(), nullptr);
  if (error != std::errc()) return std::nullopt;
  return value;
}

// The header's names: comma-separated, each trimmed and, when wholly enclosed in double
// quotes, unquoted ("" inside stands for one quote).
std::vector<std::string> ParseHeader(std::string_view line, const Location& at) {
  std::vector<std::string> names;
  std::size_t pos = 0;
  for (;;) {
    std::size_t start = pos;
    while (start < line.size() && IsBlankChar(line[start])) ++start;
    std::string name;
    std::size_t comma = 0;  // where the name's field ends
    if (start < line.size() && line[start] == '"') {
      std::size_t i = start + 1;
      for (;; ++i) {
        if (i >= line.size()) Fail(at, "unterminated quoted column name in the header");
        if (line[i] != '"') {
          name += line[i];
        } else if (i + 1 < line.size() && line[i + 1] == '"') {
          name += '"';
          ++i;
        } else {
          break;
        }
      }
      comma = i + 1;
      while (comma < line.size() && IsBlankChar(line[comma])) ++comma;
      if (comma < line.size() && line[comma] != ',')
        Fail(at, "text after the closing quote of column name " + Quoted(name));
    } else {
      comma = std::min(line.find(',', pos), line.size());
      name = std::string(Trim(line.substr(pos, comma - pos)));
      if (name.find('"') != std::string::npos)
        Fail(at, "stray '\"' in column name " + Quoted(name) +
                     " (only a name wholly enclosed in double quotes is read)");
    }
    if (name.empty())
      Fail(at, "column " + std::to_string(names.size() + 1) + " of the header has no name");
    names.push_back(std::move(name));
    if (comma >= line.size()) break;
    pos = comma + 1;
  }
  if (std::all_of(names.begin(), names.end(),
                  [](const std::string& name) { return ParseNumber(name).has_value(); }))
    Fail(at, "the first line that is not a comment holds numbers, not the header of column names");
  std::unordered_map<std::string, std::size_t> seen;
  for (std::size_t j = 0; j < names.size(); ++j) {
    const auto [it, inserted] = seen.emplace(names[j], j);
    if (!inserted)
      Fail(at, "column name " + Quoted(names[j]) + " appears twice (columns " +
                   std::to_string(it->second + 1) + " and " + std::to_string(j + 1) + ")");
  }
  return names;
}

// Parses a draw into `row`; the problem when it does not parse.
std::optional<std::string> ParseDraw(std::string_view line, const std::vector<std::string>& columns,
                                     std::vector<double>& row) {
  row.clear();
  std::size_t pos = 0;
  for (;;) {
    const std::size_t comma = std::min(line.find(',', pos), line.size());
    const std::string_view field = Trim(line.substr(pos, comma - pos));
    if (row.size() < columns.size()) {
      const std::optional<double> value = ParseNumber(field);
      if (!value)
        return "column " + std::to_string(row.size() + 1) + " (" + columns[row.size()] +
               "): " + Quoted(field) + " is not a number";
      row.push_back(*value);
    } else {
      row.push_back(0.0);  // counted for the message below
    }
    if (comma >= line.size()) break;
    pos = comma + 1;
  }
  if (row.size() != columns.size())
    return "expected " + std::to_string(columns.size()) + " fields (the header's columns), found " +
           std::to_string(row.size());
  return std::nullopt;
}

}  // namespace

DrawsCsv ReadDrawsCsv(const std::string& path) {
  const std::string text = ReadWholeFile(path);
  const std::string_view body = StripByteOrderMark(text);
  const bool terminated = !body.empty() && body.back() == '\n';
  DrawsCsv out;
  out.path = path;
  Lines lines(body);
  std::string_view line;
  std::vector<double> row;
  while (lines.Next(&line)) {
    if (IsBlankLine(line) || IsComment(line)) continue;
    const Location at{path, lines.number()};
    if (out.columns.empty()) {
      out.columns = ParseHeader(line, at);
      out.header_line = lines.number();
      out.values.assign(out.columns.size(), {});
      continue;
    }
    if (!terminated) {  // the last line without its newline is being written, whole or not
      Lines rest = lines;
      std::string_view next;
      if (!rest.Next(&next)) {
        out.partial_last_line = true;
        break;
      }
    }
    if (const std::optional<std::string> problem = ParseDraw(line, out.columns, row))
      Fail(at, *problem);
    for (std::size_t j = 0; j < row.size(); ++j) out.values[j].push_back(row[j]);
  }
  if (out.columns.empty())
    throw InputError(path,
                     "no header line (column names) in a draws file: only comments or "
                     "blank lines");
  return out;
}

}  // namespace carousel::io
