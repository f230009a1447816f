// The draws a chain keeps after burn-in (issue #13): one row per kept draw, holding the
// model's scalar quantities (log-likelihood first, then hyperparameters and metrics) and
// the parameters a user asked for. Kept on rank 0 with the model's global state, so a
// checkpoint carries it and a resumed run writes the same draws file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "carousel/util/error.hpp"

namespace carousel {

class DrawsTable {
 public:
  DrawsTable() = default;
  explicit DrawsTable(std::vector<std::string> columns) : columns_(std::move(columns)) {}

  const std::vector<std::string>& columns() const { return columns_; }
  std::size_t rows() const { return columns_.empty() ? 0 : values_.size() / columns_.size(); }
  const std::vector<double>& values() const { return values_; }  // row-major

  void Add(const std::vector<double>& row) {
    if (row.size() != columns_.size())
      throw Error(ExitCode::kInternal, "a draw has " + std::to_string(row.size()) + " values for " +
                                           std::to_string(columns_.size()) + " columns");
    values_.insert(values_.end(), row.begin(), row.end());
  }
  // For checkpoints: the values only (the columns follow from the options).
  void set_values(std::vector<double> values) { values_ = std::move(values); }

 private:
  std::vector<std::string> columns_;
  std::vector<double> values_;
};

// Calls `use` with each kept draw's row of a trace whose rows count the kept draws so far
// (`samples`): a row whose count grew is the evaluation that collected a draw. Returns how
// many there were.
template <class Row, class Use>
std::size_t ForEachKeptRow(const std::vector<Row>& trace, Use use) {
  std::size_t kept = 0;
  std::uint64_t samples = 0;
  for (const Row& row : trace) {
    if (row.samples <= samples) continue;
    samples = row.samples;
    use(row);
    ++kept;
  }
  return kept;
}

}  // namespace carousel
