#include "carousel/util/all_finite.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace carousel {
namespace {

template <typename T>
class AllFiniteOf : public ::testing::Test {};
using Reals = ::testing::Types<float, double>;
TYPED_TEST_SUITE(AllFiniteOf, Reals);

TYPED_TEST(AllFiniteOf, AgreesWithIsfiniteOnEveryKindOfValueAtEveryPosition) {
  using T = TypeParam;
  using L = std::numeric_limits<T>;
  const T kinds[] = {T(0),
                     -T(0),
                     T(1.5),
                     T(-2),
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
    for (T kind : kinds)
      for (std::size_t at : {std::size_t{0}, n / 2, n - 1}) {
        std::vector<T> v(n, T(0.25));
        v[at] = kind;
        EXPECT_EQ(AllFinite(v.data(), v.size()), std::isfinite(kind))
            << "value " << kind << " at " << at << " of " << n;
      }
  EXPECT_TRUE(AllFinite(static_cast<const T*>(nullptr), 0));
}

}  // namespace
}  // namespace carousel
