#include "carousel/model/bpmf/mf_generator.hpp"

#include <gtest/gtest.h>

#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <set>
#include <string>
#include <unordered_set>
#include <vector>

#include "carousel/util/error.hpp"

namespace carousel {
namespace {

std::vector<int> Degrees(const std::vector<std::uint32_t>& ids, std::uint32_t n) {
  std::vector<int> degree(n, 0);
  for (std::uint32_t id : ids) ++degree[id];
  return degree;
}

int Median(std::vector<int> v) {
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

// The MovieLens-1M-sized default data set, generated once for the whole suite.
const GeneratedRatings& Default() {
  static const GeneratedRatings data = GenerateMf(MfGeneratorOptions{});
  return data;
}

TEST(MfGenerator, CountsMatchTheOptions) {
  const MfGeneratorOptions o;
  const GeneratedRatings& g = Default();
  ASSERT_EQ(g.user.size(), o.ratings);
  ASSERT_EQ(g.item.size(), o.ratings);
  ASSERT_EQ(g.rating.size(), o.ratings);
  ASSERT_EQ(g.oracle.size(), o.ratings);
  // Like MovieLens: every user has at least 20 ratings, every item at least one.
  const std::vector<int> users = Degrees(g.user, o.users);
  const std::vector<int> items = Degrees(g.item, o.items);
  EXPECT_GE(*std::min_element(users.begin(), users.end()), 20);
  EXPECT_GE(*std::min_element(items.begin(), items.end()), 1);
}

TEST(MfGenerator, NoDuplicatePairsAndSortedByUser) {
  const MfGeneratorOptions o;
  const GeneratedRatings& g = Default();
  std::unordered_set<std::uint64_t> seen;
  seen.reserve(g.user.size());
  for (std::size_t t = 0; t < g.user.size(); ++t) {
    ASSERT_TRUE(seen.insert(static_cast<std::uint64_t>(g.user[t]) * o.items + g.item[t]).second)
        << "duplicate pair at " << t;
    if (t > 0) {
      ASSERT_TRUE(g.user[t - 1] < g.user[t] ||
                  (g.user[t - 1] == g.user[t] && g.item[t - 1] < g.item[t]));
    }
  }
}

TEST(MfGenerator, ValuesInRange) {
  const MfGeneratorOptions o;
  const GeneratedRatings& g = Default();
  double sum = 0.0;
  for (std::size_t t = 0; t < g.rating.size(); ++t) {
    ASSERT_LT(g.user[t], o.users);
    ASSERT_LT(g.item[t], o.items);
    ASSERT_GE(g.rating[t], 1.0f);
    ASSERT_LE(g.rating[t], 5.0f);
    ASSERT_EQ(g.rating[t], std::round(g.rating[t]));
    ASSERT_GE(g.oracle[t], 1.0f);
    ASSERT_LE(g.oracle[t], 5.0f);
    sum += g.rating[t];
  }
  const double mean = sum / static_cast<double>(g.rating.size());
  EXPECT_GT(mean, 3.45);  // MovieLens 1M: 3.58
  EXPECT_LT(mean, 3.75);
}

TEST(MfGenerator, DeterministicForASeed) {
  MfGeneratorOptions o;
  o.users = 500;
  o.items = 300;
  o.ratings = 30000;
  const GeneratedRatings a = GenerateMf(o), b = GenerateMf(o);
  EXPECT_EQ(a.user, b.user);
  EXPECT_EQ(a.item, b.item);
  EXPECT_EQ(a.rating, b.rating);
  EXPECT_EQ(a.oracle, b.oracle);
  EXPECT_EQ(a.noise_floor_rmse, b.noise_floor_rmse);
  o.seed = 2;
  const GeneratedRatings c = GenerateMf(o);
  EXPECT_NE(a.item, c.item);
  EXPECT_NE(a.oracle, c.oracle);
}

TEST(MfGenerator, DegreesAreLongTailed) {
  const MfGeneratorOptions o;
  const GeneratedRatings& g = Default();
  const std::vector<int> users = Degrees(g.user, o.users);
  const std::vector<int> items = Degrees(g.item, o.items);
  // MovieLens 1M: users median 96, max 2314; items median 123, max 3428.
  EXPECT_GT(*std::max_element(users.begin(), users.end()), 10 * Median(users));
  EXPECT_GT(*std::max_element(items.begin(), items.end()), 10 * Median(items));
  EXPECT_GT(Median(users), 50);
  EXPECT_LT(Median(users), 150);
}

TEST(MfGenerator, NoiseFloorIsSensible) {
  const GeneratedRatings& g = Default();  // noise 0.9
  EXPECT_GT(g.noise_floor_rmse, 0.5);
  EXPECT_LT(g.noise_floor_rmse, 1.2);
  double sse = 0.0;
  for (std::size_t t = 0; t < g.rating.size(); ++t) {
    sse += (g.oracle[t] - g.rating[t]) * static_cast<double>(g.oracle[t] - g.rating[t]);
  }
  EXPECT_NEAR(g.noise_floor_rmse, std::sqrt(sse / static_cast<double>(g.rating.size())), 1e-6);

  // Without noise only rounding is left: at most sqrt(1/12) ~ 0.29 plus clipping effects.
  MfGeneratorOptions o;
  o.users = 500;
  o.items = 300;
  o.ratings = 30000;
  o.noise = 0.0;
  const GeneratedRatings quiet = GenerateMf(o);
  EXPECT_LT(quiet.noise_floor_rmse, 0.32);
  EXPECT_GT(quiet.noise_floor_rmse, 0.2);
}

TEST(MfGenerator, SmallAndDenseOptionsWork) {
  MfGeneratorOptions o;
  o.users = 7;
  o.items = 5;
  o.ratings = 17;  // exactly half of the 35 cells, rounded down
  o.rank = 1;
  const GeneratedRatings g = GenerateMf(o);
  ASSERT_EQ(g.rating.size(), 17u);
  const std::vector<int> users = Degrees(g.user, o.users);
  EXPECT_GE(*std::min_element(users.begin(), users.end()), 1);
  std::set<std::pair<std::uint32_t, std::uint32_t>> pairs;
  for (std::size_t t = 0; t < g.user.size(); ++t) pairs.insert({g.user[t], g.item[t]});
  EXPECT_EQ(pairs.size(), 17u);
}

TEST(MfGenerator, RejectsImpossibleOptions) {
  auto expect_usage = [](MfGeneratorOptions o) {
    try {
      GenerateMf(o);
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::kUsage) << e.what();
    }
  };
  MfGeneratorOptions o;
  o.users = 10;
  o.items = 10;
  o.ratings = 50;
  EXPECT_NO_THROW(GenerateMf(o));
  MfGeneratorOptions bad = o;
  bad.ratings = 51;  // more than half of the cells
  expect_usage(bad);
  bad = o;
  bad.ratings = 9;  // fewer ratings than users
  expect_usage(bad);
  bad = o;
  bad.rank = 0;
  expect_usage(bad);
  bad = o;
  bad.users = 0;
  expect_usage(bad);
  bad = o;
  bad.items = 0;
  expect_usage(bad);
  bad = o;
  bad.noise = -1.0;
  expect_usage(bad);
  bad = o;
  bad.noise = std::nan("");
  expect_usage(bad);
}

TEST(MfGenerator, WritesOneBasedText) {
  MfGeneratorOptions o;
  o.users = 40;
  o.items = 30;
  o.ratings = 400;
  const GeneratedRatings g = GenerateMf(o);
  const std::string path =
      ::testing::TempDir() + "mf_generator_test_" + std::to_string(::getpid()) + ".txt";
  WriteRatingsText(path, g);
  std::ifstream in(path);
  ASSERT_TRUE(in.good());
  std::size_t t = 0;
  std::uint32_t user, item;
  float rating;
  while (in >> user >> item >> rating) {
    ASSERT_LT(t, g.rating.size());
    EXPECT_EQ(user, g.user[t] + 1);
    EXPECT_EQ(item, g.item[t] + 1);
    EXPECT_EQ(rating, g.rating[t]);
    ++t;
  }
  EXPECT_EQ(t, g.rating.size());
  std::remove(path.c_str());
}

TEST(MfGenerator, WriteFailureIsAnOutputError) {
  GeneratedRatings g;
  g.user = {0};
  g.item = {0};
  g.rating = {3.0f};
  g.oracle = {3.0f};
  try {
    WriteRatingsText("/nonexistent-directory/ratings.txt", g);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kOutput);
    EXPECT_NE(std::string(e.what()).find("/nonexistent-directory/ratings.txt"), std::string::npos);
  }
}

}  // namespace
}  // namespace carousel
