// GCC 12's AVX-512 intrinsics (_mm512_mul_epu32 and the shifts here, Eigen's sine and
// cosine) give their unused merge operand a self-initialised value, which -Wuninitialized
// reports at every call it inlines: the false positive CMakeLists.txt notes for Eigen.
#pragma GCC diagnostic ignored "-Wuninitialized"

#include "carousel/util/keyed_normals.hpp"

#include <Random123/philox.h>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

#include <vector>

namespace carousel {
namespace {

using Philox = r123::Philox4x64;

// The 64-bit words of rows' Philox blocks: block b of a row is Philox4x64-10 of counter
// (id, iteration, b, 1) under key (seed, purpose), and its four words are the row's words
// 4b .. 4b + 3. Every (row, block) pair is independent, so the pairs form one flat list of
// lanes, computed 32 at a time where AVX-512 is there (four vectors of eight in flight hide
// the multiplications' latency; a fill of 64 rows of 33 columns then takes 1.5 ns a normal
// against 3.5 one block at a time): the same integers as Random123's Philox
// (PhiloxWordsMatchRandom123 in tests/util/keyed_normals_test.cpp).
class RowWords {
 public:
  RowWords(std::uint64_t seed, Purpose purpose, std::uint64_t iteration)
      : key_{{seed, static_cast<std::uint64_t>(purpose)}}, iteration_(iteration) {}

  // Whole blocks: a row's words are RowWords::Stride(words_per_row) apart.
  static Eigen::Index Stride(Eigen::Index words_per_row) { return 4 * ((words_per_row + 3) / 4); }

  // Row r's words at words[r * Stride(words_per_row) ..].
  void Fill(const std::uint32_t* ids, Eigen::Index rows, Eigen::Index words_per_row,
            std::vector<std::uint64_t>& words) const {
    const Eigen::Index blocks = Stride(words_per_row) / 4;
    const Eigen::Index lanes = rows * blocks;
    words.resize(static_cast<std::size_t>(4 * lanes));
    // Lane l is (row l / blocks, block l % blocks): its words are words[4 l .. 4 l + 3].
    thread_local std::vector<std::uint64_t> lane_id, lane_block;
    lane_id.resize(static_cast<std::size_t>(lanes));
    lane_block.resize(static_cast<std::size_t>(lanes));
    for (Eigen::Index r = 0, l = 0; r < rows; ++r)
      for (Eigen::Index b = 0; b < blocks; ++b, ++l) {
        lane_id[static_cast<std::size_t>(l)] = ids[r];
        lane_block[static_cast<std::size_t>(l)] = static_cast<std::uint64_t>(b);
      }
    Eigen::Index lane = 0;
#if defined(__AVX512F__)
    for (; lane + 32 <= lanes; lane += 32)
      Lanes<4>(lane_id.data() + lane, lane_block.data() + lane, words.data() + 4 * lane);
    for (; lane + 8 <= lanes; lane += 8)
      Lanes<1>(lane_id.data() + lane, lane_block.data() + lane, words.data() + 4 * lane);
#endif
    for (; lane < lanes; ++lane) {
      const auto l = static_cast<std::size_t>(lane);
      const Philox::ctr_type out =
          Philox()(Philox::ctr_type{{lane_id[l], iteration_, lane_block[l], 1}}, key_);
      for (std::size_t i = 0; i < 4; ++i) words[4 * l + i] = out.v[i];
    }
  }

 private:
#if defined(__AVX512F__)
  // lo and hi of the 128-bit products m * x, lane by lane, from four 32 x 32-bit products.
  static __m512i MulHiLo(__m512i x, std::uint64_t m, __m512i* hi) {
    const __m512i low_half = _mm512_set1_epi64(0xffffffffLL);
    const __m512i m_lo = _mm512_set1_epi64(static_cast<long long>(m & 0xffffffffULL));
    const __m512i m_hi = _mm512_set1_epi64(static_cast<long long>(m >> 32));
    const __m512i x_hi = _mm512_srli_epi64(x, 32);
    const __m512i ll = _mm512_mul_epu32(x, m_lo), lh = _mm512_mul_epu32(x, m_hi);
    const __m512i hl = _mm512_mul_epu32(x_hi, m_lo), hh = _mm512_mul_epu32(x_hi, m_hi);
    // The middle 64 bits: at most 3 (2^32 - 1), no carry lost.
    const __m512i mid = _mm512_add_epi64(
        _mm512_add_epi64(_mm512_srli_epi64(ll, 32), _mm512_and_si512(lh, low_half)),
        _mm512_and_si512(hl, low_half));
    *hi = _mm512_add_epi64(_mm512_add_epi64(hh, _mm512_srli_epi64(lh, 32)),
                           _mm512_add_epi64(_mm512_srli_epi64(hl, 32), _mm512_srli_epi64(mid, 32)));
    return _mm512_or_si512(_mm512_slli_epi64(mid, 32), _mm512_and_si512(ll, low_half));
  }

  // The 8 kGroups lanes whose counters' words 0 and 2 are id[..] and block[..]: Random123's
  // ten rounds (philox4x64round, the key bumped before every round but the first).
  template <int kGroups>
  void Lanes(const std::uint64_t* id, const std::uint64_t* block, std::uint64_t* words) const {
    __m512i x0[kGroups], x1[kGroups], x2[kGroups], x3[kGroups];
    for (int g = 0; g < kGroups; ++g) {
      x0[g] = _mm512_loadu_si512(id + 8 * g);
      x1[g] = _mm512_set1_epi64(static_cast<long long>(iteration_));
      x2[g] = _mm512_loadu_si512(block + 8 * g);
      x3[g] = _mm512_set1_epi64(1);
    }
    std::uint64_t k0 = key_.v[0], k1 = key_.v[1];
    for (int round = 0; round < 10; ++round) {
      if (round > 0) {
        k0 += PHILOX_W64_0;
        k1 += PHILOX_W64_1;
      }
      const __m512i key0 = _mm512_set1_epi64(static_cast<long long>(k0));
      const __m512i key1 = _mm512_set1_epi64(static_cast<long long>(k1));
      for (int g = 0; g < kGroups; ++g) {
        __m512i hi0, hi1;
        const __m512i lo0 = MulHiLo(x0[g], PHILOX_M4x64_0, &hi0);
        const __m512i lo1 = MulHiLo(x2[g], PHILOX_M4x64_1, &hi1);
        x0[g] = _mm512_xor_si512(_mm512_xor_si512(hi1, x1[g]), key0);
        x1[g] = lo1;
        x2[g] = _mm512_xor_si512(_mm512_xor_si512(hi0, x3[g]), key1);
        x3[g] = lo0;
      }
    }
    alignas(64) std::uint64_t out[4][8 * kGroups];
    for (int g = 0; g < kGroups; ++g) {
      _mm512_store_si512(out[0] + 8 * g, x0[g]);
      _mm512_store_si512(out[1] + 8 * g, x1[g]);
      _mm512_store_si512(out[2] + 8 * g, x2[g]);
      _mm512_store_si512(out[3] + 8 * g, x3[g]);
    }
    for (int l = 0; l < 8 * kGroups; ++l)
      for (int i = 0; i < 4; ++i) words[4 * l + i] = out[i][l];
  }
#endif

  Philox::key_type key_;
  std::uint64_t iteration_;
};

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
  RowWords(seed, purpose, iteration).Fill(ids, rows, pairs, words);
  const Eigen::Index stride = RowWords::Stride(pairs);
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
