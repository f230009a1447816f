#include "carousel/sampler/scir_block.hpp"

#include <algorithm>
#include <cmath>

#if defined(__AVX512F__) && defined(__AVX512DQ__) && defined(__AVX512VL__)
#include <immintrin.h>
#define CAROUSEL_SCIR_BLOCK_VECTOR 1
#endif

#include "carousel/util/ziggurat.hpp"

namespace carousel {
namespace {

#ifdef CAROUSEL_SCIR_BLOCK_VECTOR
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
  // The vector case needs the base shape's boost to be an integer power (or no boost).
  const bool vector = scir.base_gamma().boost_power() > 0 || !scir.base_gamma().boost();
#endif
  for (std::size_t r = 0; r < row_ids.size(); ++r) {
    DrawRowWords(key, row_ids[r], columns, words);
    double* t = theta + r * columns;
    const std::uint32_t* n = counts + r * columns;
    for (std::uint32_t k0 = 0; k0 < columns; k0 += 8) {
      const std::uint32_t end = std::min(columns, k0 + 8);
      unsigned done = 0;  // bit k - k0: entry k was drawn by the common case
#ifdef CAROUSEL_SCIR_BLOCK_VECTOR
      if (vector) {
        const auto lanes = static_cast<__mmask8>((1u << (end - k0)) - 1u);
        done = CommonCase(scir, scale, lanes, n + k0, words.data() + k0, stride, t + k0);
      }
#endif
      for (std::uint32_t k = k0; k < end; ++k) {
        if (!(done >> (k - k0) & 1u))
          t[k] =
              ScirEntryStep(scir, key, row_ids[r], k, words.data() + k, stride, t[k], n[k], scale);
        finite = finite && std::isfinite(t[k]);
        column_total[k] += t[k];
      }
    }
  }
  return finite;
}

}  // namespace carousel
