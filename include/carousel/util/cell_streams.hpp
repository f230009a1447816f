// Keyed random streams for the cells of a row, one stream per cell, whose first four
// 64-bit words are drawn for all the cells of the row at once.
//
// Why: SCIR's topic-word update (sampler/topic_word_update.hpp) draws a Poisson and a
// Gamma variate for every one of a block's W x K cells each iteration, and one
// KeyedStream per word served them in sequence: its Philox4x64 blocks and the calls
// around them were most of the update's time. Here each cell has its own stream,
// Philox4x32-10 (Salmon et al. 2011; Random123's r123::Philox4x32, whose outputs
// DrawRowWords reproduces bit for bit) with key (seed, purpose, iteration) and counter
// (row, iteration, cell, block). Cells are independent of each other, so the first two
// blocks of every cell (four 64-bit words, what almost every draw needs) are computed
// together, eight cells per AVX-512 instruction where the CPU has it (two of four with AVX2), and a
// cell that needs more (a rejection, a Poisson draw above 0) computes its further blocks alone. The
// numbers a cell gets depend only on its key and counter, never on the vector width or on which
// rank draws them (DESIGN.md section 1).
#pragma once

#include <Random123/philox.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "carousel/util/keyed_rng.hpp"

namespace carousel {

// The Philox4x32 key of a (seed, purpose, iteration) and the iteration's low 32 bits,
// which go into each cell's counter.
struct CellStreamKey {
  CellStreamKey(std::uint64_t seed, Purpose purpose, std::uint64_t iteration);
  std::uint32_t key[2];
  std::uint32_t iteration_low;
};

// The first four 64-bit words of the streams of cells 0..cells-1 of `row`, word m of
// cell i at words[m * stride + i], stride = RowWordsStride(cells). words is resized.
inline std::size_t RowWordsStride(std::size_t cells) {
  return (cells + 7) / 8 * 8;
}
void DrawRowWords(const CellStreamKey& key, std::uint32_t row, std::uint32_t cells,
                  std::vector<std::uint64_t>& words);

// One cell's stream, with KeyedStream's bits() and uniform(): the four words drawn by
// DrawRowWords first, then Philox4x32 blocks 2, 3, ... of the cell's counter.
class CellStream {
 public:
  CellStream(const CellStreamKey& key, std::uint32_t row, std::uint32_t cell,
             const std::uint64_t* first_words, std::size_t stride)
      : key_(&key), row_(row), cell_(cell), first_(first_words), stride_(stride) {}

  std::uint64_t bits() {
    if (used_ < 4) return first_[stride_ * used_++];
    if (used_ % 2 == 0) Refill();
    return block_[used_++ % 2];
  }

  double uniform() { return OpenUniform(bits()); }  // on (0, 1), as KeyedStream's

 private:
  void Refill() {
    const r123::Philox4x32::ctr_type ctr = {
        {row_, key_->iteration_low, cell_, static_cast<std::uint32_t>(used_ / 2)}};
    const r123::Philox4x32::key_type k = {{key_->key[0], key_->key[1]}};
    const auto out = r123::Philox4x32()(ctr, k);
    block_[0] = std::uint64_t{out.v[0]} << 32 | out.v[1];
    block_[1] = std::uint64_t{out.v[2]} << 32 | out.v[3];
  }

  const CellStreamKey* key_;
  std::uint32_t row_, cell_;
  const std::uint64_t* first_;
  std::size_t stride_;
  unsigned used_ = 0;
  std::uint64_t block_[2] = {0, 0};
};

}  // namespace carousel
