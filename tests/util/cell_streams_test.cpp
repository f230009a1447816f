// CellStream and DrawRowWords (util/cell_streams.hpp): every cell's words are those of
// Random123's Philox4x32-10 at the cell's counter, whatever path drew them (eight cells
// per vector instruction, or one at a time for the cells past the last multiple of 8).
#include "carousel/util/cell_streams.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <set>
#include <vector>

namespace carousel {
namespace {

// The 64-bit words 2b and 2b + 1 of a cell: Philox4x32 block b of (row, iteration, cell).
void ReferenceBlock(const CellStreamKey& key, std::uint32_t row, std::uint32_t cell,
                    std::uint32_t block, std::uint64_t out[2]) {
  const auto v =
      r123::Philox4x32()({{row, key.iteration_low, cell, block}}, {{key.key[0], key.key[1]}});
  out[0] = std::uint64_t{v.v[0]} << 32 | v.v[1];
  out[1] = std::uint64_t{v.v[2]} << 32 | v.v[3];
}

TEST(CellStreams, RowWordsAndLaterBlocksArePhilox4x32AtTheCellsCounter) {
  const CellStreamKey key(7, Purpose::kNoiseCol, 123);
  std::vector<std::uint64_t> words;
  for (std::uint32_t cells : {1u, 7u, 8u, 9u, 50u, 64u}) {
    DrawRowWords(key, 4321, cells, words);
    const std::size_t stride = RowWordsStride(cells);
    ASSERT_EQ(words.size(), 4 * stride);
    for (std::uint32_t c = 0; c < cells; ++c) {
      CellStream stream(key, 4321, c, words.data() + c, stride);
      for (std::uint32_t block = 0; block < 5; ++block) {
        std::uint64_t expected[2];
        ReferenceBlock(key, 4321, c, block, expected);
        EXPECT_EQ(stream.bits(), expected[0])
            << cells << " cells, cell " << c << " block " << block;
        EXPECT_EQ(stream.bits(), expected[1])
            << cells << " cells, cell " << c << " block " << block;
      }
    }
  }
}

TEST(CellStreams, EveryKeyPartMatters) {
  std::vector<std::uint64_t> words;
  std::set<std::uint64_t> first;
  auto draw = [&](std::uint64_t seed, Purpose purpose, std::uint64_t iteration, std::uint32_t row,
                  std::uint32_t cell) {
    const CellStreamKey key(seed, purpose, iteration);
    DrawRowWords(key, row, 2, words);
    first.insert(words[cell]);
  };
  draw(5, Purpose::kNoiseCol, 77, 10, 0);
  draw(6, Purpose::kNoiseCol, 77, 10, 0);
  draw(5, Purpose::kNoiseRow, 77, 10, 0);
  draw(5, Purpose::kNoiseCol, 78, 10, 0);
  draw(5, Purpose::kNoiseCol, 77 + (std::uint64_t{1} << 32), 10, 0);  // the key's high half
  draw(5, Purpose::kNoiseCol, 77, 11, 0);
  draw(5, Purpose::kNoiseCol, 77, 10, 1);
  EXPECT_EQ(first.size(), 7u);
}

TEST(CellStreams, UniformsLieInTheOpenUnitInterval) {
  const CellStreamKey key(1, Purpose::kTest, 0);
  std::vector<std::uint64_t> words;
  DrawRowWords(key, 0, 16, words);
  double sum = 0.0;
  const int n = 100000;
  CellStream stream(key, 0, 3, words.data() + 3, RowWordsStride(16));
  for (int i = 0; i < n; ++i) {
    const double u = stream.uniform();
    ASSERT_GT(u, 0.0);
    ASSERT_LT(u, 1.0);
    sum += u;
  }
  EXPECT_NEAR(sum / n, 0.5, 5.0 * std::sqrt(1.0 / 12.0 / n));  // 5 standard errors
}

}  // namespace
}  // namespace carousel
