#include "carousel/util/all_finite.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace carousel {
namespace {

TEST(AllFinite, AgreesWithIsfiniteOnEveryKindOfFloatAtEveryPosition) {
  using L = std::numeric_limits<float>;
  const float kinds[] = {0.0f,
                         -0.0f,
                         1.5f,
                         -2.0f,
                         L::max(),
                         -L::max(),
                         L::min(),
                         L::denorm_min(),
                         L::infinity(),
                         -L::infinity(),
                         L::quiet_NaN(),
                         -L::quiet_NaN(),
                         L::signaling_NaN()};
  for (std::size_t n : {1u, 7u, 64u, 1000u})
    for (float kind : kinds)
      for (std::size_t at : {std::size_t{0}, n / 2, n - 1}) {
        std::vector<float> v(n, 0.25f);
        v[at] = kind;
        EXPECT_EQ(AllFinite(v.data(), v.size()), std::isfinite(kind))
            << "value " << kind << " at " << at << " of " << n;
      }
  EXPECT_TRUE(AllFinite(nullptr, 0));
}

}  // namespace
}  // namespace carousel
