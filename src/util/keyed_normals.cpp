#include "carousel/util/keyed_normals.hpp"

#include <Random123/philox.h>

namespace carousel {

void FillKeyedNormals(std::uint64_t seed, Purpose purpose, std::uint64_t iteration,
                      const std::uint32_t* ids, Eigen::Index rows, Eigen::Index cols,
                      Eigen::ArrayXf& out) {
  using Philox = r123::Philox4x64;
  const Eigen::Index pairs = (cols + 1) / 2;
  const Eigen::Index n = rows * pairs;
  // Scratch kept per thread: a fill is a chunk of 64 rows, and six allocations per chunk
  // were a tenth of its time.
  thread_local Eigen::ArrayXf u1, u2, radius, angle, z0, z1;
  u1.resize(n);
  u2.resize(n);
  const Philox::key_type key = {{seed, static_cast<std::uint64_t>(purpose)}};
  constexpr float kScale = 0x1.0p-24f;
  for (Eigen::Index r = 0; r < rows; ++r) {
    Philox::ctr_type ctr = {{ids[r], iteration, 0, 1}};
    Philox::ctr_type block{};
    int used = 8;  // 32-bit halves of block consumed
    auto next = [&]() {
      if (used == 8) {
        block = Philox()(ctr, key);
        ctr.v[2]++;
        used = 0;
      }
      const std::uint64_t word = block.v[used / 2];
      const auto half = static_cast<std::uint32_t>(used % 2 == 0 ? word : word >> 32);
      ++used;
      return (static_cast<float>(half >> 8) + 0.5f) * kScale;  // in (0, 1)
    };
    for (Eigen::Index p = 0; p < pairs; ++p) {
      u1[r * pairs + p] = next();
      u2[r * pairs + p] = next();
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
