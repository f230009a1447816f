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
#include <limits>
#include <memory>
#include <optional>
#include <string_view>
#include <system_error>
#include <tuple>
#include <utility>

#include "carousel/io/line_ranges.hpp"
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

// Where a problem is while a byte range is parsed: its line counted from the range's first
// line. The caller turns it into "file:line" once it knows where the range starts.
struct At {
  std::size_t line;
};

[[noreturn]] void Fail(At at, std::string problem) {
  throw RangeProblem{at.line, std::move(problem)};
}

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

// Splits on `separator` ("::"), trimming blanks around each field.
std::size_t SplitOn(std::string_view line, std::string_view separator, Fields* fields) {
  std::size_t count = 0;
  for (;;) {
    const std::size_t end = line.find(separator);
    Store(Trim(line.substr(0, end)), count++, fields);
    if (end == std::string_view::npos) return count;
    line.remove_prefix(end + separator.size());
  }
}

// Splits a CSV line on commas, trimming blanks around each field. A field wholly enclosed
// in double quotes (RFC 4180, as spreadsheets and pandas write "1","2","3.5") is taken
// without them; a comma inside is part of it and a quote is written twice (neither makes a
// number, but the line still splits as the writer meant). A rating is one line, so a quote
// still open at the end of the line is an error.
std::size_t SplitCsv(std::string_view line, At at, Fields* fields) {
  std::size_t count = 0;
  for (;;) {
    std::size_t start = 0;
    while (start < line.size() && IsBlankChar(line[start])) ++start;
    if (start == line.size() || line[start] != '"') {  // unquoted: as every CSV before
      const std::size_t end = line.find(',');
      Store(Trim(line.substr(0, end)), count++, fields);
      if (end == std::string_view::npos) return count;
      line.remove_prefix(end + 1);
      continue;
    }
    std::size_t close = start + 1;  // the closing quote: one not followed by another
    for (;; close += 2) {
      close = line.find('"', close);
      if (close == std::string_view::npos)
        Fail(at, "unterminated quote in field " + std::to_string(count + 1) + " " +
                     Quoted(Trim(line.substr(start))));
      if (close + 1 == line.size() || line[close + 1] != '"') break;
    }
    Store(line.substr(start + 1, close - start - 1), count++, fields);
    std::size_t end = close + 1;
    while (end < line.size() && IsBlankChar(line[end])) ++end;
    if (end == line.size()) return count;
    if (line[end] != ',')
      Fail(at, "stray characters after the closing quote of field " + std::to_string(count) + " " +
                   Quoted(Trim(line.substr(start, line.find(',', end) - start))) +
                   ": a quoted field must be wholly enclosed in double quotes");
    line.remove_prefix(end + 1);
  }
}

std::size_t Split(std::string_view line, RatingsFormat format, At at, Fields* fields) {
  switch (format) {
    case RatingsFormat::kMovieLens:
      return SplitOn(line, "::", fields);
    case RatingsFormat::kCsv:
      return SplitCsv(line, at, fields);
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

// What a field that failed to parse is, for the message: a quote in it can only be a stray
// one (SplitCsv takes a wholly quoted field out of its quotes).
std::string NonNumeric(const char* what, std::string_view field) {
  std::string problem = "non-numeric " + std::string(what) + " " + Quoted(field);
  if (field.find('"') != std::string_view::npos)
    problem += " (a stray '\"': only a CSV field wholly enclosed in double quotes is read)";
  return problem;
}

// Ids are non-negative integers; `what` names the field ("user id", "row index", ...).
// It is a plain C string so that good lines, the vast majority, build no std::string.
std::int64_t ParseId(std::string_view field, const char* what, At at) {
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
  Fail(at, NonNumeric(what, field));
}

double ParseRating(std::string_view field, At at) {
  double value = 0;
  const char* last = field.data() + field.size();
  const auto [end, error] = std::from_chars(field.data(), last, value);
  if (field.empty() || end != last ||
      (error != std::errc() && error != std::errc::result_out_of_range)) {
    Fail(at, NonNumeric("rating", field));
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

std::string MalformedLine(RatingsFormat format, RatingField rating, std::size_t found) {
  const bool optional = rating == RatingField::kOptional;
  const char* expected = "";
  switch (format) {
    case RatingsFormat::kMovieLens:
      expected = optional ? "2 to 4 '::'-separated fields (user::item[::rating[::timestamp]])"
                          : "3 or 4 '::'-separated fields (user::item::rating[::timestamp])";
      break;
    case RatingsFormat::kCsv:
      expected = optional ? "2 to 4 comma-separated fields (user,item[,rating[,timestamp]])"
                          : "3 or 4 comma-separated fields (user,item,rating[,timestamp])";
      break;
    default:
      expected = optional ? "2 to 4 whitespace-separated fields (user item [rating [timestamp]])"
                          : "3 or 4 whitespace-separated fields (user item rating [timestamp])";
      break;
  }
  return "malformed line: expected " + std::string(expected) + ", found " + std::to_string(found);
}

constexpr double kNoRating = std::numeric_limits<double>::quiet_NaN();

// Whether no field of the line is a number: what tells a header from a rating with a typo
// (`I96,242,3` is a bad rating, not a header).
bool NoFieldIsNumeric(const Fields& fields, std::size_t count) {
  for (std::size_t i = 0; i < std::min(count, kMaxFields); ++i)
    if (IsNumber(fields[i])) return false;
  return true;
}

// The separator a line seems to use when it is none of `format`'s: the most frequent of
// '|', ';', ',', tab, space and ':' in it ("" when none occurs). A '|'-separated file (MovieLens'
// u.item) or a tab-separated one read as CSV is the wrong file or format, not a bad line.
std::string ForeignSeparator(std::string_view line, RatingsFormat format) {
  const std::pair<char, const char*> candidates[] = {{'|', "'|'"},   {';', "';'"},    {',', "','"},
                                                     {'\t', "tabs"}, {' ', "spaces"}, {':', "':'"}};
  const char* best = "";
  std::size_t most = 0;
  for (const auto& [c, name] : candidates) {
    if (c == ',' && format == RatingsFormat::kCsv) continue;
    if ((c == '\t' || c == ' ') && format == RatingsFormat::kWhitespace) continue;
    if (c == ':' && format == RatingsFormat::kMovieLens) continue;
    const auto n = static_cast<std::size_t>(std::count(line.begin(), line.end(), c));
    if (n > most) {
      most = n;
      best = name;
    }
  }
  return best;
}

// "unrecognised format: the line is separated by '|', which no ratings format uses ..."
[[noreturn]] void FailForeignFormat(At at, RatingsFormat format, const std::string& separator) {
  Fail(at, "unrecognised format: read as " + std::string(RatingsFormatName(format)) +
               ", but the line is separated by " + separator +
               " (Carousel reads MovieLens 'user::item::rating', whitespace- or "
               "comma-separated 'user item rating', and Matrix Market; --format names one)");
}

// One non-blank line; false for a CSV header (skipped). `first_data_line`: the file's first
// non-blank line, the only place a header may be.
bool ParseDelimitedLine(std::string_view line, RatingsFormat format, RatingField field,
                        bool first_data_line, At at, RawRating* rating) {
  Fields fields;
  const std::size_t count = Split(line, format, at, &fields);
  // One field: the line does not use the format's separator at all.
  if (count == 1) {
    const std::string separator = ForeignSeparator(line, format);
    if (!separator.empty()) FailForeignFormat(at, format, separator);
  }
  // Only CSV files come with a header in the wild (ml-latest: userId,movieId,...).
  // Elsewhere a non-numeric first line is more likely the wrong file or format.
  if (first_data_line && NoFieldIsNumeric(fields, count)) {
    if (format == RatingsFormat::kCsv && count >= 2) return false;
    const std::string separator = ForeignSeparator(line, format);
    if (!separator.empty()) FailForeignFormat(at, format, separator);
    Fail(at, std::string("header where none is expected: ") + RatingsFormatName(format) +
                 " files have no header line (found " + Quoted(fields[0]) + ")");
  }
  const std::size_t least = field == RatingField::kOptional ? 2 : 3;
  if (count < least || count > 4) Fail(at, MalformedLine(format, field, count));
  *rating = {ParseId(fields[0], "user id", at), ParseId(fields[1], "item id", at),
             count >= 3 ? ParseRating(fields[2], at) : kNoRating, at.line};
  return true;
}

// ---------------------------------------------------------------------------------------
// Matrix Market coordinate format.

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
void CheckBanner(std::string_view line, At at) {
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

MatrixMarketSize ParseSizeLine(std::string_view line, At at) {
  Fields fields;
  const std::size_t count = SplitOnBlanks(line, &fields);
  if (count != 3) {
    Fail(at,
         "malformed size line: expected 3 fields (rows cols nnz), found " + std::to_string(count));
  }
  return {ParseId(fields[0], "row count", at), ParseId(fields[1], "column count", at),
          ParseId(fields[2], "entry count", at), at.line};
}

void CheckIndex(std::int64_t index, std::int64_t limit, const char* what,
                const MatrixMarketSize& size, At at) {
  if (index < 1 || index > limit) {
    Fail(at, std::string(what) + " index " + std::to_string(index) + " outside 1.." +
                 std::to_string(limit) + " of the size line (line " + std::to_string(size.line) +
                 ")");
  }
}

RawRating ParseMatrixMarketEntry(std::string_view line, const MatrixMarketSize& size,
                                 RatingField field, At at) {
  Fields fields;
  const std::size_t count = SplitOnBlanks(line, &fields);
  if (field == RatingField::kOptional && (count < 2 || count > 3)) {
    Fail(at, "malformed line: expected 2 or 3 fields (row col [value]), found " +
                 std::to_string(count));
  }
  if (field == RatingField::kRequired && count != 3) {
    Fail(at, "malformed line: expected 3 fields (row col value), found " + std::to_string(count));
  }
  const RawRating rating{ParseId(fields[0], "row index", at),
                         ParseId(fields[1], "column index", at),
                         count == 3 ? ParseRating(fields[2], at) : kNoRating, at.line};
  CheckIndex(rating.user, size.rows, "row", size, at);
  CheckIndex(rating.item, size.cols, "column", size, at);
  return rating;
}

bool IsMatrixMarketComment(std::string_view line) {
  return Trim(line).front() == '%';
}

// ---------------------------------------------------------------------------------------
// The head of a file.

RatingsFormat DetectFormat(const std::string& path, std::string_view head,
                           std::string_view first_data_line) {
  const std::filesystem::path extension = std::filesystem::path(path).extension();
  if (EqualsNoCase(extension.string(), ".mtx") || StartsWithNoCase(head, kBanner)) {
    return RatingsFormat::kMatrixMarket;
  }
  if (first_data_line.find("::") != std::string_view::npos) return RatingsFormat::kMovieLens;
  if (first_data_line.find(',') != std::string_view::npos) return RatingsFormat::kCsv;
  return RatingsFormat::kWhitespace;
}

// The first `bytes` of the file (fewer if it is shorter).
std::string ReadHead(const std::string& path, std::uint64_t size, std::uint64_t bytes) {
  return ReadFileRange(path, ByteRange{0, std::min(size, bytes)});
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
    Fail(Location{file.path, repeat->line},
         DuplicateRatingProblem(repeat->user, repeat->item, original->line));
  }
}

}  // namespace

std::string DuplicateRatingProblem(std::int64_t user, std::int64_t item, std::size_t first_line) {
  return "duplicate rating for user " + std::to_string(user) + " item " + std::to_string(item) +
         " (first at line " + std::to_string(first_line) + ")";
}

RatingsFormat ParseRatingsFormat(const std::string& name) {
  for (const FormatSpelling& spelling : kFormatSpellings) {
    if (name == spelling.name) return spelling.format;
  }
  throw SettingError("format", "unknown ratings format " + Quoted(name) +
                                   " (expected auto, movielens, whitespace, csv or mtx)");
}

const char* RatingsFormatName(RatingsFormat format) {
  for (const FormatSpelling& spelling : kFormatSpellings) {
    if (format == spelling.format) return spelling.name;
  }
  return "unknown";
}

RatingsLayout ReadRatingsLayout(const std::string& path, RatingsFormat format) {
  RatingsLayout layout;
  layout.path = path;
  layout.size = FileSize(path);
  // Read as much of the head as it takes to see the first data line (and, for Matrix
  // Market, the size line): a few kilobytes unless the file opens with many blank or
  // comment lines.
  for (std::uint64_t bytes = 1 << 16;; bytes *= 4) {
    const std::string contents = ReadHead(path, layout.size, bytes);
    const bool whole = contents.size() == layout.size;
    const std::string_view text = StripByteOrderMark(contents);
    const std::uint64_t bom = contents.size() - text.size();
    // Everything up to the last complete line is safe to look at.
    const std::size_t complete = whole ? text.size() : text.rfind('\n') + 1;
    const std::string_view lines_text = text.substr(0, complete);
    Lines lines(lines_text);
    std::string_view line;
    std::optional<std::string_view> first_data;
    std::uint64_t first_data_offset = 0;
    while (lines.Next(&line)) {
      if (IsBlankLine(line)) continue;
      first_data = line;
      first_data_offset = bom + static_cast<std::uint64_t>(line.data() - text.data());
      break;
    }
    if (!first_data) {
      if (!whole) continue;
      throw InputError(path, "empty file: no ratings");
    }
    layout.format = format == RatingsFormat::kAuto ? DetectFormat(path, text, *first_data) : format;
    layout.data_begin = bom;
    layout.first_data_offset = first_data_offset;
    if (layout.format != RatingsFormat::kMatrixMarket) return layout;

    // Matrix Market: the banner on line 1, comments, then the size line; the entries follow.
    Lines mm(lines_text);
    mm.Next(&line);
    try {
      CheckBanner(line, {1});
      while (mm.Next(&line)) {
        if (IsBlankLine(line) || IsMatrixMarketComment(line)) continue;
        layout.matrix_size = ParseSizeLine(line, {mm.number()});
        layout.data_begin =
            bom + static_cast<std::uint64_t>(line.data() - text.data()) + line.size();
        // Past the size line's end of line ("\n" or "\r\n").
        while (layout.data_begin < layout.size && text[layout.data_begin - bom] != '\n')
          ++layout.data_begin;
        if (layout.data_begin < layout.size) ++layout.data_begin;
        layout.data_first_line = mm.number() + 1;
        layout.first_data_offset = layout.data_begin;
        return layout;
      }
    } catch (const RangeProblem& failure) {
      Fail(Location{path, failure.line}, failure.problem);
    }
    if (!whole) continue;
    throw InputError(path, "missing Matrix Market size line (rows cols nnz)");
  }
}

RangeParseResult ParseRatingsRange(const RatingsLayout& layout, const ByteRange& range,
                                   const std::function<void(const RawRating&)>& sink) {
  RangeParseResult result;
  bool first_data_line =
      range.begin <= layout.first_data_offset && layout.first_data_offset < range.end;
  const bool matrix_market = layout.format == RatingsFormat::kMatrixMarket;
  constexpr std::size_t kPieceBytes = std::size_t{16} << 20;
  std::size_t line_base = 0;  // lines of the range before the current piece
  try {
    ReadRangeInPieces(layout.path, range, kPieceBytes, [&](std::string_view piece) {
      Lines lines(piece);
      std::string_view line;
      RawRating rating{};
      while (lines.Next(&line)) {
        if (IsBlankLine(line)) continue;
        const At at{line_base + lines.number()};
        if (matrix_market) {
          if (IsMatrixMarketComment(line)) continue;
          rating = ParseMatrixMarketEntry(line, *layout.matrix_size, layout.rating, at);
        } else if (!ParseDelimitedLine(line, layout.format, layout.rating,
                                       std::exchange(first_data_line, false), at, &rating)) {
          continue;
        }
        ++result.ratings;
        sink(rating);
      }
      const bool ends_line = !piece.empty() && piece.back() == '\n';
      line_base += lines.number();
      result.line_ends += lines.number() - (ends_line ? 0 : 1);
    });
  } catch (const RangeProblem& problem) {
    result.problem = problem;
  }
  return result;
}

RatingsFile ReadRatings(const std::string& path, RatingsFormat format, RatingField rating) {
  RatingsLayout layout = ReadRatingsLayout(path, format);
  layout.rating = rating;
  RatingsFile file{path, layout.format, {}};
  const std::size_t first_line = layout.data_first_line;
  const RangeParseResult parsed =
      ParseRatingsRange(layout, ByteRange{layout.data_begin, layout.size}, [&](const RawRating& r) {
        RawRating global = r;
        global.line = first_line - 1 + r.line;
        if (layout.matrix_size &&
            static_cast<std::int64_t>(file.ratings.size()) == layout.matrix_size->nnz) {
          throw RangeProblem{r.line, TooManyEntriesProblem(*layout.matrix_size)};
        }
        file.ratings.push_back(global);
      });
  if (parsed.problem)
    Fail(Location{path, first_line - 1 + parsed.problem->line}, parsed.problem->problem);
  if (file.ratings.empty())
    throw InputError(path, rating == RatingField::kRequired ? "no ratings in file"
                                                            : "no (user, item) pairs in file");
  if (layout.matrix_size)
    CheckEntryCount(path, *layout.matrix_size, static_cast<std::uint64_t>(file.ratings.size()));
  if (rating == RatingField::kRequired) CheckNoDuplicates(file);
  return file;
}

std::string TooManyEntriesProblem(const MatrixMarketSize& size) {
  return "more entries than the " + std::to_string(size.nnz) + " given in the size line (line " +
         std::to_string(size.line) + ")";
}

void CheckEntryCount(const std::string& path, const MatrixMarketSize& size, std::uint64_t found) {
  if (static_cast<std::int64_t>(found) != size.nnz) {
    throw InputError(path, "expected " + std::to_string(size.nnz) +
                               " entries as given in the size line (line " +
                               std::to_string(size.line) + "), found " + std::to_string(found));
  }
}

}  // namespace carousel::io
