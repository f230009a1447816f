// Philox4x64-10 (Salmon et al. 2011, Random123's philox4x64) of many counters under one key
// at once. A keyed stream or fill draws its blocks one Philox call at a time, and each call
// is ten dependent rounds of 64 x 64-bit products; the blocks of one fill do not depend on
// each other, so they are computed as lanes, 32 at a time where AVX-512 is there (64-bit
// products from four 32-bit ones). The same integers as Random123's, bit for bit
// (tests/util/philox_lanes_test.cpp).
#pragma once

#include <Random123/philox.h>

#include <cstddef>
#include <cstdint>

namespace carousel {

// out[4 i .. 4 i + 3] = Philox4x64-10(counter i, key) for i < n, counter i being
// (word0[i], word1, word2[i], word3): the words that vary between the blocks of a fill are
// 0 (a row's id) and 2 (a block's index), the others are shared.
void PhiloxBlocks(const r123::Philox4x64::key_type& key, const std::uint64_t* word0,
                  std::uint64_t word1, const std::uint64_t* word2, std::uint64_t word3,
                  std::size_t n, std::uint64_t* out);

}  // namespace carousel
