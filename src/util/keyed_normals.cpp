#include "carousel/util/keyed_normals.hpp"

#include <Random123/philox.h>

namespace carousel {

void FillKeyedNormals(std::uint64_t seed, Purpose purpose, std::uint64_t iteration,
                      const std::uint32_t* ids, Eigen::Index rows, Eigen::Index cols,
                      Eigen::ArrayXf& out) {
  using Philox = r123::Philox4x64;
  const Eigen::Index pairs = (cols + 1) / 2;
  const Eigen::Index n = rows * pairs;
  Eigen::ArrayXf u1(n), u2(n);
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
  const Eigen::ArrayXf radius = (-2.0f * u1.log()).sqrt();
  const Eigen::ArrayXf angle = 6.2831853f * u2;
  const Eigen::ArrayXf z0 = radius * angle.cos();
  const Eigen::ArrayXf z1 = radius * angle.sin();
  out.resize(rows * cols);
  for (Eigen::Index r = 0; r < rows; ++r)
    for (Eigen::Index c = 0; c < cols; ++c)
      out[r * cols + c] = c % 2 == 0 ? z0[r * pairs + c / 2] : z1[r * pairs + c / 2];
}

}  // namespace carousel
