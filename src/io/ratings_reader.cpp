#include "carousel/io/ratings_reader.hpp"
#include "carousel/io/text_input.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <string_view>
#include <system_error>
#include <tuple>
#include <utility>

#include "carousel/util/error.hpp"

namespace carousel::io {
namespace {

struct FormatSpelling {
  RatingsFormat format;
  const char* name;
};

constexpr std::array<FormatSpelling, 5> kFormatSpellings = {{
    {RatingsFormat::kAuto, "auto"},
    {RatingsFormat::kMovieLens, "movielens"},
    {RatingsFormat::kWhitespace, "whitespace"},
    {RatingsFormat::kCsv, "csv"},
    {RatingsFormat::kMatrixMarket, "mtx"},
}};

// ---------------------------------------------------------------------------------------
// Splitting a line into fields.

// One more than any format accepts, so that "found 5 fields" can still be reported; the
// split keeps counting fields past this but does not store them.
constexpr std::size_t kMaxFields = 5;
using Fields = std::array<std::string_view, kMaxFields>;

void Store(std::string_view field, std::size_t index, Fields* fields) {
  if (index < kMaxFields) (*fields)[index] = field;
}

// Splits on runs of spaces and tabs; returns the number of fields.
std::size_t SplitOnBlanks(std::string_view line, Fields* fields) {
  std::size_t count = 0;
  std::size_t pos = 0;
  while (pos < line.size()) {
    while (pos < line.size() && IsBlankChar(line[pos])) ++pos;
    if (pos == line.size()) break;
    const std::size_t start = pos;
    while (pos < line.size() && !IsBlankChar(line[pos])) ++pos;
    Store(line.substr(start, pos - start), count++, fields);
  }
  return count;
}

// Splits on `separator` ("," or "::"), trimming blanks around each field.
std::size_t SplitOn(std::string_view line, std::string_view separator, Fields* fields) {
  std::size_t count = 0;
  for (;;) {
    const std::size_t end = line.find(separator);
    Store(Trim(line.substr(0, end)), count++, fields);
    if (end == std::string_view::npos) return count;
    line.remove_prefix(end + separator.size());
  }
}

std::size_t Split(std::string_view line, RatingsFormat format, Fields* fields) {
  switch (format) {
    case RatingsFormat::kMovieLens:
      return SplitOn(line, "::", fields);
    case RatingsFormat::kCsv:
      return SplitOn(line, ",", fields);
    default:
      return SplitOnBlanks(line, fields);
  }
}

// ---------------------------------------------------------------------------------------
// Numbers.

bool IsNumber(std::string_view field) {
  double value = 0;
  const char* last = field.data() + field.size();
  const auto [end, error] = std::from_chars(field.data(), last, value);
  return end == last && !field.empty() &&
         (error == std::errc() || error == std::errc::result_out_of_range);
}

// Ids are non-negative integers; `what` names the field ("user id", "row index", ...).
// It is a plain C string so that good lines, the vast majority, build no std::string.
std::int64_t ParseId(std::string_view field, const char* what, const Location& at) {
  std::int64_t id = 0;
  const char* last = field.data() + field.size();
  const auto [end, error] = std::from_chars(field.data(), last, id);
  if (end == last && error == std::errc() && !field.empty()) {
    if (id < 0) Fail(at, "negative " + std::string(what) + " " + std::to_string(id));
    return id;
  }
  if (field.empty()) Fail(at, "empty " + std::string(what));
  if (end == last && error == std::errc::result_out_of_range) {
    Fail(at, what + (" " + Quoted(field)) + " is out of range");
  }
  if (IsNumber(field)) Fail(at, "non-integer " + std::string(what) + " " + Quoted(field));
  Fail(at, "non-numeric " + std::string(what) + " " + Quoted(field));
}

double ParseRating(std::string_view field, const Location& at) {
  double value = 0;
  const char* last = field.data() + field.size();
  const auto [end, error] = std::from_chars(field.data(), last, value);
  if (field.empty() || end != last ||
      (error != std::errc() && error != std::errc::result_out_of_range)) {
    Fail(at, "non-numeric rating " + Quoted(field));
  }
  if (error == std::errc::result_out_of_range) {
    Fail(at, "rating " + Quoted(field) + " is out of the range of a double");
  }
  // A NaN would poison the sampler's sums silently, many iterations later.
  if (!std::isfinite(value)) Fail(at, "rating " + Quoted(field) + " is NaN or inf");
  return value;
}

// ---------------------------------------------------------------------------------------
// Line-per-rating formats: MovieLens, whitespace, CSV.

std::string MalformedLine(RatingsFormat format, std::size_t found) {
  const char* expected = "";
  switch (format) {
    case RatingsFormat::kMovieLens:
      expected = "3 or 4 '::'-separated fields (user::item::rating[::timestamp])";
      break;
    case RatingsFormat::kCsv:
      expected = "3 or 4 comma-separated fields (user,item,rating[,timestamp])";
      break;
    default:
      expected = "3 or 4 whitespace-separated fields (user item rating [timestamp])";
      break;
  }
  return "malformed line: expected " + std::string(expected) + ", found " + std::to_string(found);
}

void ParseDelimited(std::string_view text, RatingsFile* file) {
  Lines lines(text);
  std::string_view line;
  Fields fields;
  bool first_data_line = true;
  while (lines.Next(&line)) {
    if (IsBlankLine(line)) continue;
    const Location at{file->path, lines.number()};
    const std::size_t count = Split(line, file->format, &fields);
    // Only CSV files come with a header in the wild (ml-latest: userId,movieId,...).
    // Elsewhere a non-numeric first line is more likely the wrong file or format.
    if (std::exchange(first_data_line, false) && !IsNumber(fields[0])) {
      if (file->format == RatingsFormat::kCsv) continue;
      Fail(at, std::string("header where none is expected: ") + RatingsFormatName(file->format) +
                   " files have no header line (found " + Quoted(fields[0]) + ")");
    }
    if (count < 3 || count > 4) Fail(at, MalformedLine(file->format, count));
    file->ratings.push_back({ParseId(fields[0], "user id", at), ParseId(fields[1], "item id", at),
                             ParseRating(fields[2], at), at.line});
  }
}

// ---------------------------------------------------------------------------------------
// Matrix Market coordinate format.

struct MatrixMarketSize {
  std::int64_t rows;
  std::int64_t cols;
  std::int64_t nnz;
  std::size_t line;
};

bool EqualsNoCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

bool StartsWithNoCase(std::string_view text, std::string_view prefix) {
  return EqualsNoCase(text.substr(0, prefix.size()), prefix);
}

constexpr std::string_view kBanner = "%%MatrixMarket";

// Ratings need a value per entry and no implied mirror entries, so only general real (or
// integer) coordinate matrices make sense.
void CheckBanner(std::string_view line, const Location& at) {
  Fields fields;
  const std::size_t count = SplitOnBlanks(line, &fields);
  if (count == 0 || !EqualsNoCase(fields[0], kBanner)) {
    Fail(at, "missing %%MatrixMarket banner on the first line");
  }
  const bool supported = count == 5 && EqualsNoCase(fields[1], "matrix") &&
                         EqualsNoCase(fields[2], "coordinate") &&
                         (EqualsNoCase(fields[3], "real") || EqualsNoCase(fields[3], "integer")) &&
                         EqualsNoCase(fields[4], "general");
  if (!supported) {
    Fail(at, "unsupported Matrix Market type " + Quoted(Trim(line)) +
                 ": only 'matrix coordinate real general' (or integer) is supported");
  }
}

MatrixMarketSize ParseSizeLine(const Fields& fields, std::size_t count, const Location& at) {
  if (count != 3) {
    Fail(at,
         "malformed size line: expected 3 fields (rows cols nnz), found " + std::to_string(count));
  }
  return {ParseId(fields[0], "row count", at), ParseId(fields[1], "column count", at),
          ParseId(fields[2], "entry count", at), at.line};
}

void CheckIndex(std::int64_t index, std::int64_t limit, const char* what,
                const MatrixMarketSize& size, const Location& at) {
  if (index < 1 || index > limit) {
    Fail(at, std::string(what) + " index " + std::to_string(index) + " outside 1.." +
                 std::to_string(limit) + " of the size line (line " + std::to_string(size.line) +
                 ")");
  }
}

void ParseMatrixMarketEntry(const Fields& fields, std::size_t count, const MatrixMarketSize& size,
                            const Location& at, RatingsFile* file) {
  if (count != 3) {
    Fail(at, "malformed line: expected 3 fields (row col value), found " + std::to_string(count));
  }
  if (static_cast<std::int64_t>(file->ratings.size()) == size.nnz) {
    Fail(at, "more entries than the " + std::to_string(size.nnz) +
                 " given in the size line (line " + std::to_string(size.line) + ")");
  }
  const RawRating rating{ParseId(fields[0], "row index", at),
                         ParseId(fields[1], "column index", at), ParseRating(fields[2], at),
                         at.line};
  CheckIndex(rating.user, size.rows, "row", size, at);
  CheckIndex(rating.item, size.cols, "column", size, at);
  file->ratings.push_back(rating);
}

void ParseMatrixMarket(std::string_view text, RatingsFile* file) {
  Lines lines(text);
  std::string_view line;
  lines.Next(&line);  // the caller has rejected blank files, so there is a first line
  CheckBanner(line, {file->path, lines.number()});

  std::optional<MatrixMarketSize> size;
  Fields fields;
  while (lines.Next(&line)) {
    if (IsBlankLine(line) || Trim(line).front() == '%') continue;
    const Location at{file->path, lines.number()};
    const std::size_t count = SplitOnBlanks(line, &fields);
    if (!size) {
      size = ParseSizeLine(fields, count, at);
      continue;
    }
    ParseMatrixMarketEntry(fields, count, *size, at, file);
  }
  if (!size) throw InputError(file->path, "missing Matrix Market size line (rows cols nnz)");
  if (static_cast<std::int64_t>(file->ratings.size()) != size->nnz) {
    throw InputError(file->path, "expected " + std::to_string(size->nnz) +
                                     " entries as given in the size line (line " +
                                     std::to_string(size->line) + "), found " +
                                     std::to_string(file->ratings.size()));
  }
}

// ---------------------------------------------------------------------------------------
// Whole-file checks.

RatingsFormat DetectFormat(const std::string& path, std::string_view text) {
  const std::filesystem::path extension = std::filesystem::path(path).extension();
  if (EqualsNoCase(extension.string(), ".mtx") || StartsWithNoCase(text, kBanner)) {
    return RatingsFormat::kMatrixMarket;
  }
  Lines lines(text);
  std::string_view line;
  while (lines.Next(&line) && IsBlankLine(line)) {
  }
  if (line.find("::") != std::string_view::npos) return RatingsFormat::kMovieLens;
  if (line.find(',') != std::string_view::npos) return RatingsFormat::kCsv;
  return RatingsFormat::kWhitespace;
}

// Duplicates are errors rather than "last one wins": a rating counted twice skews the
// posterior, and a file with duplicates is usually a botched merge or split.
void CheckNoDuplicates(const RatingsFile& file) {
  struct Key {
    std::int64_t user;
    std::int64_t item;
    std::size_t line;
  };
  std::vector<Key> keys;
  keys.reserve(file.ratings.size());
  for (const RawRating& r : file.ratings) keys.push_back({r.user, r.item, r.line});
  std::sort(keys.begin(), keys.end(), [](const Key& a, const Key& b) {
    return std::tie(a.user, a.item, a.line) < std::tie(b.user, b.item, b.line);
  });

  // Report the duplicate that comes first in the file, whatever the sort order.
  const Key* repeat = nullptr;
  const Key* original = nullptr;
  for (std::size_t i = 1; i < keys.size(); ++i) {
    const Key& a = keys[i - 1];
    const Key& b = keys[i];
    if (a.user == b.user && a.item == b.item && (!repeat || b.line < repeat->line)) {
      repeat = &b;
      original = &a;
    }
  }
  if (repeat) {
    Fail({file.path, repeat->line}, "duplicate rating for user " + std::to_string(repeat->user) +
                                        " item " + std::to_string(repeat->item) +
                                        " (first at line " + std::to_string(original->line) + ")");
  }
}

}  // namespace

RatingsFormat ParseRatingsFormat(const std::string& name) {
  for (const FormatSpelling& spelling : kFormatSpellings) {
    if (name == spelling.name) return spelling.format;
  }
  throw UsageError("--format", "unknown ratings format " + Quoted(name) +
                                   " (expected auto, movielens, whitespace, csv or mtx)");
}

const char* RatingsFormatName(RatingsFormat format) {
  for (const FormatSpelling& spelling : kFormatSpellings) {
    if (format == spelling.format) return spelling.name;
  }
  return "unknown";
}

RatingsFile ReadRatings(const std::string& path, RatingsFormat format) {
  const std::string contents = ReadWholeFile(path);
  const std::string_view text = StripByteOrderMark(contents);
  if (IsBlankText(text)) throw InputError(path, "empty file: no ratings");

  RatingsFile file{path, format == RatingsFormat::kAuto ? DetectFormat(path, text) : format, {}};
  // One cheap pass over the bytes saves the vector's regrowth (and its 2x peak memory)
  // on 100M-line files.
  file.ratings.reserve(static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1);
  if (file.format == RatingsFormat::kMatrixMarket) {
    ParseMatrixMarket(text, &file);
  } else {
    ParseDelimited(text, &file);
  }
  if (file.ratings.empty()) throw InputError(path, "no ratings in file");
  CheckNoDuplicates(file);
  return file;
}

}  // namespace carousel::io
