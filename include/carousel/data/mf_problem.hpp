// A matrix-factorization problem after input parsing, as every rank sees it: the sizes and
// summaries of the whole training set, which no rank holds whole (DESIGN.md section 8),
// and the test ratings. The training ratings themselves are split into shares, one per
// rank: the ratings of the row blocks the rank runs, by tile (TileShare).
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "carousel/data/rating_matrix.hpp"
#include "carousel/data/tile_grid.hpp"

namespace carousel {

inline constexpr std::uint32_t kUnknownId = std::numeric_limits<std::uint32_t>::max();

// A test rating; row or col is kUnknownId when that user or item never occurs in
// training (predicted from the global mean and the known bias).
struct TestRating {
  std::uint32_t row;
  std::uint32_t col;
  float value;
};

// Order-independent counts over training ratings; the counts of the ranks' shares add up
// to those of the whole set (MergeCounts), whatever the rank count.
struct TrainingCounts {
  std::uint64_t count = 0;
  std::uint64_t max_row_degree = 0;          // a share holds its rows whole
  std::vector<std::uint32_t> col_degree;     // ratings of each item
  std::vector<std::uint64_t> stratum_sizes;  // ratings in each stratum of the grid
  std::uint64_t checksum = 0;                // sum of a hash of each rating
  float lo = std::numeric_limits<float>::infinity();
  float hi = -std::numeric_limits<float>::infinity();
};

// A training rating inside its tile: its row and column within the tile's row block and
// column block (BlockPartition::LocalIndex).
struct LocalRating {
  std::uint32_t row;
  std::uint32_t col;
  float value;
};
inline bool LocalOrder(const LocalRating& a, const LocalRating& b) {
  return a.row != b.row ? a.row < b.row : a.col < b.col;
}

// A rank's share of the training ratings, by tile, each tile cut into kPartsPerTile parts
// by local row: parts[t * kPartsPerTile + p] holds the ratings of tile t (its k-th row
// block, first_row_block + k, and column block j: t = k * B + j) whose local row is in
// [p R / kPartsPerTile, (p + 1) R / kPartsPerTile), R the rows of the block, in LocalOrder.
// The parts of a tile, in order, are the tile in the order the model builds it in; they
// are freed one at a time as the model fills its tiles, so the share and the tiles never
// both exist whole, even with one tile.
struct TileShare {
  static constexpr std::size_t kPartsPerTile = 16;
  int first_row_block = 0;
  std::vector<std::vector<LocalRating>> parts;

  std::uint64_t size() const;
  // The rating of part `part` with global row and column ids.
  Rating Global(const TileGrid& grid, std::size_t part, const LocalRating& r) const;
  // The tile and the part of a global rating, and the rating in it; the row must be one
  // of the share's.
  std::size_t TileOf(const TileGrid& grid, std::uint32_t row, std::uint32_t col) const;
  std::size_t PartOf(const TileGrid& grid, std::uint32_t row, std::uint32_t col) const;
  LocalRating Local(const TileGrid& grid, const Rating& r) const;
};

// Puts every part of the share in LocalOrder: a counting sort by row (a part holds a range
// of rows), then each row's ratings by column, for one more part's worth of memory.
void SortParts(TileShare& share);

TrainingCounts CountTraining(const TileShare& share, const TileGrid& grid);
void MergeCounts(TrainingCounts& total, const TrainingCounts& part);
std::string CountsToBytes(const TrainingCounts& counts);
TrainingCounts CountsFromBytes(const std::string& bytes);

struct MfProblem {
  std::uint32_t rows = 0;  // users
  std::uint32_t cols = 0;  // items
  std::uint64_t train_count = 0;
  float mu = 0.0f;  // training mean
  float lo = 1.0f;  // smallest training rating: predictions are clipped to [lo, hi]
  float hi = 5.0f;
  double sd_train = 0.0;                  // RMSE of predicting mu for every training rating
  std::uint64_t max_degree = 0;           // most ratings of one user or item
  std::vector<std::uint32_t> col_degree;  // ratings of each item
  // The weights the item blocks were cut with (MfGrid): each item's training ratings, so
  // that every block holds about as many ratings; empty: blocks of equal item counts.
  std::vector<std::uint64_t> col_weights;
  int tiles = 0;                             // the grid the strata below were counted on
  std::vector<std::uint64_t> stratum_sizes;  // training ratings in each stratum
  std::uint64_t train_checksum = 0;          // of the training set, in any order
  // The test set is partitioned like the training ratings: `test` holds the ratings of this
  // rank's row blocks (a user unseen in training goes with row block 0), each with its
  // position in the whole test set (`test_index`, ascending); test_count and test_checksum
  // (Crc64Of the whole, in order) describe the whole set (issue #39: it was held whole by
  // every rank).
  std::vector<TestRating> test;
  std::vector<std::uint64_t> test_index;
  std::uint64_t test_count = 0;
  std::uint64_t test_checksum = 0;
};

// Keeps of `problem`'s whole test set (test_index still empty) the ratings of the row blocks
// of `rank` under `layout`, and records the whole set's count and checksum; `keep_also`
// (parallel to the test set) is filtered the same way. A single process keeps them all.
void PartitionTestSet(MfProblem& problem, const TileGrid& grid, const RankLayout& layout, int rank,
                      const std::function<void(const std::vector<bool>&)>& keep_also);

// The terms of the training mean and spread, summed in double over the training ratings
// in file order. The loader carries these running sums from rank to rank in file order, so
// mu is the same to the bit at any rank count.
inline double AddRating(double running, float value) {
  return running + value;
}
inline double AddSquaredDeviation(double running, float value, float mu) {
  return running + (value - mu) * static_cast<double>(value - mu);  // (v - mu) in float
}
inline float TrainingMean(double sum, std::uint64_t count) {
  return count ? static_cast<float>(sum / static_cast<double>(count)) : 0.0f;
}

// Fills the whole-set fields of `problem` (all but the test ratings) from counts and the
// two ordered sums.
void SetTrainingSummary(MfProblem& problem, const TrainingCounts& counts, int tiles, double sum,
                        double squared_deviations);

// The tile grid of a problem: `tiles` blocks a side with `seed`, its item blocks cut with
// problem.col_weights.
TileGrid MfGrid(const MfProblem& problem, int tiles, std::uint64_t seed);

// A problem held whole by one process (tests, benchmarks, the single-process Gibbs
// reference): the ratings of `train`, in its order, summarised for a grid of `tiles` with
// `seed` whose item blocks hold about equal numbers of ratings; `share` receives all of them
// in tile order.
MfProblem WholeMfProblem(const RatingMatrix& train, std::vector<TestRating> test, int tiles,
                         std::uint64_t seed, TileShare* share);

}  // namespace carousel
