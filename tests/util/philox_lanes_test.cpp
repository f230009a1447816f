// PhiloxBlocks (util/philox_lanes.hpp) against Random123's Philox4x64-10, block by block.
#include "carousel/util/philox_lanes.hpp"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace carousel {
namespace {

using Philox = r123::Philox4x64;

// Counters with random words 0 and 2 (every bit used) and shared words 1 and 3, in list
// lengths that take the 32-lane path, the 8-lane path, the one-by-one rest and mixes of them.
TEST(PhiloxLanes, BlocksAreRandom123s) {
  std::mt19937_64 rng(21);
  const Philox::key_type key = {{rng(), rng()}};
  const std::uint64_t word1 = rng(), word3 = rng();
  for (std::size_t n : {1, 7, 8, 9, 31, 32, 33, 40, 77, 96, 100}) {
    std::vector<std::uint64_t> word0(n), word2(n), out(4 * n);
    for (std::size_t i = 0; i < n; ++i) {
      word0[i] = rng();
      word2[i] = rng();
    }
    PhiloxBlocks(key, word0.data(), word1, word2.data(), word3, n, out.data());
    for (std::size_t i = 0; i < n; ++i) {
      const Philox::ctr_type want = Philox()({{word0[i], word1, word2[i], word3}}, key);
      for (std::size_t w = 0; w < 4; ++w)
        ASSERT_EQ(out[4 * i + w], want.v[w]) << n << " counters, block " << i << ", word " << w;
    }
  }
}

// Control: the comparison above sees a counter that differs in one bit of a shared word.
TEST(PhiloxLanes, AnotherCounterIsSeen) {
  const Philox::key_type key = {{3, 4}};
  std::vector<std::uint64_t> word0(32, 7), word2(32), out(4 * 32);
  for (std::size_t i = 0; i < 32; ++i) word2[i] = i;
  PhiloxBlocks(key, word0.data(), 1ULL << 63, word2.data(), 0, 32, out.data());
  for (std::size_t i = 0; i < 32; ++i)
    EXPECT_NE(out[4 * i], (Philox()({{7, 0, i, 0}}, key).v[0])) << "block " << i;
}

}  // namespace
}  // namespace carousel
