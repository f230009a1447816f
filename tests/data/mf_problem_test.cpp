// The whole-set summaries of a training set cut into shares (mf_problem.hpp): the counts of
// the shares add up to those of the whole set, and a rating survives the trip into a tile.
#include "carousel/data/mf_problem.hpp"

#include <gtest/gtest.h>

#include <algorithm>

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

TEST(MfProblem, TileEntriesRoundTripAndSortIntoTiles) {
  const RatingMatrix m = SomeRatings();
  const TileGrid grid(m.rows, m.cols, 4, 11);
  const RankLayout layout(4, 2);
  for (const Rating& r : m.entries) {
    const int first = layout.FirstRowBlock(layout.RankOfRowBlock(grid.rows().BlockOf(r.row)));
    const Rating back = FromTileEntry(grid, first, ToTileEntry(grid, first, r));
    EXPECT_EQ(back.row, r.row);
    EXPECT_EQ(back.col, r.col);
    EXPECT_EQ(back.value, r.value);
  }
  std::vector<TileEntry> share;
  WholeMfProblem(m, {}, 4, 11, &share);
  ASSERT_EQ(share.size(), m.entries.size());
  for (std::size_t k = 1; k < share.size(); ++k) {
    const Rating a = FromTileEntry(grid, 0, share[k - 1]), b = FromTileEntry(grid, 0, share[k]);
    const auto key = [&](const Rating& r) {
      return std::make_tuple(grid.rows().BlockOf(r.row), grid.cols().BlockOf(r.col),
                             grid.rows().LocalIndex(r.row), grid.cols().LocalIndex(r.col));
    };
    EXPECT_LT(key(a), key(b)) << "entry " << k;
  }
}

TEST(MfProblem, CountsOfSharesAddUpToTheWholeSet) {
  const RatingMatrix m = SomeRatings();
  std::vector<TileEntry> all;
  const MfProblem whole = WholeMfProblem(m, {}, 4, 11, &all);
  EXPECT_EQ(whole.train_count, m.entries.size());
  double sum = 0.0;
  for (const Rating& r : m.entries) sum += r.value;
  EXPECT_EQ(whole.mu, static_cast<float>(sum / m.entries.size()));

  // Two ranks, two row blocks each: each counts its share, the counts are merged.
  const TileGrid grid(m.rows, m.cols, 4, 11);
  const RankLayout layout(4, 2);
  TrainingCounts merged;
  for (int rank = 0; rank < 2; ++rank) {
    std::vector<TileEntry> share;
    for (const Rating& r : m.entries)
      if (layout.RankOfRowBlock(grid.rows().BlockOf(r.row)) == rank)
        share.push_back(ToTileEntry(grid, layout.FirstRowBlock(rank), r));
    MergeCounts(merged, CountsFromBytes(
                            CountsToBytes(CountTraining(share, grid, layout.FirstRowBlock(rank)))));
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
  std::vector<TileEntry> unused;
  EXPECT_NE(WholeMfProblem(other, {}, 4, 11, &unused).train_checksum, whole.train_checksum);
}

}  // namespace
}  // namespace carousel
