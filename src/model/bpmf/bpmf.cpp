#include "carousel/model/bpmf/bpmf.hpp"

#include <algorithm>
#include <cmath>
#include <type_traits>

#include <immintrin.h>

#include "carousel/util/error.hpp"
#include "carousel/util/mix64.hpp"
#include "carousel/util/prefetch.hpp"

namespace carousel {

void TileRatings::FindRowsAndColumnsWithData(std::size_t columns) {
  rows_with_data.clear();
  for (std::uint32_t r = 0; r + 1 < row_start.size(); ++r)
    if (row_start[r + 1] > row_start[r]) rows_with_data.push_back(r);
  std::vector<bool> rated(columns, false);
  for (std::uint32_t c : col) rated[c] = true;
  cols_with_data.clear();
  for (std::uint32_t c = 0; c < columns; ++c)
    if (rated[c]) cols_with_data.push_back(c);
}

Subsample Subsample::For(double fraction, std::uint64_t seed, std::uint64_t tile,
                         std::uint64_t iteration) {
  Subsample s;
  s.fraction = fraction;
  s.key = SplitMix64(SplitMix64(SplitMix64(seed) ^ tile) ^ iteration);
  return s;
}

bool Subsample::Keeps(std::uint64_t entry) const {
  if (fraction >= 1.0) return true;
  const double u = static_cast<double>(SplitMix64(key ^ entry) >> 11) * 0x1.0p-53;
  return u < fraction;
}

SystematicSubset SystematicSubset::For(double fraction, std::uint64_t seed, std::uint64_t tile,
                                       std::uint64_t iteration) {
  SystematicSubset s;
  const double stride = std::max(1.0, std::round(1.0 / fraction));
  s.stride = static_cast<std::uint32_t>(std::min(stride, 1e9));
  s.offset = static_cast<std::uint32_t>(Subsample::For(1.0, seed, tile, iteration).key % s.stride);
  return s;
}

namespace {

// Dot product with 8 independent partial sums added in a fixed order: the compiler can
// vectorise it (a single running sum is a serial dependency it may not reorder without
// -ffast-math), and the result is still the same on every rank.
template <int kFixed>
__attribute__((always_inline)) inline float Dot(const float* __restrict a,
                                                const float* __restrict b, int k_runtime) {
  const int k = kFixed > 0 ? kFixed : k_runtime;
  float lane[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int f = 0;
  for (; f + 8 <= k; f += 8)
    for (int l = 0; l < 8; ++l) lane[l] += a[f + l] * b[f + l];
  for (int l = 0; f < k && l < 8; ++f, ++l) lane[l] += a[f] * b[f];  // l < 8: k - f < 8 here
  return ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
}

// The item rows (parameters and gradient) of the rating this many places ahead are
// fetched into the cache while the current one is computed: their order comes from the
// data, so the hardware prefetcher cannot guess it, and at Netflix's shape H and its
// gradient (two rows of K + 1 floats per rating) do not fit in a core's L2.
constexpr std::size_t kPrefetchAhead = 8;

// Where rows without data sit out, a tile touches a row of W only now and then, and W has
// left the cache in between: the load of the row stalled its pass (a quarter of the pass at
// 64 tiles, measured). The rows with data are known in advance (rows_with_data), so the row
// this many rows ahead is fetched while the current one is summed and stepped.
constexpr std::size_t kRowsAhead = 4;

// The cache lines of row r of x (K + 1 floats, not line-aligned).
inline void PrefetchRow(const Matrix& x, std::uint32_t r) {
  PrefetchBytes(x.row(r).data(), static_cast<std::size_t>(x.cols()) * sizeof(float));
}

// Fetches the row kRowsAhead rows-with-data past the i-th one; i counts the rows with data
// seen so far. Nothing when the tile's rows_with_data is not filled (tiles built by tests).
inline void PrefetchRowAhead(const TileRatings& tile, const Matrix& w, std::size_t i) {
  const std::size_t ahead = i + kRowsAhead;
  // GCC 12 drops this function's prefetches as dead code after inlining (the tile gradient
  // had none in its loop); an empty volatile asm keeps the branch.
  asm volatile("" ::"r"(ahead));
  if (ahead < tile.rows_with_data.size() && tile.rows_with_data[ahead] < w.rows())
    PrefetchRow(w, tile.rows_with_data[ahead]);
}

// The rows of a tile to visit, in order: its rows with entries (rows_with_data) where that
// list is filled, else every row (tiles built by tests; the caller skips the empty ones). A
// scan of every row mispredicts its test for an empty row wherever a tile leaves many rows
// empty, about half of them at 64 tiles (the 64-tile pass of 25M ratings took 3-11% less
// with the list, bench/README.md "Scale-out").
class RowVisits {
 public:
  explicit RowVisits(const TileRatings& tile)
      : list_(tile.rows_with_data.empty() ? nullptr : tile.rows_with_data.data()),
        size_(list_                    ? tile.rows_with_data.size()
              : tile.row_start.empty() ? 0
                                       : tile.row_start.size() - 1) {}
  std::size_t size() const { return size_; }
  Eigen::Index operator[](std::size_t i) const {
    return static_cast<Eigen::Index>(list_ ? list_[i] : i);
  }

 private:
  const std::uint32_t* list_;
  std::size_t size_;
};

inline void PrefetchItemRows(const Matrix& h, const Matrix& lik_h, std::uint32_t c) {
  constexpr std::size_t kLine = 64 / sizeof(float);
  const float* hc = h.row(c).data();
  const float* gh = lik_h.row(c).data();
  for (Eigen::Index f = 0; f < h.cols(); f += kLine) {
    __builtin_prefetch(hc + f, 0);
    __builtin_prefetch(gh + f, 1);
  }
}

#if defined(__AVX512F__) && defined(__AVX512VL__)
// The gradient pass of TileGradient<K, false> with the row arithmetic in 8-float vectors
// (AVX-512VL masks for the ragged end of a row of K + 1 floats): GCC compiled the scalar
// loops of K = 10 to one scalar FMA, load and store per float. Every float gets the very
// operations of the scalar pass, lane by lane, so the bits are the same: the dot product's
// 8 partial sums and their fixed tree, one fused multiply-add per gradient entry, and a
// bias's "+= g" as fma(g, 1, x), which rounds once as the addition does. Checked against
// the scalar (fused curvature) pass at every K it serves by
// BpmfCurvatureSubset.FusedPassMatchesSeparatePasses, and end to end by the golden outputs.
template <int K>
class RowVectors {
 public:
  static constexpr int kChunks = (K + 1 + 7) / 8;  // a row's floats, bias included

  explicit RowVectors(bool bias) {
    const int width = K + (bias ? 1 : 0);
    for (int c = 0; c < kChunks; ++c) {
      const int lanes = std::clamp(width - 8 * c, 0, 8);
      mask_[c] = static_cast<__mmask8>((1u << lanes) - 1u);
      // The bias's lane: its gradient is g times 1, not times the partner's bias.
      const int bias_lane = K - 8 * c;
      one_[c] = bias && bias_lane >= 0 && bias_lane < 8 ? static_cast<__mmask8>(1u << bias_lane)
                                                        : __mmask8{0};
    }
  }
  __m256 Load(const float* p, int c) const { return _mm256_maskz_loadu_ps(mask_[c], p + 8 * c); }
  // The partner's row as the multiplier of g: its bias lane set to 1.
  __m256 Multiplier(const float* p, int c) const {
    return _mm256_mask_blend_ps(one_[c], Load(p, c), _mm256_set1_ps(1.0f));
  }
  void Store(float* p, int c, __m256 v) const { _mm256_mask_storeu_ps(p + 8 * c, mask_[c], v); }

 private:
  __mmask8 mask_[kChunks];
  __mmask8 one_[kChunks];
};

// Dot<K>(a, b): lane l sums a[f] b[f] over f = l mod 8 in order of f, each step a fused
// multiply-add onto a lane that starts at zero, then ((l0 + l1) + (l2 + l3)) + ((l4 + l5) +
// (l6 + l7)).
template <int K>
__attribute__((always_inline)) inline float DotVector(const float* a, const float* b) {
  __m256 lanes = _mm256_setzero_ps();
  int f = 0;
  for (; f + 8 <= K; f += 8)
    lanes = _mm256_fmadd_ps(_mm256_loadu_ps(a + f), _mm256_loadu_ps(b + f), lanes);
  if constexpr (K % 8 != 0) {
    const auto tail = static_cast<__mmask8>((1u << (K % 8)) - 1u);
    lanes = _mm256_mask3_fmadd_ps(_mm256_maskz_loadu_ps(tail, a + f),
                                  _mm256_maskz_loadu_ps(tail, b + f), lanes, tail);
  }
  // Neighbours first (l0 + l1, l2 + l3, ...), then pairs of them, then the two halves.
  const __m256 pairs = _mm256_add_ps(lanes, _mm256_permute_ps(lanes, 0xB1));
  const __m256 quads = _mm256_add_ps(pairs, _mm256_permute_ps(pairs, 0x4E));
  return _mm_cvtss_f32(_mm_add_ss(_mm256_castps256_ps128(quads), _mm256_extractf128_ps(quads, 1)));
}

template <int K>
TileGradientResult TileGradientVector(const TileRatings& tile, const Matrix& w, const Matrix& h,
                                      const BpmfShape& shape, float mu, float tau,
                                      const Subsample& subsample, Matrix& lik_w, Matrix& lik_h,
                                      RowDriftSink* w_sink) {
  constexpr int kChunks = RowVectors<K>::kChunks;
  TileGradientResult result;
  const bool bias = shape.bias;
  const RowVectors<K> row(bias);
  const bool all = subsample.fraction >= 1.0;
  const std::size_t entries = tile.col.size();
  std::size_t with_data = 0;  // rows with data seen so far
  const RowVisits visits(tile);
  for (std::size_t visit = 0; visit < visits.size(); ++visit) {
    const Eigen::Index r = visits[visit];
    const std::uint32_t begin = tile.row_start[r], end = tile.row_start[r + 1];
    if (begin == end) continue;
    PrefetchRowAhead(tile, w, with_data++);
    const float* wr = w.row(r).data();
    const float b = bias ? wr[K] : 0.0f;
    __m256 acc[kChunks], w_times[kChunks];
    for (int c = 0; c < kChunks; ++c) {
      acc[c] = _mm256_setzero_ps();
      w_times[c] = row.Multiplier(wr, c);
    }
    for (std::uint32_t e = begin; e < end; ++e) {
      if (!all && !subsample.Keeps(e)) continue;
      if (e + kPrefetchAhead < entries) PrefetchItemRows(h, lik_h, tile.col[e + kPrefetchAhead]);
      const std::uint32_t col = tile.col[e];
      const float* hc = h.row(col).data();
      float* gh = lik_h.row(col).data();
      const float dot = DotVector<K>(wr, hc);
      const float residual = tile.value[e] - (mu + b + (bias ? hc[K] : 0.0f) + dot);
      result.sse += static_cast<double>(residual) * residual;
      ++result.count;
      const __m256 g = _mm256_set1_ps(tau * residual);
      for (int c = 0; c < kChunks; ++c) {
        acc[c] = _mm256_fmadd_ps(g, row.Multiplier(hc, c), acc[c]);
        row.Store(gh, c, _mm256_fmadd_ps(g, w_times[c], row.Load(gh, c)));
      }
    }
    if (w_sink) {  // 0 + acc: the bits lik_w's row would have held
      alignas(32) float gradient[8 * kChunks];
      for (int c = 0; c < kChunks; ++c)
        row.Store(gradient, c, _mm256_add_ps(_mm256_setzero_ps(), acc[c]));
      (*w_sink)(r, gradient);
      continue;
    }
    float* gw_row = lik_w.row(r).data();
    for (int c = 0; c < kChunks; ++c)
      row.Store(gw_row, c, _mm256_add_ps(row.Load(gw_row, c), acc[c]));
  }
  return result;
}
#endif

// The gradient pass, compiled for a fixed rank K (kFixed > 0) so that the inner loops
// have known trip counts, or for any K (kFixed = 0).
// kCurvature: also add the term of each entry of the curvature subset to
// curvature->lik_w / lik_h (same residual, same loads: one extra scatter per entry of the
// subset). The subset is every stride-th entry, so a running counter finds its entries
// without a hash, a call or a list (each of those made the fused pass slower than a plain
// one plus a second plain pass over the subset, measured).
template <int kFixed, bool kCurvature>
TileGradientResult TileGradient(const TileRatings& tile, const Matrix& w, const Matrix& h,
                                const BpmfShape& shape, float mu, float tau,
                                const Subsample& subsample, Matrix& lik_w, Matrix& lik_h,
                                CurvatureSubset* curvature, RowDriftSink* w_sink) {
#if defined(__AVX512F__) && defined(__AVX512VL__)
  // At K = 128 GCC compiles the scalar Dot without fusing every step, so its bits differ
  // from the vector pass's; that rank keeps the scalar pass, and with it its results.
  if constexpr (kFixed > 0 && kFixed <= 100 && !kCurvature)
    return TileGradientVector<kFixed>(tile, w, h, shape, mu, tau, subsample, lik_w, lik_h, w_sink);
#endif
  TileGradientResult result;
  const int k = kFixed > 0 ? kFixed : shape.rank;
  const bool bias = shape.bias;
  const bool all = subsample.fraction >= 1.0;
  const std::size_t entries = tile.col.size();
  std::uint64_t next = 0, stride = 1;  // the next entry of the curvature subset
  float* __restrict cw_base = nullptr;
  float* __restrict ch_base = nullptr;
  const Eigen::Index width = w.cols();
  if (kCurvature) {
    stride = curvature->subset.stride;
    next = curvature->subset.First(0);
    cw_base = curvature->lik_w.data();
    ch_base = curvature->lik_h.data();
  }
  std::size_t with_data = 0;  // rows with data seen so far
  const RowVisits visits(tile);
  for (std::size_t visit = 0; visit < visits.size(); ++visit) {
    const Eigen::Index r = visits[visit];
    const std::uint32_t begin = tile.row_start[r], end = tile.row_start[r + 1];
    if (begin == end) continue;
    PrefetchRowAhead(tile, w, with_data++);
    const float* __restrict wr = w.row(r).data();
    float* __restrict gw_row = lik_w.row(r).data();
    // The row's gradient is summed in registers (acc) when K is known at compile time and
    // stored once per row: the same additions in the same order, so the same bits (the
    // row's gradient starts at zero), without a load and a store of it per rating.
    float acc[kFixed > 0 ? kFixed + 1 : 1] = {};
    float* __restrict gw = kFixed > 0 ? acc : gw_row;
    if (kFixed == 0 && w_sink) std::fill_n(gw_row, width, 0.0f);  // summed in place, then taken
    const float b = bias ? wr[k] : 0.0f;
    for (std::uint32_t e = begin; e < end; ++e) {
      bool in_subset = false;
      if (kCurvature && e == next) {
        in_subset = true;
        next += stride;
      }
      if (!all && !subsample.Keeps(e)) continue;
      if (e + kPrefetchAhead < entries) PrefetchItemRows(h, lik_h, tile.col[e + kPrefetchAhead]);
      const std::uint32_t c = tile.col[e];
      const float* __restrict hc = h.row(c).data();
      float* __restrict gh = lik_h.row(c).data();
      const float dot = Dot<kFixed>(wr, hc, k);
      const float residual = tile.value[e] - (mu + b + (bias ? hc[k] : 0.0f) + dot);
      result.sse += static_cast<double>(residual) * residual;
      ++result.count;
      const float g = tau * residual;  // d log N(r | pred, 1/tau) / d pred
      for (int f = 0; f < k; ++f) {
        gw[f] += g * hc[f];
        gh[f] += g * wr[f];
      }
      if (bias) {
        gw[k] += g;
        gh[k] += g;
      }
      if (kCurvature && in_subset) {
        float* __restrict cw = cw_base + r * width;
        float* __restrict ch = ch_base + static_cast<Eigen::Index>(c) * width;
        for (int f = 0; f < k; ++f) {
          cw[f] += g * hc[f];
          ch[f] += g * wr[f];
        }
        if (bias) {
          cw[k] += g;
          ch[k] += g;
        }
      }
    }
    if (w_sink) {
      if constexpr (kFixed > 0) {
        for (int f = 0; f < k + (bias ? 1 : 0); ++f) acc[f] = 0.0f + acc[f];
        (*w_sink)(r, acc);
      } else {
        (*w_sink)(r, gw_row);
      }
      continue;
    }
    if (kFixed > 0)
      for (int f = 0; f < k + (bias ? 1 : 0); ++f) gw_row[f] += acc[f];
  }
  return result;
}

// The likelihood gradient over the curvature subset of the minibatch only: per row, the
// entries first, first + stride, ... that the minibatch keeps, in the order of the first
// pass (so at the same point both give the same bits). kFisher: also the entries' Fisher
// information (FisherSums), from the same loads.
template <int kFixed, bool kFisher>
void SubsetGradient(const TileRatings& tile, const SystematicSubset& subset,
                    const Subsample& subsample, const Matrix& w, const Matrix& h,
                    const BpmfShape& shape, float mu, float tau, Matrix& lik_w, Matrix& lik_h,
                    FisherSums* fisher) {
  const int k = kFixed > 0 ? kFixed : shape.rank;
  const bool bias = shape.bias;
  const bool all = subsample.fraction >= 1.0;
  const Eigen::Index rows = static_cast<Eigen::Index>(tile.row_start.size()) - 1;
  for (Eigen::Index r = 0; r < rows; ++r) {
    const std::uint32_t begin = tile.row_start[r], end = tile.row_start[r + 1];
    if (begin == end) continue;
    const float* __restrict wr = w.row(r).data();
    float* __restrict gw = lik_w.row(r).data();
    float* __restrict fw = kFisher ? fisher->w.row(r).data() : nullptr;
    const float b = bias ? wr[k] : 0.0f;
    for (std::uint64_t e = subset.First(begin); e < end; e += subset.stride) {
      if (!all && !subsample.Keeps(e)) continue;
      const std::uint32_t c = tile.col[e];
      const float* __restrict hc = h.row(c).data();
      float* __restrict gh = lik_h.row(c).data();
      const float residual =
          tile.value[e] - (mu + b + (bias ? hc[k] : 0.0f) + Dot<kFixed>(wr, hc, k));
      const float g = tau * residual;
      for (int f = 0; f < k; ++f) {
        gw[f] += g * hc[f];
        gh[f] += g * wr[f];
      }
      if (bias) {
        gw[k] += g;
        gh[k] += g;
      }
      if (kFisher) {
        float* __restrict fh = fisher->h.row(c).data();
        for (int f = 0; f < k; ++f) {
          fw[f] += tau * (hc[f] * hc[f]);
          fh[f] += tau * (wr[f] * wr[f]);
        }
        if (bias) {
          fw[k] += tau;
          fh[k] += tau;
        }
      }
    }
  }
}

// Calls f(std::integral_constant<int, K>()) with K = rank for the ranks the gradient
// kernels are compiled for (known trip counts), and K = 0 (any rank) otherwise.
template <typename F>
decltype(auto) WithCompiledRank(int rank, F&& f) {
  switch (rank) {
    case 5:
      return f(std::integral_constant<int, 5>());
    case 8:
      return f(std::integral_constant<int, 8>());
    case 10:
      return f(std::integral_constant<int, 10>());
    case 16:
      return f(std::integral_constant<int, 16>());
    case 20:
      return f(std::integral_constant<int, 20>());
    case 32:
      return f(std::integral_constant<int, 32>());
    case 50:
      return f(std::integral_constant<int, 50>());
    case 64:
      return f(std::integral_constant<int, 64>());
    case 100:
      return f(std::integral_constant<int, 100>());
    case 128:
      return f(std::integral_constant<int, 128>());
    default:
      return f(std::integral_constant<int, 0>());
  }
}

}  // namespace

TileGradientResult AccumulateTileGradient(const TileRatings& tile, const Matrix& w, const Matrix& h,
                                          const BpmfShape& shape, float mu, float tau,
                                          const Subsample& subsample, Matrix& lik_w, Matrix& lik_h,
                                          CurvatureSubset* curvature, RowDriftSink* w_sink) {
  if (curvature && w_sink)
    throw Error(ExitCode::kInternal, "AccumulateTileGradient: a row sink with a curvature subset");
  if (curvature) {
    curvature->lik_w.setZero(w.rows(), w.cols());
    curvature->lik_h.setZero(h.rows(), h.cols());
  }
  return WithCompiledRank(shape.rank, [&](auto fixed) {
    constexpr int K = decltype(fixed)::value;
    return curvature ? TileGradient<K, true>(tile, w, h, shape, mu, tau, subsample, lik_w, lik_h,
                                             curvature, nullptr)
                     : TileGradient<K, false>(tile, w, h, shape, mu, tau, subsample, lik_w, lik_h,
                                              nullptr, w_sink);
  });
}

void AccumulateSubsetGradient(const TileRatings& tile, const SystematicSubset& subset,
                              const Subsample& subsample, const Matrix& w, const Matrix& h,
                              const BpmfShape& shape, float mu, float tau, Matrix& lik_w,
                              Matrix& lik_h, FisherSums* fisher) {
  if (fisher) {
    fisher->w.setZero(w.rows(), w.cols());
    fisher->h.setZero(h.rows(), h.cols());
  }
  WithCompiledRank(shape.rank, [&](auto fixed) {
    constexpr int K = decltype(fixed)::value;
    if (fisher)
      SubsetGradient<K, true>(tile, subset, subsample, w, h, shape, mu, tau, lik_w, lik_h, fisher);
    else
      SubsetGradient<K, false>(tile, subset, subsample, w, h, shape, mu, tau, lik_w, lik_h,
                               nullptr);
  });
}

Eigen::VectorXf PriorPrecision(const BpmfShape& shape, double lambda, double lambda_bias) {
  Eigen::VectorXf p(shape.width());
  p.head(shape.rank).setConstant(static_cast<float>(lambda));
  if (shape.bias) p[shape.rank] = static_cast<float>(lambda_bias);
  return p;
}

float PredictRating(const float* w, const float* h, const BpmfShape& shape, float mu, float lo,
                    float hi) {
  float pred = mu;
  if (w && h)
    for (int f = 0; f < shape.rank; ++f) pred += w[f] * h[f];
  if (shape.bias) {
    if (w) pred += w[shape.rank];
    if (h) pred += h[shape.rank];
  }
  return std::clamp(pred, lo, hi);
}

BpmfHyper SampleHyper(const BpmfPriors& priors, const HyperStats& s, KeyedStream& stream) {
  if (!priors.sample_hyper) return priors.initial;
  auto draw = [&](double count, double sum_sq) {
    return stream.gamma(priors.a0 + 0.5 * count) / (priors.b0 + 0.5 * sum_sq);
  };
  BpmfHyper hyper = priors.initial;
  hyper.tau = draw(s.n, s.sse);
  hyper.lambda_w = draw(s.w_count, s.w2);
  hyper.lambda_h = draw(s.h_count, s.h2);
  if (priors.use_bias) {
    hyper.lambda_b = draw(s.b_count, s.b2);
    hyper.lambda_c = draw(s.c_count, s.c2);
  }
  return hyper;
}

double LogJointDensity(const BpmfPriors& priors, const BpmfHyper& hyper, const HyperStats& s) {
  // Each Gaussian part: count/2 log(precision) - precision sum_sq / 2 (2 pi dropped).
  const auto gaussian = [](double precision, double count, double sum_sq) {
    return 0.5 * count * std::log(precision) - 0.5 * precision * sum_sq;
  };
  // Each sampled precision's Gamma(a0, b0) hyperprior: (a0 - 1) log(precision) - b0 precision.
  const auto gamma = [&](double precision) {
    return (priors.a0 - 1.0) * std::log(precision) - priors.b0 * precision;
  };
  double lp = gaussian(hyper.tau, s.n, s.sse) + gaussian(hyper.lambda_w, s.w_count, s.w2) +
              gaussian(hyper.lambda_h, s.h_count, s.h2);
  if (priors.use_bias)
    lp += gaussian(hyper.lambda_b, s.b_count, s.b2) + gaussian(hyper.lambda_c, s.c_count, s.c2);
  if (priors.sample_hyper) {
    lp += gamma(hyper.tau) + gamma(hyper.lambda_w) + gamma(hyper.lambda_h);
    if (priors.use_bias) lp += gamma(hyper.lambda_b) + gamma(hyper.lambda_c);
  }
  return lp;
}

}  // namespace carousel
