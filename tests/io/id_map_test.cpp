#include "carousel/io/id_map.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "carousel/util/error.hpp"

namespace carousel::io {
namespace {

constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

TEST(IdMap, DenseIndexIsRankAmongDistinctIds) {
  const IdMap map = IdMap::FromIds({30, 10, 20, 10, 30});
  EXPECT_EQ(map.size(), 3u);
  EXPECT_EQ(map.externals(), (std::vector<std::int64_t>{10, 20, 30}));
  EXPECT_EQ(map.Find(10), 0u);
  EXPECT_EQ(map.Find(20), 1u);
  EXPECT_EQ(map.Find(30), 2u);
  EXPECT_EQ(map.Find(15), std::nullopt);
  EXPECT_EQ(map.Find(9), std::nullopt);
  EXPECT_EQ(map.Find(31), std::nullopt);
  for (std::uint32_t dense = 0; dense < map.size(); ++dense) {
    EXPECT_EQ(map.Find(map.External(dense)), dense);
  }
}

TEST(IdMap, IndependentOfIdOrder) {
  const IdMap a = IdMap::FromIds({5, 3, 9, 1, 3});
  const IdMap b = IdMap::FromIds({1, 9, 9, 5, 3});
  EXPECT_EQ(a.externals(), b.externals());
  EXPECT_EQ(a.Find(9), b.Find(9));
}

TEST(IdMap, DenseIdsWithHoles) {
  // 1..1000 without 500: the shape of MovieLens ids, where Find uses a direct table.
  std::vector<std::int64_t> ids;
  for (std::int64_t id = 1000; id >= 1; --id) {
    if (id != 500) ids.push_back(id);
  }
  const IdMap map = IdMap::FromIds(ids);
  EXPECT_EQ(map.size(), 999u);
  EXPECT_EQ(map.Find(1), 0u);
  EXPECT_EQ(map.Find(499), 498u);
  EXPECT_EQ(map.Find(500), std::nullopt);
  EXPECT_EQ(map.Find(501), 499u);
  EXPECT_EQ(map.Find(1000), 998u);
  EXPECT_EQ(map.Find(0), std::nullopt);
  EXPECT_EQ(map.Find(1001), std::nullopt);
  EXPECT_EQ(map.Find(-1), std::nullopt);
  EXPECT_EQ(map.Find(kMin), std::nullopt);
  EXPECT_EQ(map.Find(kMax), std::nullopt);
}

TEST(IdMap, SparseAndExtremeIds) {
  const IdMap map = IdMap::FromIds({kMax, 7, kMin, std::int64_t{1} << 40, -3});
  EXPECT_EQ(map.externals(), (std::vector<std::int64_t>{kMin, -3, 7, std::int64_t{1} << 40, kMax}));
  EXPECT_EQ(map.Find(kMin), 0u);
  EXPECT_EQ(map.Find(-3), 1u);
  EXPECT_EQ(map.Find(7), 2u);
  EXPECT_EQ(map.Find(std::int64_t{1} << 40), 3u);
  EXPECT_EQ(map.Find(kMax), 4u);
  EXPECT_EQ(map.Find(0), std::nullopt);
  EXPECT_EQ(map.Find(kMax - 1), std::nullopt);
  EXPECT_EQ(map.External(4), kMax);
}

TEST(IdMap, EmptyMapFindsNothing) {
  const IdMap map = IdMap::FromIds({});
  EXPECT_EQ(map.size(), 0u);
  EXPECT_EQ(map.Find(0), std::nullopt);
  EXPECT_EQ(IdMap().Find(1), std::nullopt);
}

TEST(IdMap, ExternalOutOfRangeIsInternalError) {
  const IdMap map = IdMap::FromIds({4, 2});
  EXPECT_EQ(map.External(1), 4);
  try {
    map.External(2);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kInternal);
  }
}

RatingsFile MakeFile(std::vector<RawRating> ratings) {
  return RatingsFile{"train.txt", RatingsFormat::kWhitespace, std::move(ratings)};
}

TEST(IdMap, ToMatrixKeepsFileOrderAndSetsShape) {
  const RatingsFile file = MakeFile({{20, 7, 4.5, 1}, {10, 9, 1.0, 2}, {20, 9, 3.0, 3}});
  const IdMap users = IdMap::FromIds({10, 20});
  const IdMap items = IdMap::FromIds({7, 8, 9});
  std::vector<RawRating> unmapped = {{1, 1, 1.0, 99}};  // stale contents are replaced
  const RatingMatrix m = ToMatrix(file, users, items, &unmapped);
  EXPECT_EQ(m.rows, 2u);
  EXPECT_EQ(m.cols, 3u);
  ASSERT_EQ(m.entries.size(), 3u);
  EXPECT_EQ(m.entries[0].row, 1u);
  EXPECT_EQ(m.entries[0].col, 0u);
  EXPECT_FLOAT_EQ(m.entries[0].value, 4.5f);
  EXPECT_EQ(m.entries[1].row, 0u);
  EXPECT_EQ(m.entries[1].col, 2u);
  EXPECT_EQ(m.entries[2].row, 1u);
  EXPECT_EQ(m.entries[2].col, 2u);
  EXPECT_TRUE(unmapped.empty());
}

TEST(IdMap, ToMatrixSetsAsideUnknownIds) {
  const RatingsFile file =
      MakeFile({{1, 1, 5.0, 1}, {2, 1, 4.0, 2}, {1, 3, 3.0, 3}, {3, 3, 2.0, 4}, {1, 2, 1.0, 5}});
  const IdMap users = IdMap::FromIds({1, 2});
  const IdMap items = IdMap::FromIds({1, 2});
  std::vector<RawRating> unmapped;
  const RatingMatrix m = ToMatrix(file, users, items, &unmapped);
  EXPECT_EQ(m.entries.size(), 3u);
  ASSERT_EQ(unmapped.size(), 2u);
  EXPECT_EQ(unmapped[0].line, 3u);  // unknown item
  EXPECT_EQ(unmapped[1].line, 4u);  // unknown user and item

  EXPECT_EQ(ToMatrix(file, users, items, nullptr).entries.size(), 3u);
}

TEST(IdMap, ToMatrixRejectsRatingBeyondFloat) {
  const RatingsFile file = MakeFile({{1, 1, 5.0, 1}, {1, 2, 1e300, 2}});
  const IdMap ids = IdMap::FromIds({1, 2});
  try {
    ToMatrix(file, ids, ids, nullptr);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kInput);
    EXPECT_EQ(std::string(e.what()).rfind("train.txt:2: ", 0), 0u) << e.what();
  }
}

TEST(IdMap, MapsMl100kSplitFromTrainingIds) {
  const std::string dir = std::string(CAROUSEL_SHARED_DATA) + "/ml-100k/";
  if (!std::filesystem::exists(dir + "u1.base")) GTEST_SKIP() << dir << " not present";
  const RatingsFile train = ReadRatings(dir + "u1.base");
  const RatingsFile test = ReadRatings(dir + "u1.test");
  std::vector<std::int64_t> user_ids, item_ids;
  for (const RawRating& r : train.ratings) {
    user_ids.push_back(r.user);
    item_ids.push_back(r.item);
  }
  const IdMap users = IdMap::FromIds(user_ids);
  const IdMap items = IdMap::FromIds(item_ids);
  EXPECT_EQ(users.size(), 943u);
  EXPECT_EQ(items.size(), 1650u);  // of the 1682 items, 32 are never rated in u1.base

  std::vector<RawRating> unmapped;
  EXPECT_EQ(ToMatrix(train, users, items, &unmapped).entries.size(), 80000u);
  EXPECT_TRUE(unmapped.empty());
  const RatingMatrix m = ToMatrix(test, users, items, &unmapped);
  EXPECT_EQ(m.rows, 943u);
  EXPECT_EQ(m.cols, 1650u);
  EXPECT_EQ(m.entries.size(), 20000u - 32u);
  EXPECT_EQ(unmapped.size(), 32u);
  for (const RawRating& r : unmapped) EXPECT_EQ(items.Find(r.item), std::nullopt);
}

TEST(IdSet, GivesTheDistinctIdsInOrderSmallAndLarge) {
  IdSet set;
  std::vector<std::int64_t> expected;
  const std::int64_t large = std::int64_t{1} << 40;
  for (int round = 0; round < 3; ++round)
    for (std::int64_t k = 0; k < 20000; ++k) {
      set.Add((k * 7919) % 20000);            // small: the bitmap
      set.Add(large + (k * 104729) % 15000);  // large: the sorted buffer
    }
  for (std::int64_t k = 0; k < 20000; ++k) expected.push_back(k);
  for (std::int64_t k = 0; k < 15000; ++k) expected.push_back(large + k);
  EXPECT_EQ(set.Sorted(), expected);
  IdSet empty;
  EXPECT_TRUE(empty.Sorted().empty());
}

}  // namespace
}  // namespace carousel::io
