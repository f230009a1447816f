#include "carousel/sampler/scir_block.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#if defined(__AVX512F__) && defined(__AVX512DQ__) && defined(__AVX512VL__)
#include <immintrin.h>
#define CAROUSEL_SCIR_BLOCK_VECTOR 8  // entries per common-case call
#elif defined(__AVX2__)
#include <immintrin.h>
#define CAROUSEL_SCIR_BLOCK_VECTOR 4
#endif

#include "carousel/util/all_finite.hpp"
#include "carousel/util/ziggurat.hpp"

namespace carousel {
namespace {

#if CAROUSEL_SCIR_BLOCK_VECTOR == 8
// OpenUniform (util/keyed_rng.hpp) in eight lanes.
__m512d Uniforms(__m512i bits) {
  const __m512d u = _mm512_cvtepu64_pd(_mm512_srli_epi64(bits, 11));
  return _mm512_mul_pd(_mm512_add_pd(u, _mm512_set1_pd(0.5)), _mm512_set1_pd(0x1.0p-53));
}

// Step's common case for the entries of `lanes` (see the header), in the order of Step,
// PoissonVariate, GammaVariate and ZigguratNormal: the Poisson draw from word 0, the
// normal from word 1, the squeeze's uniform from word 2, the boost's from word 3. An
// entry with extra > 0 is in the common case only if its shape needs no boost (>= 1).
// Writes the entries it completes and returns their mask.
__mmask8 CommonCase(const ScirSharedShapeTransition& scir, double scale, __mmask8 lanes,
                    const std::uint32_t* counts, const std::uint64_t* words, std::size_t stride,
                    double* theta) {
  const GammaVariate& gamma = scir.base_gamma();
  const ZigguratTable& z = kNormalZiggurat;
  const __m512d one = _mm512_set1_pd(1.0);
  // N = 0: u <= 1 - mean (PoissonVariate's shortcut). A NaN or negative theta fails the
  // test and is left to Step, which reports it.
  const __m512d t = _mm512_maskz_loadu_pd(lanes, theta);
  const __m512i n = _mm512_cvtepu32_epi64(_mm256_maskz_loadu_epi32(lanes, counts));
  const __mmask8 base = _mm512_mask_cmpeq_epi64_mask(lanes, n, _mm512_setzero_si512());
  __mmask8 ok = _mm512_mask_cmp_pd_mask(lanes, t, _mm512_setzero_pd(), _CMP_GE_OQ);
  const __m512d mean = _mm512_mul_pd(t, _mm512_set1_pd(scir.decay_over_c()));
  const __m512d u0 = Uniforms(_mm512_maskz_loadu_epi64(lanes, words));
  ok = _mm512_mask_cmp_pd_mask(ok, u0, _mm512_sub_pd(one, mean), _CMP_LE_OQ);
  // The Gamma's constants: Gamma(base shape)'s, or those of shape base + extra >= 1
  // (GammaVariate's d = shape - 1/3 and c = 1 / sqrt(9 d)).
  const __m512d extra = _mm512_mul_pd(_mm512_set1_pd(scale), _mm512_cvtepu64_pd(n));
  const __m512d shape = _mm512_add_pd(_mm512_set1_pd(scir.base_shape()), extra);
  ok &= base | _mm512_cmp_pd_mask(shape, one, _CMP_GE_OQ);
  const __m512d shape_d = _mm512_sub_pd(shape, _mm512_set1_pd(1.0 / 3.0));
  const __m512d d = _mm512_mask_blend_pd(base, shape_d, _mm512_set1_pd(gamma.d()));
  const __m512d c = _mm512_mask_blend_pd(
      base, _mm512_div_pd(one, _mm512_sqrt_pd(_mm512_mul_pd(_mm512_set1_pd(9.0), d))),
      _mm512_set1_pd(gamma.c()));
  // Ziggurat normal: layer i from the low 8 bits, sign from bit 8, position from the top 53.
  const __m512i bits = _mm512_maskz_loadu_epi64(lanes, words + stride);
  const __m512i layer = _mm512_and_si512(bits, _mm512_set1_epi64(0xff));
  const __m512d width = _mm512_i64gather_pd(layer, z.x, 8);
  const __m512d inner = _mm512_i64gather_pd(layer, z.x + 1, 8);
  __m512d x = _mm512_mul_pd(
      _mm512_mul_pd(_mm512_cvtepu64_pd(_mm512_srli_epi64(bits, 11)), _mm512_set1_pd(0x1.0p-53)),
      width);
  ok = _mm512_mask_cmp_pd_mask(ok, x, inner, _CMP_LT_OQ);
  const __m512i sign =
      _mm512_slli_epi64(_mm512_and_si512(_mm512_srli_epi64(bits, 8), _mm512_set1_epi64(1)), 63);
  x = _mm512_castsi512_pd(_mm512_xor_si512(_mm512_castpd_si512(x), sign));
  // Marsaglia and Tsang: v = (1 + c x)^3 with 1 + c x > 0, accepted by the squeeze.
  __m512d v = _mm512_add_pd(one, _mm512_mul_pd(c, x));
  ok = _mm512_mask_cmp_pd_mask(ok, v, _mm512_setzero_pd(), _CMP_GT_OQ);
  v = _mm512_mul_pd(_mm512_mul_pd(v, v), v);
  const __m512d u1 = Uniforms(_mm512_maskz_loadu_epi64(lanes, words + 2 * stride));
  const __m512d x2 = _mm512_mul_pd(x, x);
  const __m512d squeeze =
      _mm512_sub_pd(one, _mm512_mul_pd(_mm512_mul_pd(_mm512_set1_pd(0.0331), x2), x2));
  ok = _mm512_mask_cmp_pd_mask(ok, u1, squeeze, _CMP_LT_OQ);
  __m512d g = _mm512_mul_pd(d, v);
  // The boost U^n by binary powering (GammaVariate::IntegerPower's order of multiplies).
  if (gamma.boost()) {
    unsigned power = gamma.boost_power();
    __m512d u = Uniforms(_mm512_maskz_loadu_epi64(lanes, words + 3 * stride));
    __m512d boost = _mm512_set1_pd(1.0);
    for (; power > 1; power >>= 1) {
      if (power & 1u) boost = _mm512_mul_pd(boost, u);
      u = _mm512_mul_pd(u, u);
    }
    g = _mm512_mask_mul_pd(g, base, g, _mm512_mul_pd(boost, u));
  }
  __m512d value = _mm512_mul_pd(_mm512_set1_pd(scir.c()), g);
  value = _mm512_max_pd(value, _mm512_set1_pd(kScirFloor));  // value >= floor ? value : floor
  _mm512_mask_storeu_pd(theta, ok, value);
  return ok;
}
#elif CAROUSEL_SCIR_BLOCK_VECTOR == 4
// The same common case in four lanes for CPUs with AVX2 but not AVX-512 (AMD before Zen 4,
// many cloud machines): the same operations in the same order, so the same bits. AVX2 has
// no mask registers (a lane's mask is all ones or all zeros in a vector) and no conversion
// from 64-bit integers, hence U53ToDouble.

// x (each lane below 2^53) as doubles, exactly: the high and low 32 bits are placed in the
// mantissas of 2^84 and 2^52, and (hi - (2^84 + 2^52)) + lo is exact because every partial
// result is a multiple of a power of two that fits in 53 bits.
__m256d U53ToDouble(__m256i x) {
  const __m256i lo =
      _mm256_blend_epi32(x, _mm256_set1_epi64x(0x4330000000000000LL), 0b10101010);  // 2^52 + lo
  const __m256i hi = _mm256_or_si256(_mm256_srli_epi64(x, 32),
                                     _mm256_set1_epi64x(0x4530000000000000LL));  // 2^84 + hi 2^32
  const __m256d high = _mm256_sub_pd(_mm256_castsi256_pd(hi), _mm256_set1_pd(0x1.00000001p84));
  return _mm256_add_pd(high, _mm256_castsi256_pd(lo));
}

__m256d Uniforms(__m256i bits) {  // OpenUniform in four lanes
  const __m256d u = U53ToDouble(_mm256_srli_epi64(bits, 11));
  return _mm256_mul_pd(_mm256_add_pd(u, _mm256_set1_pd(0.5)), _mm256_set1_pd(0x1.0p-53));
}

// PoissonVariate's inversion for a mean below 10, in the lanes of `invert`, from their
// uniforms u: the same steps in the same order (p = e^-mean by std::exp, lane by lane, so
// the same bits), each lane until its own search ends. Returns N (0 in other lanes).
__m256d PoissonByInversion(__m256d invert, __m256d mean, __m256d u) {
  alignas(32) double m[4], p0[4];
  _mm256_store_pd(m, mean);
  const int lanes = _mm256_movemask_pd(invert);
  for (int l = 0; l < 4; ++l) p0[l] = lanes >> l & 1 ? std::exp(-m[l]) : 0.0;
  __m256d p = _mm256_load_pd(p0), k = _mm256_setzero_pd();
  const __m256d one = _mm256_set1_pd(1.0);
  __m256d active = _mm256_and_pd(invert, _mm256_cmp_pd(u, p, _CMP_GT_OQ));  // while (u > p)
  while (_mm256_movemask_pd(active)) {
    u = _mm256_blendv_pd(u, _mm256_sub_pd(u, p), active);
    k = _mm256_blendv_pd(k, _mm256_add_pd(k, one), active);
    p = _mm256_blendv_pd(p, _mm256_mul_pd(p, _mm256_div_pd(mean, k)), active);
    const __m256d stop = _mm256_or_pd(_mm256_cmp_pd(p, _mm256_setzero_pd(), _CMP_LE_OQ),
                                      _mm256_cmp_pd(k, _mm256_set1_pd(1000.0), _CMP_GT_OQ));
    active = _mm256_andnot_pd(stop, _mm256_and_pd(active, _mm256_cmp_pd(u, p, _CMP_GT_OQ)));
  }
  return _mm256_and_pd(invert, k);
}

// Marsaglia and Tsang's second test, log u < x^2 / 2 + d (1 - v + log v), in the lanes of
// `check` (those whose squeeze failed, about one in ten): GammaVariate's test, lane by lane,
// so the same bits. Returns the lanes that pass.
__m256d LogTest(__m256d check, __m256d u, __m256d x2, __m256d d, __m256d v) {
  alignas(32) double us[4], x2s[4], ds[4], vs[4];
  alignas(32) std::int64_t pass[4];
  _mm256_store_pd(us, u);
  _mm256_store_pd(x2s, x2);
  _mm256_store_pd(ds, d);
  _mm256_store_pd(vs, v);
  const int lanes = _mm256_movemask_pd(check);
  for (int l = 0; l < 4; ++l) {
    const bool accept =
        (lanes >> l & 1) && GammaVariate::PassesLogTest(us[l], x2s[l], ds[l], vs[l]);
    pass[l] = accept ? -1 : 0;  // a lane's mask: all ones or all zeros
  }
  return _mm256_and_pd(
      check, _mm256_castsi256_pd(_mm256_load_si256(reinterpret_cast<const __m256i*>(pass))));
}

// lanes: entries 0..lanes-1 of the group (1..4). Returns the mask of the entries written.
// Unlike the AVX-512 case above it also takes a Poisson draw N > 0 by inversion (mean
// below 10, as PoissonVariate: one uniform, word 0), then Gamma(base + extra + N) with no
// boost: on KOS about a quarter of the entries (those with counts) left the common case
// for that alone.
unsigned CommonCase(const ScirSharedShapeTransition& scir, double scale, unsigned lanes,
                    const std::uint32_t* counts, const std::uint64_t* words, std::size_t stride,
                    double* theta) {
  const GammaVariate& gamma = scir.base_gamma();
  const ZigguratTable& z = kNormalZiggurat;
  const __m256d one = _mm256_set1_pd(1.0), zero = _mm256_setzero_pd();
  const __m256i live = _mm256_cmpgt_epi64(_mm256_set1_epi64x(lanes), _mm256_set_epi64x(3, 2, 1, 0));
  // N = 0: u <= 1 - mean (PoissonVariate's shortcut); a NaN or negative theta fails.
  // A whole group is read and written by plain loads and stores (masked ones are slow on
  // AMD processors); only a row's last, partial group is masked.
  const bool whole = lanes == 4;
  const __m256d t = whole ? _mm256_loadu_pd(theta) : _mm256_maskload_pd(theta, live);
  const __m128i live32 = _mm256_castsi256_si128(
      _mm256_permutevar8x32_epi32(live, _mm256_set_epi32(7, 7, 7, 7, 6, 4, 2, 0)));
  const __m256i n = _mm256_cvtepu32_epi64(
      whole ? _mm_loadu_si128(reinterpret_cast<const __m128i*>(counts))
            : _mm_maskload_epi32(reinterpret_cast<const int*>(counts), live32));
  __m256d ok = _mm256_and_pd(_mm256_castsi256_pd(live), _mm256_cmp_pd(t, zero, _CMP_GE_OQ));
  const __m256d mean = _mm256_mul_pd(t, _mm256_set1_pd(scir.decay_over_c()));
  const __m256d u0 = Uniforms(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(words)));
  const __m256d shortcut = _mm256_cmp_pd(u0, _mm256_sub_pd(one, mean), _CMP_LE_OQ);
  // Otherwise, for a mean below 10, N by inversion.
  const __m256d invert = _mm256_andnot_pd(
      shortcut, _mm256_and_pd(ok, _mm256_cmp_pd(mean, _mm256_set1_pd(10.0), _CMP_LT_OQ)));
  const __m256d draws =
      _mm256_movemask_pd(invert) ? PoissonByInversion(invert, mean, u0) : _mm256_setzero_pd();
  ok = _mm256_and_pd(ok, _mm256_or_pd(shortcut, invert));
  // The Gamma's constants: Gamma(base shape)'s where extra + N = 0 (Step's extra_n), else
  // those of shape base + (extra + N) >= 1.
  const __m256d extra = _mm256_add_pd(_mm256_mul_pd(_mm256_set1_pd(scale), U53ToDouble(n)), draws);
  const __m256d base = _mm256_cmp_pd(extra, zero, _CMP_EQ_OQ);
  const __m256d shape = _mm256_add_pd(_mm256_set1_pd(scir.base_shape()), extra);
  ok = _mm256_and_pd(ok, _mm256_or_pd(base, _mm256_cmp_pd(shape, one, _CMP_GE_OQ)));
  const __m256d shape_d = _mm256_sub_pd(shape, _mm256_set1_pd(1.0 / 3.0));
  const __m256d d = _mm256_blendv_pd(shape_d, _mm256_set1_pd(gamma.d()), base);
  // c = 1 / sqrt(9 d), needed only where not every lane is base (no count, no N).
  const __m256d c =
      _mm256_movemask_pd(base) == 15
          ? _mm256_set1_pd(gamma.c())
          : _mm256_blendv_pd(
                _mm256_div_pd(one, _mm256_sqrt_pd(_mm256_mul_pd(_mm256_set1_pd(9.0), d))),
                _mm256_set1_pd(gamma.c()), base);
  // Ziggurat normal: layer i from the low 8 bits, sign from bit 8, position from the top 53.
  const __m256i bits = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(words + stride));
  const __m256i layer = _mm256_and_si256(bits, _mm256_set1_epi64x(0xff));
  const __m256d width = _mm256_i64gather_pd(z.x, layer, 8);
  const __m256d inner = _mm256_i64gather_pd(z.x + 1, layer, 8);
  __m256d x = _mm256_mul_pd(
      _mm256_mul_pd(U53ToDouble(_mm256_srli_epi64(bits, 11)), _mm256_set1_pd(0x1.0p-53)), width);
  ok = _mm256_and_pd(ok, _mm256_cmp_pd(x, inner, _CMP_LT_OQ));
  const __m256i sign =
      _mm256_slli_epi64(_mm256_and_si256(_mm256_srli_epi64(bits, 8), _mm256_set1_epi64x(1)), 63);
  x = _mm256_xor_pd(x, _mm256_castsi256_pd(sign));
  // Marsaglia and Tsang: v = (1 + c x)^3 with 1 + c x > 0, accepted by the squeeze.
  __m256d v = _mm256_add_pd(one, _mm256_mul_pd(c, x));
  ok = _mm256_and_pd(ok, _mm256_cmp_pd(v, zero, _CMP_GT_OQ));
  v = _mm256_mul_pd(_mm256_mul_pd(v, v), v);
  const __m256d u1 =
      Uniforms(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(words + 2 * stride)));
  const __m256d x2 = _mm256_mul_pd(x, x);
  const __m256d squeeze =
      _mm256_sub_pd(one, _mm256_mul_pd(_mm256_mul_pd(_mm256_set1_pd(0.0331), x2), x2));
  const __m256d squeezed = _mm256_cmp_pd(u1, squeeze, _CMP_LT_OQ);
  // Where the squeeze fails, the log test decides here rather than by Step from the start.
  const __m256d check = _mm256_andnot_pd(squeezed, ok);
  ok = _mm256_and_pd(ok, _mm256_movemask_pd(check)
                             ? _mm256_or_pd(squeezed, LogTest(check, u1, x2, d, v))
                             : squeezed);
  __m256d g = _mm256_mul_pd(d, v);
  // The boost U^n by binary powering (GammaVariate::IntegerPower's order of multiplies).
  if (gamma.boost()) {
    unsigned power = gamma.boost_power();
    __m256d u = Uniforms(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(words + 3 * stride)));
    __m256d boost = one;
    for (; power > 1; power >>= 1) {
      if (power & 1u) boost = _mm256_mul_pd(boost, u);
      u = _mm256_mul_pd(u, u);
    }
    g = _mm256_blendv_pd(g, _mm256_mul_pd(g, _mm256_mul_pd(boost, u)), base);
  }
  __m256d value = _mm256_mul_pd(_mm256_set1_pd(scir.c()), g);
  value = _mm256_max_pd(value, _mm256_set1_pd(kScirFloor));  // value >= floor ? value : floor
  if (whole)
    _mm256_storeu_pd(theta, _mm256_blendv_pd(t, value, ok));
  else
    _mm256_maskstore_pd(theta, _mm256_castpd_si256(ok), value);
  return static_cast<unsigned>(_mm256_movemask_pd(ok));
}
#endif

}  // namespace

double ScirEntryStep(const ScirSharedShapeTransition& scir, const CellStreamKey& key,
                     std::uint32_t row_id, std::uint32_t column, const std::uint64_t* words,
                     std::size_t stride, double theta, std::uint32_t count, double scale) {
  CellStream rng(key, row_id, column, words, stride);
  return scir.Step(theta, scale * count, rng);
}

bool ScirBlockStep(const ScirSharedShapeTransition& scir, const CellStreamKey& key,
                   const std::vector<std::uint32_t>& row_ids, std::uint32_t columns,
                   const std::uint32_t* counts, double scale, double* theta, double* column_total) {
  const std::size_t stride = RowWordsStride(columns);
  std::vector<std::uint64_t> words;
  bool finite = true;
#ifdef CAROUSEL_SCIR_BLOCK_VECTOR
  constexpr std::uint32_t kGroup = CAROUSEL_SCIR_BLOCK_VECTOR;
  // The vector case needs the base shape's boost to be an integer power (or no boost).
  const bool vector = scir.base_gamma().boost_power() > 0 || !scir.base_gamma().boost();
#else
  constexpr std::uint32_t kGroup = 8;
#endif
  for (std::size_t r = 0; r < row_ids.size(); ++r) {
    DrawRowWords(key, row_ids[r], columns, words);
    double* t = theta + r * columns;
    const std::uint32_t* n = counts + r * columns;
    for (std::uint32_t k0 = 0; k0 < columns; k0 += kGroup) {
      const std::uint32_t end = std::min(columns, k0 + kGroup);
      unsigned done = 0;  // bit k - k0: entry k was drawn by the common case
#if CAROUSEL_SCIR_BLOCK_VECTOR == 8
      if (vector) {
        const auto lanes = static_cast<__mmask8>((1u << (end - k0)) - 1u);
        done = CommonCase(scir, scale, lanes, n + k0, words.data() + k0, stride, t + k0);
      }
#elif CAROUSEL_SCIR_BLOCK_VECTOR == 4
      if (vector)
        done = CommonCase(scir, scale, end - k0, n + k0, words.data() + k0, stride, t + k0);
#endif
      if (done != (1u << (end - k0)) - 1u)
        for (std::uint32_t k = k0; k < end; ++k)
          if (!(done >> (k - k0) & 1u))
            t[k] = ScirEntryStep(scir, key, row_ids[r], k, words.data() + k, stride, t[k], n[k],
                                 scale);
    }
    // The row's totals and its check apart from the draws, as loops the compiler vectorises.
    for (std::uint32_t k = 0; k < columns; ++k) column_total[k] += t[k];
    finite = finite && AllFinite(t, columns);
  }
  return finite;
}

}  // namespace carousel
