// GCC 12's AVX-512 intrinsics (_mm512_mul_epu32 and the shifts) give their unused merge
// operand a self-initialised value, which -Wuninitialized reports at every call it inlines:
// the false positive CMakeLists.txt notes for Eigen.
#pragma GCC diagnostic ignored "-Wuninitialized"

#include "carousel/util/philox_lanes.hpp"

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace carousel {
namespace {

using Philox = r123::Philox4x64;

#if defined(__AVX512F__)
// lo and hi of the 128-bit products m * x, lane by lane, from four 32 x 32-bit products.
__m512i MulHiLo(__m512i x, std::uint64_t m, __m512i* hi) {
  const __m512i low_half = _mm512_set1_epi64(0xffffffffLL);
  const __m512i m_lo = _mm512_set1_epi64(static_cast<long long>(m & 0xffffffffULL));
  const __m512i m_hi = _mm512_set1_epi64(static_cast<long long>(m >> 32));
  const __m512i x_hi = _mm512_srli_epi64(x, 32);
  const __m512i ll = _mm512_mul_epu32(x, m_lo), lh = _mm512_mul_epu32(x, m_hi);
  const __m512i hl = _mm512_mul_epu32(x_hi, m_lo), hh = _mm512_mul_epu32(x_hi, m_hi);
  // The middle 64 bits: at most 3 (2^32 - 1), no carry lost.
  const __m512i mid =
      _mm512_add_epi64(_mm512_add_epi64(_mm512_srli_epi64(ll, 32), _mm512_and_si512(lh, low_half)),
                       _mm512_and_si512(hl, low_half));
  *hi = _mm512_add_epi64(_mm512_add_epi64(hh, _mm512_srli_epi64(lh, 32)),
                         _mm512_add_epi64(_mm512_srli_epi64(hl, 32), _mm512_srli_epi64(mid, 32)));
  return _mm512_or_si512(_mm512_slli_epi64(mid, 32), _mm512_and_si512(ll, low_half));
}

// Counters 0 .. 8 kGroups - 1 of the arrays: Random123's ten rounds (philox4x64round, the
// key bumped before every round but the first); kGroups vectors in flight hide the
// products' latency (four: 1.5 ns a normal in keyed_normals.cpp's fills, against 2.4 with one).
template <int kGroups>
void Lanes(const Philox::key_type& key, const std::uint64_t* word0, std::uint64_t word1,
           const std::uint64_t* word2, std::uint64_t word3, std::uint64_t* out) {
  __m512i x0[kGroups], x1[kGroups], x2[kGroups], x3[kGroups];
  for (int g = 0; g < kGroups; ++g) {
    x0[g] = _mm512_loadu_si512(word0 + 8 * g);
    x1[g] = _mm512_set1_epi64(static_cast<long long>(word1));
    x2[g] = _mm512_loadu_si512(word2 + 8 * g);
    x3[g] = _mm512_set1_epi64(static_cast<long long>(word3));
  }
  std::uint64_t k0 = key.v[0], k1 = key.v[1];
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
  alignas(64) std::uint64_t words[4][8 * kGroups];
  for (int g = 0; g < kGroups; ++g) {
    _mm512_store_si512(words[0] + 8 * g, x0[g]);
    _mm512_store_si512(words[1] + 8 * g, x1[g]);
    _mm512_store_si512(words[2] + 8 * g, x2[g]);
    _mm512_store_si512(words[3] + 8 * g, x3[g]);
  }
  for (int l = 0; l < 8 * kGroups; ++l)
    for (int i = 0; i < 4; ++i) out[4 * l + i] = words[i][l];
}
#endif

}  // namespace

void PhiloxBlocks(const Philox::key_type& key, const std::uint64_t* word0, std::uint64_t word1,
                  const std::uint64_t* word2, std::uint64_t word3, std::size_t n,
                  std::uint64_t* out) {
  std::size_t i = 0;
#if defined(__AVX512F__)
  for (; i + 32 <= n; i += 32) Lanes<4>(key, word0 + i, word1, word2 + i, word3, out + 4 * i);
  for (; i + 8 <= n; i += 8) Lanes<1>(key, word0 + i, word1, word2 + i, word3, out + 4 * i);
#endif
  for (; i < n; ++i) {
    const Philox::ctr_type block =
        Philox()(Philox::ctr_type{{word0[i], word1, word2[i], word3}}, key);
    for (std::size_t w = 0; w < 4; ++w) out[4 * i + w] = block.v[w];
  }
}

}  // namespace carousel
