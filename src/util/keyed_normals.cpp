// GCC 12's AVX-512 intrinsics in Eigen's sine and cosine give their unused merge operand a
// self-initialised value, which -Wuninitialized reports (the false positive CMakeLists.txt
// notes for Eigen).
#pragma GCC diagnostic ignored "-Wuninitialized"

#include "carousel/util/keyed_normals.hpp"

#include <vector>

#include "carousel/util/philox_lanes.hpp"

namespace carousel {
namespace {

// A row's Philox words: block b of a row is Philox4x64-10 of counter (id, iteration, b, 1)
// under key (seed, purpose), and its four words are the row's words 4b .. 4b + 3. The blocks
// of all the fill's rows go to PhiloxBlocks as one list (a fill of 64 rows of 33 columns then
// takes 1.5 ns a normal against 3.5 one block at a time).
constexpr Eigen::Index WordsStride(Eigen::Index words_per_row) {
  return 4 * ((words_per_row + 3) / 4);
}

// Row r's words at words[r * WordsStride(words_per_row) ..].
void FillRowWords(std::uint64_t seed, Purpose purpose, std::uint64_t iteration,
                  const std::uint32_t* ids, Eigen::Index rows, Eigen::Index words_per_row,
                  std::vector<std::uint64_t>& words) {
  const Eigen::Index blocks = WordsStride(words_per_row) / 4;
  const auto lanes = static_cast<std::size_t>(rows * blocks);
  // Lane l is (row l / blocks, block l % blocks): its words are words[4 l .. 4 l + 3].
  thread_local std::vector<std::uint64_t> lane_id, lane_block;
  lane_id.resize(lanes);
  lane_block.resize(lanes);
  for (Eigen::Index r = 0, l = 0; r < rows; ++r)
    for (Eigen::Index b = 0; b < blocks; ++b, ++l) {
      lane_id[static_cast<std::size_t>(l)] = ids[r];
      lane_block[static_cast<std::size_t>(l)] = static_cast<std::uint64_t>(b);
    }
  words.resize(4 * lanes);
  PhiloxBlocks({{seed, static_cast<std::uint64_t>(purpose)}}, lane_id.data(), iteration,
               lane_block.data(), 1, lanes, words.data());
}

// A 32-bit half as a uniform in (0, 1): its top 24 bits, centred (exact in float).
inline float Uniform(std::uint32_t half) {
  constexpr float kScale = 0x1.0p-24f;
  return (static_cast<float>(half >> 8) + 0.5f) * kScale;
}

}  // namespace

void FillKeyedNormals(std::uint64_t seed, Purpose purpose, std::uint64_t iteration,
                      const std::uint32_t* ids, Eigen::Index rows, Eigen::Index cols,
                      Eigen::ArrayXf& out) {
  const Eigen::Index pairs = (cols + 1) / 2;
  const Eigen::Index n = rows * pairs;
  // Scratch kept per thread: a fill is a chunk of 64 rows, and six allocations per chunk
  // were a tenth of its time.
  thread_local Eigen::ArrayXf u1, u2, radius, angle, z0, z1;
  thread_local std::vector<std::uint64_t> words;
  FillRowWords(seed, purpose, iteration, ids, rows, pairs, words);
  const Eigen::Index stride = WordsStride(pairs);
  u1.resize(n);
  u2.resize(n);
  // Pair p of a row takes its word p: the low half gives u1, the high half u2.
  for (Eigen::Index r = 0; r < rows; ++r) {
    const std::uint64_t* row = words.data() + r * stride;
    float* __restrict a = u1.data() + r * pairs;
    float* __restrict b = u2.data() + r * pairs;
    for (Eigen::Index p = 0; p < pairs; ++p) {
      a[p] = Uniform(static_cast<std::uint32_t>(row[p]));
      b[p] = Uniform(static_cast<std::uint32_t>(row[p] >> 32));
    }
  }
  // Box-Muller: sqrt(-2 log u1) (cos, sin)(2 pi u2).
  radius = (-2.0f * u1.log()).sqrt();
  angle = 6.2831853f * u2;
  z0 = radius * angle.cos();
  z1 = radius * angle.sin();
  out.resize(rows * cols);
  // Column 2p takes the pair's cosine, 2p + 1 its sine (an odd last column: the cosine).
  for (Eigen::Index r = 0; r < rows; ++r) {
    float* row = out.data() + r * cols;
    const float* c0 = z0.data() + r * pairs;
    const float* c1 = z1.data() + r * pairs;
    for (Eigen::Index p = 0; p < cols / 2; ++p) {
      row[2 * p] = c0[p];
      row[2 * p + 1] = c1[p];
    }
    if (cols % 2 != 0) row[cols - 1] = c0[pairs - 1];
  }
}

}  // namespace carousel
