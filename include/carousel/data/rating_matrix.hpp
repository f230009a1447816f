// Ratings as the engine and models see them: dense 0-based row/column indices.
#pragma once

#include <cstdint>
#include <vector>

namespace carousel {

struct Rating {
  std::uint32_t row;  // dense user index
  std::uint32_t col;  // dense item index
  float value;
};

struct RatingMatrix {
  std::uint32_t rows = 0;
  std::uint32_t cols = 0;
  std::vector<Rating> entries;
};

}  // namespace carousel
