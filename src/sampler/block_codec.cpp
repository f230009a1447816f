#include "carousel/sampler/block_codec.hpp"

#include "carousel/util/byte_buffer.hpp"

namespace carousel {
namespace {

void PutMatrix(ByteWriter& out, const Matrix& m) {
  out.PutArray(m.data(), static_cast<std::size_t>(m.size()));
}

}  // namespace

std::string EncodeBlock(const BlockState& block) {
  ByteWriter out;
  out.Put<std::int64_t>(block.theta.rows());
  out.Put<std::int64_t>(block.theta.cols());
  out.Put<std::int64_t>(static_cast<std::int64_t>(block.aux.size()));
  PutMatrix(out, block.theta);
  for (const Matrix& a : block.aux) PutMatrix(out, a);
  return out.Take();
}

std::size_t EncodedBlockSize(Eigen::Index rows, Eigen::Index cols, int aux_count) {
  const std::size_t matrix = sizeof(std::uint64_t) + sizeof(float) * rows * cols;
  return 3 * sizeof(std::int64_t) + matrix * static_cast<std::size_t>(1 + aux_count);
}

BlockState DecodeBlock(const std::string& bytes) {
  ByteReader in(bytes);
  const auto rows = in.Get<std::int64_t>(), cols = in.Get<std::int64_t>();
  const auto aux = in.Get<std::int64_t>();
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
  return block;
}

}  // namespace carousel
