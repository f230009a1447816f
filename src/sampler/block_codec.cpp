#include "carousel/sampler/block_codec.hpp"

#include "carousel/util/byte_buffer.hpp"

namespace carousel {
namespace {

void PutMatrix(ByteWriter& out, const Matrix& m) {
  out.PutArray(m.data(), static_cast<std::size_t>(m.size()));
}

// The header's third word holds the auxiliary count, and bit 32 whether row clocks follow
// the arrays (blocks written before rows had clocks have it clear: every row current).
constexpr std::int64_t kClockedBit = std::int64_t{1} << 32;

}  // namespace

std::string EncodeBlock(const BlockState& block) {
  ByteWriter out;
  out.Put<std::int64_t>(block.theta.rows());
  out.Put<std::int64_t>(block.theta.cols());
  const bool clocked = !block.row_clock.empty();
  out.Put<std::int64_t>(static_cast<std::int64_t>(block.aux.size()) | (clocked ? kClockedBit : 0));
  PutMatrix(out, block.theta);
  for (const Matrix& a : block.aux) PutMatrix(out, a);
  if (clocked) out.PutArray(block.row_clock.data(), block.row_clock.size());
  return out.Take();
}

std::size_t EncodedBlockSize(Eigen::Index rows, Eigen::Index cols, int aux_count, bool clocked) {
  const std::size_t matrix = sizeof(std::uint64_t) + sizeof(float) * rows * cols;
  const std::size_t clocks =
      clocked ? sizeof(std::uint64_t) + sizeof(std::uint64_t) * static_cast<std::size_t>(rows) : 0;
  return 3 * sizeof(std::int64_t) + matrix * static_cast<std::size_t>(1 + aux_count) + clocks;
}

BlockState DecodeBlock(const std::string& bytes) {
  ByteReader in(bytes);
  const auto rows = in.Get<std::int64_t>(), cols = in.Get<std::int64_t>();
  const auto aux_word = in.Get<std::int64_t>();
  const bool clocked = (aux_word & kClockedBit) != 0;
  const auto aux = aux_word & ~kClockedBit;
  if (rows < 0 || cols < 0 || aux < 0 || aux > 16)
    throw Error(ExitCode::kCheckpoint, "state block has an invalid shape");
  BlockState block;
  block.theta.resize(rows, cols);
  in.GetArray(block.theta.data(), static_cast<std::size_t>(rows * cols));
  block.aux.resize(static_cast<std::size_t>(aux));
  for (Matrix& a : block.aux) {
    a.resize(rows, cols);
    in.GetArray(a.data(), static_cast<std::size_t>(rows * cols));
  }
  if (clocked) {
    block.row_clock.resize(static_cast<std::size_t>(rows));
    in.GetArray(block.row_clock.data(), block.row_clock.size());
  }
  return block;
}

}  // namespace carousel
