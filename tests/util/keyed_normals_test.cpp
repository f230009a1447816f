// The block noise generator of the SG-MCMC steps (keyed_normals.hpp).
// GCC 12 reports Eigen's AVX-512 sine and cosine (ReferenceFill) as using an uninitialised
// value: the false positive CMakeLists.txt notes.
#pragma GCC diagnostic ignored "-Wuninitialized"

#include "carousel/util/keyed_normals.hpp"

#include <Random123/philox.h>
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <vector>

#include "../sampler/ks.hpp"

namespace carousel {
namespace {

std::vector<double> Draws(double scale) {
  // 4000 rows of 33 columns (the width of a K = 32 block with a bias), in chunks of 64 rows
  // as the samplers draw them.
  std::vector<std::uint32_t> ids(4000);
  std::iota(ids.begin(), ids.end(), 0u);
  std::vector<double> draws;
  Eigen::ArrayXf z;
  for (std::size_t first = 0; first < ids.size(); first += 64) {
    FillKeyedNormals(3, Purpose::kTest, 9, ids.data() + first, 64, 33, z);
    for (Eigen::Index i = 0; i < z.size(); ++i) draws.push_back(scale * z[i]);
  }
  return draws;
}

double NormalCdf(double x) {
  return 0.5 * std::erfc(-x / std::sqrt(2.0));
}

// 132,000 draws against N(0, 1): moments within 5 standard errors, and the KS distance
// below its 0.001 quantile; the same check rejects draws 2% too wide.
TEST(KeyedNormals, StandardNormal) {
  const std::vector<double> draws = Draws(1.0);
  const double n = static_cast<double>(draws.size());
  double sum = 0, sum_sq = 0, sum_4 = 0;
  for (double x : draws) {
    sum += x;
    sum_sq += x * x;
    sum_4 += x * x * x * x;
  }
  EXPECT_NEAR(sum / n, 0.0, 5 * std::sqrt(1.0 / n));
  EXPECT_NEAR(sum_sq / n, 1.0, 5 * std::sqrt(2.0 / n));
  EXPECT_NEAR(sum_4 / n, 3.0, 5 * std::sqrt(96.0 / n));  // Var(x^4) = 105 - 9
  const double threshold = ks::Threshold(n, 0.001);
  EXPECT_LT(ks::Distance(draws, NormalCdf), threshold);
  EXPECT_GT(ks::Distance(Draws(1.02), NormalCdf), threshold) << "the check cannot fail";
}

// A row's numbers follow its id, not its place in the fill or the fill's size (up to the
// last bit: Eigen's final partial packet takes the scalar path, so samplers keep fixed
// chunks), and every key part matters.
TEST(KeyedNormals, KeyedByRowId) {
  const std::vector<std::uint32_t> ab = {17, 42}, ba = {42, 17}, b = {42};
  Eigen::ArrayXf z_ab, z_ba, z_b, z_again;
  FillKeyedNormals(5, Purpose::kNoiseRow, 77, ab.data(), 2, 33, z_ab);
  FillKeyedNormals(5, Purpose::kNoiseRow, 77, ba.data(), 2, 33, z_ba);
  FillKeyedNormals(5, Purpose::kNoiseRow, 77, b.data(), 1, 33, z_b);
  FillKeyedNormals(5, Purpose::kNoiseRow, 77, ab.data(), 2, 33, z_again);
  EXPECT_TRUE((z_ab == z_again).all()) << "the same fill twice gives the same bits";
  for (int c = 0; c < 33; ++c) {
    EXPECT_NEAR(z_ab[33 + c], z_ba[c], 1e-5f);
    EXPECT_NEAR(z_ab[c], z_ba[33 + c], 1e-5f);
    EXPECT_NEAR(z_ab[33 + c], z_b[c], 1e-5f);
  }
  Eigen::ArrayXf other;
  FillKeyedNormals(6, Purpose::kNoiseRow, 77, b.data(), 1, 33, other);
  EXPECT_NE(other[0], z_b[0]);
  FillKeyedNormals(5, Purpose::kNoiseCol, 77, b.data(), 1, 33, other);
  EXPECT_NE(other[0], z_b[0]);
  FillKeyedNormals(5, Purpose::kNoiseRow, 78, b.data(), 1, 33, other);
  EXPECT_NE(other[0], z_b[0]);
}

// The fill as it was first written: Random123's Philox one block at a time, each 64-bit word
// giving a pair's u1 (low half) and u2 (high half), and the same Box-Muller in Eigen.
Eigen::ArrayXf ReferenceFill(std::uint64_t seed, Purpose purpose, std::uint64_t iteration,
                             const std::vector<std::uint32_t>& ids, Eigen::Index cols) {
  using Philox = r123::Philox4x64;
  const auto rows = static_cast<Eigen::Index>(ids.size());
  const Eigen::Index pairs = (cols + 1) / 2;
  Eigen::ArrayXf u1(rows * pairs), u2(rows * pairs);
  const Philox::key_type key = {{seed, static_cast<std::uint64_t>(purpose)}};
  for (Eigen::Index r = 0; r < rows; ++r) {
    for (Eigen::Index p = 0; p < pairs; ++p) {
      const Philox::ctr_type ctr = {
          {ids[static_cast<std::size_t>(r)], iteration, static_cast<std::uint64_t>(p / 4), 1}};
      const std::uint64_t word = Philox()(ctr, key).v[p % 4];
      const auto uniform = [](std::uint32_t half) {
        return (static_cast<float>(half >> 8) + 0.5f) * 0x1.0p-24f;
      };
      u1[r * pairs + p] = uniform(static_cast<std::uint32_t>(word));
      u2[r * pairs + p] = uniform(static_cast<std::uint32_t>(word >> 32));
    }
  }
  const Eigen::ArrayXf radius = (-2.0f * u1.log()).sqrt();
  const Eigen::ArrayXf angle = 6.2831853f * u2;
  const Eigen::ArrayXf z0 = radius * angle.cos(), z1 = radius * angle.sin();
  Eigen::ArrayXf out(rows * cols);
  for (Eigen::Index r = 0; r < rows; ++r)
    for (Eigen::Index c = 0; c < cols; ++c)
      out[r * cols + c] = c % 2 == 0 ? z0[r * pairs + c / 2] : z1[r * pairs + c / 2];
  return out;
}

// The fill computes Philox 32 or 8 (row, block) counters at a time where AVX-512 is there,
// the rest one by one: its numbers are Random123's, bit for bit, whatever the rows, the
// columns (blocks of a row that leave lanes over) and the key words' high bits.
TEST(KeyedNormals, PhiloxWordsMatchRandom123) {
  const std::vector<std::uint32_t> ids = {0u, 1u,          17u, 4294967295u, 123456789u, 42u,
                                          7u, 2147483648u, 99u, 3u,          65536u};
  const std::uint64_t seed = 0xfedcba9876543210ULL, iteration = (1ULL << 40) + 77;
  int compared = 0;
  for (std::size_t rows : {1, 3, 8, 11})
    for (Eigen::Index cols : {1, 2, 5, 8, 9, 33, 51}) {
      const std::vector<std::uint32_t> some(ids.begin(), ids.begin() + rows);
      Eigen::ArrayXf z;
      FillKeyedNormals(seed, Purpose::kNoiseRow, iteration, some.data(),
                       static_cast<Eigen::Index>(rows), cols, z);
      const Eigen::ArrayXf want = ReferenceFill(seed, Purpose::kNoiseRow, iteration, some, cols);
      ASSERT_EQ(z.size(), want.size());
      for (Eigen::Index i = 0; i < z.size(); ++i, ++compared)
        ASSERT_EQ(z[i], want[i]) << rows << " rows, " << cols << " columns, entry " << i;
    }
  EXPECT_GT(compared, 2000);
  // The comparison sees a changed key: a fill under another iteration differs.
  Eigen::ArrayXf other;
  FillKeyedNormals(seed, Purpose::kNoiseRow, iteration + 1, ids.data(), 8, 33, other);
  const Eigen::ArrayXf want =
      ReferenceFill(seed, Purpose::kNoiseRow, iteration, {ids.begin(), ids.begin() + 8}, 33);
  EXPECT_FALSE((other == want).all());
}

}  // namespace
}  // namespace carousel
