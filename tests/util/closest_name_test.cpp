#include "carousel/util/closest_name.hpp"

#include <gtest/gtest.h>

namespace carousel {
namespace {

const std::vector<std::string> kOptions = {"--iterations",  "--burn-in", "--eval-every",
                                           "--eval-sweeps", "--seed",    "--step"};

TEST(ClosestName, AnAbbreviationNamesItsOption) {
  EXPECT_EQ(ClosestName("--iters", kOptions), "--iterations");
  EXPECT_EQ(ClosestName("--burn", kOptions), "--burn-in");
}

TEST(ClosestName, ATypoNamesTheNearestName) {
  EXPECT_EQ(ClosestName("--seeed", kOptions), "--seed");
  EXPECT_EQ(ClosestName("sgldx", {"sgld", "psgld", "sghmc"}), "sgld");
}

TEST(ClosestName, NothingCloseNamesNothing) {
  EXPECT_EQ(ClosestName("--colour", kOptions), std::nullopt);
  // An abbreviation of two names is ambiguous, and too far from either by edit distance.
  EXPECT_EQ(ClosestName("--eval", kOptions), std::nullopt);
}

}  // namespace
}  // namespace carousel
