// The whole-set summaries of a training set cut into shares (mf_problem.hpp): the counts of
// the shares add up to those of the whole set, and a rating survives the trip into a tile;
// the test set is cut by row block, each rating to exactly one rank.
#include "carousel/data/mf_problem.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "carousel/util/crc64.hpp"
#include "carousel/util/keyed_rng.hpp"

namespace carousel {
namespace {

RatingMatrix SomeRatings() {
  RatingMatrix m{50, 30, {}};
  for (std::uint32_t u = 0; u < m.rows; ++u)
    for (std::uint32_t i = 0; i < m.cols; ++i)
      if ((u * 7 + i * 3) % 5 == 0)
        m.entries.push_back({u, i, 1.0f + static_cast<float>((u + 2 * i) % 9) * 0.5f});
  return m;
}

TEST(MfProblem, RatingsRoundTripThroughTheirTiles) {
  const RatingMatrix m = SomeRatings();
  const TileGrid grid(m.rows, m.cols, 4, 11);
  const RankLayout layout(4, 2);
  for (const Rating& r : m.entries) {
    TileShare share;
    share.first_row_block = layout.FirstRowBlock(layout.RankOfRowBlock(grid.rows().BlockOf(r.row)));
    const std::size_t tile = share.TileOf(grid, r.row, r.col);
    EXPECT_LT(tile, 2u * 4u);  // two row blocks per rank, four column blocks
    const std::size_t part = share.PartOf(grid, r.row, r.col);
    EXPECT_EQ(part / TileShare::kPartsPerTile, tile);
    const Rating back = share.Global(grid, part, share.Local(grid, r));
    EXPECT_EQ(back.row, r.row);
    EXPECT_EQ(back.col, r.col);
    EXPECT_EQ(back.value, r.value);
  }
  TileShare share;
  const MfProblem problem = WholeMfProblem(m, {}, 4, 11, &share);
  EXPECT_EQ(share.size(), m.entries.size());
  // Its item blocks are cut by ratings (problem.col_weights): read the share on that grid.
  ASSERT_EQ(problem.col_weights.size(), m.cols);
  const TileGrid cut = MfGrid(problem, 4, 11);
  ASSERT_EQ(share.parts.size(), 16u * TileShare::kPartsPerTile);
  for (std::size_t p = 0; p < share.parts.size(); ++p) {
    EXPECT_TRUE(std::is_sorted(share.parts[p].begin(), share.parts[p].end(), LocalOrder));
    for (const LocalRating& r : share.parts[p])
      EXPECT_EQ(share.PartOf(cut, share.Global(cut, p, r).row, share.Global(cut, p, r).col), p);
    // The parts of a tile follow each other in local row order.
    if (p % TileShare::kPartsPerTile > 0 && !share.parts[p].empty() &&
        !share.parts[p - 1].empty()) {
      EXPECT_LT(share.parts[p - 1].back().row, share.parts[p].front().row);
    }
  }
}

TEST(MfProblem, CountsOfSharesAddUpToTheWholeSet) {
  const RatingMatrix m = SomeRatings();
  TileShare all;
  const MfProblem whole = WholeMfProblem(m, {}, 4, 11, &all);
  EXPECT_EQ(whole.train_count, m.entries.size());
  double sum = 0.0;
  for (const Rating& r : m.entries) sum += r.value;
  EXPECT_EQ(whole.mu, static_cast<float>(sum / m.entries.size()));

  // Two ranks, two row blocks each: each counts its share, the counts are merged.
  const TileGrid grid = MfGrid(whole, 4, 11);
  const RankLayout layout(4, 2);
  TrainingCounts merged;
  for (int rank = 0; rank < 2; ++rank) {
    TileShare share;
    share.first_row_block = layout.FirstRowBlock(rank);
    share.parts.resize(2 * 4 * TileShare::kPartsPerTile);
    for (const Rating& r : m.entries)
      if (layout.RankOfRowBlock(grid.rows().BlockOf(r.row)) == rank)
        share.parts[share.PartOf(grid, r.row, r.col)].push_back(share.Local(grid, r));
    MergeCounts(merged, CountsFromBytes(CountsToBytes(CountTraining(share, grid))));
  }
  MfProblem parts;
  SetTrainingSummary(parts, merged, 4, 0.0, 0.0);
  EXPECT_EQ(parts.train_count, whole.train_count);
  EXPECT_EQ(parts.col_degree, whole.col_degree);
  EXPECT_EQ(parts.stratum_sizes, whole.stratum_sizes);
  EXPECT_EQ(parts.max_degree, whole.max_degree);
  EXPECT_EQ(parts.train_checksum, whole.train_checksum);
  EXPECT_EQ(parts.lo, whole.lo);
  EXPECT_EQ(parts.hi, whole.hi);
  std::uint64_t strata = 0;
  for (auto s : whole.stratum_sizes) strata += s;
  EXPECT_EQ(strata, m.entries.size());

  // The checksum tells another training set apart.
  RatingMatrix other = m;
  other.entries.back().value += 0.5f;
  TileShare unused;
  EXPECT_NE(WholeMfProblem(other, {}, 4, 11, &unused).train_checksum, whole.train_checksum);
}

// PartitionTestSet: with 4 row blocks on 2 ranks every test rating is kept by the rank of
// its user's row block (an unseen user's by row block 0's), once, with its position in the
// whole set, and both ranks record the whole set's count and checksum.
TEST(MfProblem, TestSetIsCutByRowBlock) {
  const RatingMatrix m = SomeRatings();
  std::vector<TestRating> whole;
  for (std::uint32_t k = 0; k < 40; ++k)
    whole.push_back({k % 7 == 3 ? kUnknownId : (k * 13) % m.rows, k % m.cols, 1.0f + k % 5});
  const TileGrid grid(m.rows, m.cols, 4, 11);
  const RankLayout layout(4, 2);
  std::vector<int> holder(whole.size(), -1);
  for (int rank = 0; rank < 2; ++rank) {
    MfProblem problem;
    problem.test = whole;
    std::vector<bool> kept;
    PartitionTestSet(problem, grid, layout, rank,
                     [&](const std::vector<bool>& keep) { kept = keep; });
    EXPECT_EQ(problem.test_count, whole.size());
    EXPECT_EQ(problem.test_checksum, Crc64Of(whole));
    ASSERT_EQ(problem.test.size(), problem.test_index.size());
    EXPECT_TRUE(std::is_sorted(problem.test_index.begin(), problem.test_index.end()));
    for (std::size_t e = 0; e < problem.test.size(); ++e) {
      const std::uint64_t k = problem.test_index[e];
      EXPECT_EQ(holder[k], -1) << "test rating " << k << " kept twice";
      holder[k] = rank;
      EXPECT_TRUE(kept[k]);
      EXPECT_EQ(problem.test[e].value, whole[k].value);
      const int block = whole[k].row == kUnknownId ? 0 : grid.rows().BlockOf(whole[k].row);
      EXPECT_EQ(layout.RankOfRowBlock(block), rank);
    }
  }
  EXPECT_EQ(std::count(holder.begin(), holder.end(), -1), 0) << "a test rating no rank kept";
  EXPECT_GT(std::count(holder.begin(), holder.end(), 1), 0) << "rank 1 kept none";
}

}  // namespace
}  // namespace carousel
