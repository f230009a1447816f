// Reading rating files: MovieLens "::", whitespace/tab, CSV and Matrix Market.
//
// The reader keeps ids exactly as written (external ids); turning them into dense
// 0-based indices is IdMap's job (id_map.hpp), because train and test files must share
// one mapping built from the training data.
//
// Every problem with the input throws carousel::InputError ("file:line: problem"), so a
// bad line in a 100M-line file is reported with its location instead of being skipped.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "carousel/io/line_ranges.hpp"

namespace carousel::io {

enum class RatingsFormat {
  kAuto,          // decide from the extension and the first data line
  kMovieLens,     // user::item::rating[::timestamp]   (ml-1m ratings.dat)
  kWhitespace,    // user item rating [timestamp], spaces or tabs   (ml-100k u.data)
  kCsv,           // user,item,rating[,timestamp], optional header line, fields may be
                  // "quoted" (RFC 4180)   (ml-latest, spreadsheets, pandas)
  kMatrixMarket,  // %%MatrixMarket matrix coordinate real general, 1-based indices
};

// Parses a --format value: "auto", "movielens", "whitespace", "csv" or "mtx".
// Throws carousel::SettingError("format", ...) for anything else.
RatingsFormat ParseRatingsFormat(const std::string& name);

// The --format spelling of `format` (the inverse of ParseRatingsFormat).
const char* RatingsFormatName(RatingsFormat format);

// Whether every line must hold a rating. kOptional is for lists of (user, item) pairs
// (`carousel predict --pairs`): a line may stop after the item; a rating given is read and
// checked as in a ratings file; a pair may occur more than once.
enum class RatingField { kRequired, kOptional };

struct RawRating {
  std::int64_t user;  // external id as written (1-based row for Matrix Market)
  std::int64_t item;  // external id as written (1-based column for Matrix Market)
  double value;       // NaN where the line gives none (RatingField::kOptional)
  std::size_t line;   // 1-based line in the file, for error messages downstream
};

struct RatingsFile {
  std::string path;
  RatingsFormat format;            // the format actually parsed; never kAuto
  std::vector<RawRating> ratings;  // in file order
};

// Reads every rating of `path`. With kAuto the format is detected: a ".mtx" extension or
// a "%%MatrixMarket" banner means Matrix Market; otherwise the first data line decides
// ("::" MovieLens, "," CSV, else whitespace). Throws carousel::Error with
// ExitCode::kInput for a missing or unreadable file, a file without ratings, a malformed
// line, a bad id or rating, or (RatingField::kRequired) a (user, item) pair rated twice.
RatingsFile ReadRatings(const std::string& path, RatingsFormat format = RatingsFormat::kAuto,
                        RatingField rating = RatingField::kRequired);

// ---------------------------------------------------------------------------------------
// Reading by byte range (DESIGN.md section 8): what ReadRatings does, cut so that each rank
// parses only its range of the file (mf_loader.hpp puts the pieces together).

struct MatrixMarketSize {
  std::int64_t rows;
  std::int64_t cols;
  std::int64_t nnz;
  std::size_t line;  // of the size line
};

// What must be known of a file before its ranges can be parsed independently. Read from
// the head of the file only: the format, where the entries start (after a byte-order mark,
// or after a Matrix Market file's banner, comments and size line) and where the first data
// line is (the only place a CSV header may be).
struct RatingsLayout {
  std::string path;
  RatingsFormat format = RatingsFormat::kAuto;  // never kAuto once read
  std::uint64_t size = 0;                       // of the file, in bytes
  std::uint64_t data_begin = 0;                 // first byte of the entries' part
  std::size_t data_first_line = 1;              // line number of the line at data_begin
  std::uint64_t first_data_offset = 0;          // first byte of the first non-blank line
  std::optional<MatrixMarketSize> matrix_size;  // Matrix Market only
  RatingField rating = RatingField::kRequired;  // set by the caller, for the entries
};

// Throws InputError for an unreadable or empty file and for a bad banner or size line.
RatingsLayout ReadRatingsLayout(const std::string& path, RatingsFormat format);

// A problem on a line, counted from 1 at the first line of the range that was parsed.
struct RangeProblem {
  std::size_t line = 0;
  std::string problem;
};

struct RangeParseResult {
  std::uint64_t ratings = 0;            // passed to the sink
  std::uint64_t line_ends = 0;          // '\n' in the range: what the next range's lines follow
  std::optional<RangeProblem> problem;  // the first problem; parsing stopped there
};

// Parses the ratings of `range` (line-aligned, within [layout.data_begin, layout.size)),
// streaming it in pieces, and passes each to `sink` with its line counted from 1 at
// range.begin. Stops at the first malformed line and returns it instead of throwing, since
// only the caller knows the range's first line; a sink stops it the same way by throwing a
// RangeProblem. Throws InputError only when the file cannot be read.
RangeParseResult ParseRatingsRange(const RatingsLayout& layout, const ByteRange& range,
                                   const std::function<void(const RawRating&)>& sink);

// The messages of the whole-file checks, shared with the loader that makes them across
// ranges.
std::string DuplicateRatingProblem(std::int64_t user, std::int64_t item, std::size_t first_line);
std::string TooManyEntriesProblem(const MatrixMarketSize& size);
void CheckEntryCount(const std::string& path, const MatrixMarketSize& size, std::uint64_t found);

}  // namespace carousel::io
