// Wire and checkpoint format of a BlockState: shape, then theta and each auxiliary array.
#pragma once

#include <string>

#include "carousel/sampler/block.hpp"

namespace carousel {

std::string EncodeBlock(const BlockState& block);
BlockState DecodeBlock(const std::string& bytes);
// Size of EncodeBlock's result, known to a receiver before the block arrives; `clocked`:
// the block carries row clocks (BlockState::row_clock).
std::size_t EncodedBlockSize(Eigen::Index rows, Eigen::Index cols, int aux_count,
                             bool clocked = false);

}  // namespace carousel
