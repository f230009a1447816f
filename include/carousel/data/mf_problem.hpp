// A matrix-factorization problem after input parsing: dense training ratings and test
// ratings, identical on every rank.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "carousel/data/rating_matrix.hpp"

namespace carousel {

inline constexpr std::uint32_t kUnknownId = std::numeric_limits<std::uint32_t>::max();

// A test rating; row or col is kUnknownId when that user or item never occurs in
// training (predicted from the global mean and the known bias).
struct TestRating {
  std::uint32_t row;
  std::uint32_t col;
  float value;
};

struct MfProblem {
  RatingMatrix train;
  std::vector<TestRating> test;
  float mu = 0.0f;  // training mean
  float lo = 1.0f;  // smallest training rating: predictions are clipped to [lo, hi]
  float hi = 5.0f;
};

}  // namespace carousel
