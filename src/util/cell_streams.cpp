#include "carousel/util/cell_streams.hpp"

#if defined(__AVX512F__) || defined(__AVX2__)
#include <immintrin.h>
#endif

#include "carousel/util/mix64.hpp"

namespace carousel {
namespace {

// Philox4x32's multipliers and Weyl key increments (Salmon et al. 2011, as in Random123).
constexpr std::uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;
constexpr std::uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;

// Blocks 0 and 1 of one cell, one at a time.
void DrawCellWords(const CellStreamKey& key, std::uint32_t row, std::uint32_t cell,
                   std::uint64_t* words, std::size_t stride) {
  const r123::Philox4x32::key_type k = {{key.key[0], key.key[1]}};
  for (std::uint32_t block = 0; block < 2; ++block) {
    const auto out = r123::Philox4x32()({{row, key.iteration_low, cell, block}}, k);
    words[(2 * block) * stride] = std::uint64_t{out.v[0]} << 32 | out.v[1];
    words[(2 * block + 1) * stride] = std::uint64_t{out.v[2]} << 32 | out.v[3];
  }
}

#if defined(__AVX512F__)
// Blocks 0 and 1 of cells first..first+7, one cell per 64-bit lane. Each lane holds a
// 32-bit Philox word in its low half; _mm512_mul_epu32 multiplies low halves only, so the
// high halves may hold anything until the words are assembled at the end.
void DrawEightCellsWords(const CellStreamKey& key, std::uint32_t row, std::uint32_t first,
                         std::uint64_t* words, std::size_t stride) {
  const __m512i m0 = _mm512_set1_epi64(kM0), m1 = _mm512_set1_epi64(kM1);
  const __m512i low = _mm512_set1_epi64(0xffffffffLL);
  const __m512i cells =
      _mm512_add_epi64(_mm512_set1_epi64(first), _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0));
  for (std::uint32_t block = 0; block < 2; ++block) {
    __m512i c0 = _mm512_set1_epi64(row), c1 = _mm512_set1_epi64(key.iteration_low);
    __m512i c2 = cells, c3 = _mm512_set1_epi64(block);
    std::uint32_t k0 = key.key[0], k1 = key.key[1];
    for (int round = 0; round < 10; ++round) {
      const __m512i p0 = _mm512_mul_epu32(c0, m0), p1 = _mm512_mul_epu32(c2, m1);
      c0 = _mm512_xor_si512(_mm512_xor_si512(_mm512_srli_epi64(p1, 32), c1), _mm512_set1_epi64(k0));
      c1 = p1;
      c2 = _mm512_xor_si512(_mm512_xor_si512(_mm512_srli_epi64(p0, 32), c3), _mm512_set1_epi64(k1));
      c3 = p0;
      k0 += kW0;
      k1 += kW1;
    }
    const __m512i w0 = _mm512_or_si512(_mm512_slli_epi64(c0, 32), _mm512_and_si512(c1, low));
    const __m512i w1 = _mm512_or_si512(_mm512_slli_epi64(c2, 32), _mm512_and_si512(c3, low));
    _mm512_storeu_si512(words + (2 * block) * stride + first, w0);
    _mm512_storeu_si512(words + (2 * block + 1) * stride + first, w1);
  }
}
#elif defined(__AVX2__)
// The same for CPUs with AVX2 but not AVX-512: cells first..first+7 as two vectors of four
// lanes, advanced together so that the two multiply chains overlap.
void DrawEightCellsWords(const CellStreamKey& key, std::uint32_t row, std::uint32_t first,
                         std::uint64_t* words, std::size_t stride) {
  const __m256i m0 = _mm256_set1_epi64x(kM0), m1 = _mm256_set1_epi64x(kM1);
  const __m256i low = _mm256_set1_epi64x(0xffffffffLL);
  const __m256i base = _mm256_set1_epi64x(first);
  const __m256i cells[2] = {_mm256_add_epi64(base, _mm256_set_epi64x(3, 2, 1, 0)),
                            _mm256_add_epi64(base, _mm256_set_epi64x(7, 6, 5, 4))};
  for (std::uint32_t block = 0; block < 2; ++block) {
    __m256i c0[2], c1[2], c2[2], c3[2];
    for (int h = 0; h < 2; ++h) {
      c0[h] = _mm256_set1_epi64x(row);
      c1[h] = _mm256_set1_epi64x(key.iteration_low);
      c2[h] = cells[h];
      c3[h] = _mm256_set1_epi64x(block);
    }
    std::uint32_t k0 = key.key[0], k1 = key.key[1];
    for (int round = 0; round < 10; ++round) {
      const __m256i key0 = _mm256_set1_epi64x(k0), key1 = _mm256_set1_epi64x(k1);
      for (int h = 0; h < 2; ++h) {
        const __m256i p0 = _mm256_mul_epu32(c0[h], m0), p1 = _mm256_mul_epu32(c2[h], m1);
        c0[h] = _mm256_xor_si256(_mm256_xor_si256(_mm256_srli_epi64(p1, 32), c1[h]), key0);
        c1[h] = p1;
        c2[h] = _mm256_xor_si256(_mm256_xor_si256(_mm256_srli_epi64(p0, 32), c3[h]), key1);
        c3[h] = p0;
      }
      k0 += kW0;
      k1 += kW1;
    }
    for (int h = 0; h < 2; ++h) {
      const __m256i w0 =
          _mm256_or_si256(_mm256_slli_epi64(c0[h], 32), _mm256_and_si256(c1[h], low));
      const __m256i w1 =
          _mm256_or_si256(_mm256_slli_epi64(c2[h], 32), _mm256_and_si256(c3[h], low));
      std::uint64_t* out = words + first + 4 * h;
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + (2 * block) * stride), w0);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + (2 * block + 1) * stride), w1);
    }
  }
}
#endif

}  // namespace

CellStreamKey::CellStreamKey(std::uint64_t seed, Purpose purpose, std::uint64_t iteration) {
  const std::uint64_t mixed = SplitMix64(
      SplitMix64(SplitMix64(seed) ^ static_cast<std::uint64_t>(purpose)) ^ (iteration >> 32));
  key[0] = static_cast<std::uint32_t>(mixed);
  key[1] = static_cast<std::uint32_t>(mixed >> 32);
  iteration_low = static_cast<std::uint32_t>(iteration);
}

void DrawRowWords(const CellStreamKey& key, std::uint32_t row, std::uint32_t cells,
                  std::vector<std::uint64_t>& words) {
  const std::size_t stride = RowWordsStride(cells);
  words.resize(4 * stride);
  std::uint32_t cell = 0;
#if defined(__AVX512F__) || defined(__AVX2__)
  for (; cell < stride; cell += 8) DrawEightCellsWords(key, row, cell, words.data(), stride);
#endif
  for (; cell < cells; ++cell) DrawCellWords(key, row, cell, words.data() + cell, stride);
}

}  // namespace carousel
