#include "carousel/io/text_output.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

namespace carousel::io {
namespace {

TEST(FormatReal, ShortestTextThatReadsBackExactly) {
  EXPECT_EQ(FormatReal(6.25e-07), "6.25e-07");
  EXPECT_EQ(FormatReal(0.05), "0.05");
  EXPECT_EQ(FormatReal(1000.0), "1000");
  EXPECT_EQ(FormatReal(std::nan("")), "nan");
  // The step a user gets by default on 25M ratings, 0.05 / N: no digits lost.
  const double step = 0.05 / 24749541.0;
  EXPECT_EQ(std::strtod(FormatReal(step).c_str(), nullptr), step);
}

}  // namespace
}  // namespace carousel::io
