// The B x B tile grid of DESIGN.md section 1. Rows and columns are shuffled by a seeded
// permutation (to balance load), then cut into B blocks each: contiguous blocks of equal
// counts, or, where the model gives each column's data (its weight), blocks of nearly
// equal weight (DESIGN.md section 1). Stratum s is the set of tiles (i, (i + s) mod B),
// i = 0..B-1: no two share a row- or column-block. Everything here is a function of
// (sizes, weights, B, seed) only, never of the rank count.
#pragma once

#include <cstdint>
#include <vector>

#include "carousel/data/rating_matrix.hpp"

namespace carousel {

class BlockPartition {
 public:
  // Shuffles `n` ids with the permutation keyed by (seed, purpose) and cuts them into
  // `blocks` nearly equal blocks. With `weights` (one per id), the blocks hold nearly equal
  // total weight instead: longest processing time first (Graham 1969), the heaviest id
  // first, each to the block that weighs least so far (then the one with fewest ids, then
  // the lowest number); ids of equal weight go in the shuffled order.
  BlockPartition(std::uint32_t n, int blocks, std::uint64_t seed, std::uint64_t purpose,
                 const std::vector<std::uint64_t>& weights = {});

  int blocks() const { return static_cast<int>(members_.size()); }
  std::uint32_t size() const { return static_cast<std::uint32_t>(block_of_.size()); }
  int BlockOf(std::uint32_t id) const { return block_of_[id]; }
  std::uint32_t LocalIndex(std::uint32_t id) const { return local_[id]; }
  // Global ids of a block's members, in local order.
  const std::vector<std::uint32_t>& Members(int block) const { return members_[block]; }

 private:
  std::vector<int> block_of_;
  std::vector<std::uint32_t> local_;
  std::vector<std::vector<std::uint32_t>> members_;
};

class TileGrid {
 public:
  // `col_weights`: each column's data (ratings, tokens), which the column blocks then share
  // evenly; empty: column blocks of equal counts.
  TileGrid(std::uint32_t rows, std::uint32_t cols, int blocks, std::uint64_t seed,
           const std::vector<std::uint64_t>& col_weights = {});

  int blocks() const { return rows_.blocks(); }
  const BlockPartition& rows() const { return rows_; }
  const BlockPartition& cols() const { return cols_; }

  int ColBlockInStratum(int row_block, int stratum) const {
    return (row_block + stratum) % blocks();
  }
  int RowBlockInStratum(int col_block, int stratum) const {
    return ((col_block - stratum) % blocks() + blocks()) % blocks();
  }
  int TileId(int row_block, int col_block) const { return row_block * blocks() + col_block; }

 private:
  BlockPartition rows_;
  BlockPartition cols_;
};

// Which rank runs which row-blocks: P ranks, B/P consecutive row-blocks each.
class RankLayout {
 public:
  RankLayout(int blocks, int ranks);
  int blocks_per_rank() const { return per_rank_; }
  int RankOfRowBlock(int row_block) const { return row_block / per_rank_; }
  int FirstRowBlock(int rank) const { return rank * per_rank_; }
  // Rank that holds column block `col_block` while stratum `stratum` runs.
  int RankOfColBlock(const TileGrid& grid, int col_block, int stratum) const {
    return RankOfRowBlock(grid.RowBlockInStratum(col_block, stratum));
  }

 private:
  int per_rank_;
};

// The stratum processed at each iteration: cyclic (s_t = t mod B), or random with
// probability proportional to the stratum's size (HAMCMC paper Sec. 4.3), drawn from
// the keyed generator so every rank agrees without talking.
class StratumSchedule {
 public:
  enum class Kind { kCyclic, kRandom };
  // As --schedule spells it: "cyclic" or "random".
  static const char* Name(Kind kind) { return kind == Kind::kRandom ? "random" : "cyclic"; }
  StratumSchedule(Kind kind, std::vector<std::uint64_t> stratum_sizes, std::uint64_t seed);
  int At(std::uint64_t iteration) const;
  std::uint64_t Size(int stratum) const { return sizes_[stratum]; }

 private:
  Kind kind_;
  std::vector<std::uint64_t> sizes_;
  std::vector<std::uint64_t> cumulative_;
  std::uint64_t seed_;
};

}  // namespace carousel
