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
#include <string>
#include <vector>

namespace carousel::io {

enum class RatingsFormat {
  kAuto,          // decide from the extension and the first data line
  kMovieLens,     // user::item::rating[::timestamp]   (ml-1m ratings.dat)
  kWhitespace,    // user item rating [timestamp], spaces or tabs   (ml-100k u.data)
  kCsv,           // user,item,rating[,timestamp], optional header line   (ml-latest)
  kMatrixMarket,  // %%MatrixMarket matrix coordinate real general, 1-based indices
};

// Parses a --format value: "auto", "movielens", "whitespace", "csv" or "mtx".
// Throws carousel::UsageError("--format", ...) for anything else.
RatingsFormat ParseRatingsFormat(const std::string& name);

// The --format spelling of `format` (the inverse of ParseRatingsFormat).
const char* RatingsFormatName(RatingsFormat format);

struct RawRating {
  std::int64_t user;  // external id as written (1-based row for Matrix Market)
  std::int64_t item;  // external id as written (1-based column for Matrix Market)
  double value;
  std::size_t line;  // 1-based line in the file, for error messages downstream
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
// line, a bad id or rating, or a (user, item) pair rated twice.
RatingsFile ReadRatings(const std::string& path, RatingsFormat format = RatingsFormat::kAuto);

}  // namespace carousel::io
