#include "carousel/util/keyed_rng.hpp"

#include <vector>

#include "carousel/util/philox_lanes.hpp"

namespace carousel {

void KeyedStream::FillBits(std::uint64_t* out, std::size_t n) {
  std::size_t i = 0;
  while (i < n && used_ < 4) out[i++] = block_[used_++];
  // Whole blocks, each used up as it is drawn: counters (id, iteration, c, 0) for the next
  // block indices c, written straight into out.
  const std::size_t blocks = (n - i) / 4;
  if (blocks > 0) {
    thread_local std::vector<std::uint64_t> ids, indices;
    ids.assign(blocks, ctr_.v[0]);
    indices.resize(blocks);
    for (std::size_t b = 0; b < blocks; ++b) indices[b] = ctr_.v[2] + b;
    PhiloxBlocks(key_, ids.data(), ctr_.v[1], indices.data(), ctr_.v[3], blocks, out + i);
    ctr_.v[2] += blocks;
    i += 4 * blocks;
  }
  if (i == n) return;
  refill();  // and the first 1 to 3 of its numbers
  for (used_ = 0; used_ < 4 && i < n; ++used_) out[i++] = block_[used_];
}

void KeyedStream::FillUniform(double* out, std::size_t n) {
  thread_local std::vector<std::uint64_t> bits;
  bits.resize(n);
  FillBits(bits.data(), n);
  for (std::size_t i = 0; i < n; ++i) out[i] = OpenUniform(bits[i]);
}

}  // namespace carousel
