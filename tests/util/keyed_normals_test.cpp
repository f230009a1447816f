// The block noise generator of the SG-MCMC steps (keyed_normals.hpp).
#include "carousel/util/keyed_normals.hpp"

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

}  // namespace
}  // namespace carousel
