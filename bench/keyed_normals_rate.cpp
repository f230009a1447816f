// Nanoseconds per standard normal of FillKeyedNormals (util/keyed_normals.hpp) in the chunks
// the samplers draw: 64 rows of 33 columns (K = 32 and a bias), 96,000 rows an iteration,
// 10 iterations a repeat, 5 repeats; prints each repeat and the best. Usage:
//   keyed_normals_rate
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <numeric>
#include <vector>

#include "carousel/util/keyed_normals.hpp"

int main() {
  constexpr int kRepeats = 5, kIterations = 10;
  constexpr Eigen::Index kChunk = 64, kColumns = 33;
  std::vector<std::uint32_t> ids(96000);
  std::iota(ids.begin(), ids.end(), 0u);
  Eigen::ArrayXf z;
  double checksum = 0.0, best = 1e30;
  for (int repeat = 0; repeat < kRepeats; ++repeat) {
    const auto start = std::chrono::steady_clock::now();
    for (int it = 0; it < kIterations; ++it)
      for (std::size_t first = 0; first < ids.size(); first += kChunk) {
        carousel::FillKeyedNormals(1, carousel::Purpose::kNoiseRow, it, ids.data() + first, kChunk,
                                   kColumns, z);
        checksum += z[5];  // keeps the fills from being optimised away
      }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double ns = seconds * 1e9 / (static_cast<double>(kIterations) * ids.size() * kColumns);
    best = std::min(best, ns);
    std::printf("repeat %d: %.3f ns per normal\n", repeat + 1, ns);
  }
  std::printf("best: %.3f ns per normal (checksum %.6g)\n", best, checksum);
  return 0;
}
