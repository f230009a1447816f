// Synthetic ratings from a known biased matrix-factorization model, shaped like
// MovieLens 1M (6040 users, 3706 items, 1000209 ratings, every user with >= 20 ratings,
// long-tailed user and item degrees, mean rating about 3.6).
//
// The data follow the BPMF model of Salakhutdinov & Mnih (2008) with biases:
//   rating = clip(round(mu + b_i + c_j + w_i . h_j + noise * N(0, 1)), 1, 5),
// with w_i, h_j ~ N(0, s^2 I) (s chosen so that w . h has sd 0.65 at any rank) and
// biases with sd 0.35. Because the true means are known, `oracle` and
// `noise_floor_rmse` give the RMSE that no sampler can beat on average.
//
// Degrees: every user and item gets a lognormal popularity weight. A user's degree is
// a floor (20, or fewer when there are too few ratings) plus a share of the remaining
// ratings proportional to its weight, capped at 60% of the items; its items are drawn
// without replacement proportional to the item weights. When there are enough ratings
// (ratings >= 2 * (users + items)) every item is first given one rating, so that no
// id in [1, users] x [1, items] is missing from the written file.
//
// All randomness comes from KeyedStream(seed, Purpose::kGenerate, ...), so the output
// depends on the options only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace carousel {

struct MfGeneratorOptions {
  std::uint32_t users = 6040;
  std::uint32_t items = 3706;
  std::uint64_t ratings = 1000209;
  int rank = 10;
  double noise = 0.9;  // sd of the Gaussian noise added before rounding
  std::uint64_t seed = 1;
};

struct GeneratedRatings {
  std::vector<std::uint32_t> user;  // 0-based, ascending; items ascending within a user
  std::vector<std::uint32_t> item;  // 0-based
  std::vector<float> rating;        // rounded and clipped to 1..5
  std::vector<float> oracle;        // noise-free mean mu + b + c + w . h, clipped to [1, 5]
  double noise_floor_rmse = 0.0;    // RMSE(oracle, rating) over all ratings
};

// Throws carousel::SettingError for impossible options: users or items 0, rank < 1,
// noise negative or not finite, ratings < users (each user needs one rating) or
// ratings > users * items / 2.
GeneratedRatings GenerateMf(const MfGeneratorOptions& options);

// Writes "user item rating\n" lines with 1-based ids, in one buffered write.
// Throws carousel::OutputError(path, why) when the file cannot be written.
void WriteRatingsText(const std::string& path, const GeneratedRatings& data);

}  // namespace carousel
