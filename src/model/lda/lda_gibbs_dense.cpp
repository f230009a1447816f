#include "carousel/model/lda/lda_gibbs_dense.hpp"

#include "carousel/model/lda/lda_gibbs.hpp"

#include <algorithm>
#include <stdexcept>
#include <type_traits>

#ifdef __AVX2__
#include <immintrin.h>
#endif

namespace carousel {

namespace {
constexpr std::size_t kLanes = 8;

struct DocumentSlice {  // DenseDocumentGibbs::Sweep's document
  const std::uint32_t* word;
  std::uint16_t* topic;
  std::size_t n;
  std::uint32_t* doc_topic;
};

// The arithmetic of one draw, written once as scalar steps whose order the AVX2 code below
// follows operation for operation (this file is compiled without fused multiply-adds), so
// both give the same bits:
//   weight[b][l] = (n[b][l] + alpha) * phi[b][l]
//   running[b][l] = running[b-1][l] + weight[b][l], running[0][l] = weight[0][l]: within a
//   lane the cumulative weights never decrease, and a weight of 0 leaves them equal
//   the lanes' inclusive prefix sums of running[B-1] by three steps within each half of
//   four lanes and one across: s1 = x + x shifted by 1, s2 = s1 + s1 shifted by 2 (within
//   the half), prefix = s2 + (the low half's s2[3] in the high half).
struct Prefix {
  float value[kLanes];
};

Prefix LanePrefix(const float* x) {
  float s1[kLanes], s2[kLanes];
  Prefix p;
  for (std::size_t l = 0; l < kLanes; ++l) s1[l] = x[l] + (l % 4 >= 1 ? x[l - 1] : 0.0f);
  for (std::size_t l = 0; l < kLanes; ++l) s2[l] = s1[l] + (l % 4 >= 2 ? s1[l - 2] : 0.0f);
  for (std::size_t l = 0; l < kLanes; ++l) p.value[l] = s2[l] + (l >= 4 ? s2[3] : 0.0f);
  return p;
}

// The draw in one stage: with E the lanes' exclusive prefix, the cumulative weight of topic
// 8 b + l in lane-major order is E[l] + running[b][l], and the number p of those at most
// u = uniform * total is the position of the topic drawn (lane p / blocks, block
// p % blocks). Returns -1 where that is not a topic with positive weight: a zero total, or
// rounding that put u past the last cumulative weight or two neighbours across a lane
// boundary out of order (the prefix adds the lanes in another order than E[l] + running);
// ExactDraw draws those.
int CountSearch(const float* running, std::size_t blocks, const float* prefix, float uniform,
                const float* phi, std::size_t K, DenseFault fault) {
  const float total = prefix[kLanes - 1];
  if (!(total > 0.0f)) return -1;
  const float u = uniform * total;
  std::size_t p = 0;
  for (std::size_t b = 0; b < blocks; ++b)
    for (std::size_t l = 0; l < kLanes; ++l) {
      const float start = fault == DenseFault::kLaneOffByOne ? prefix[l]
                          : l > 0                            ? prefix[l - 1]
                                                             : 0.0f;
      p += start + running[b * kLanes + l] <= u;
    }
  const std::size_t k = p % blocks * kLanes + p / blocks;
  return p < blocks * kLanes && k < K && phi[k] > 0.0f ? static_cast<int>(k) : -1;
}

// The rare draws CountSearch leaves: the same weights, summed in double precision in topic
// order; always a topic with positive weight, or -1 if there is none.
int ExactDraw(const float* count, const float* phi, float alpha, std::size_t K, float uniform) {
  double total = 0.0;
  for (std::size_t k = 0; k < K; ++k) total += static_cast<double>((count[k] + alpha) * phi[k]);
  if (!(total > 0.0)) return -1;
  const double u = static_cast<double>(uniform) * total;
  double cumulative = 0.0;
  int last = -1;
  for (std::size_t k = 0; k < K; ++k) {
    const float weight = (count[k] + alpha) * phi[k];
    if (!(weight > 0.0f)) continue;
    last = static_cast<int>(k);
    cumulative += static_cast<double>(weight);
    if (u < cumulative) break;
  }
  return last;
}

#ifdef __AVX2__
// The topic of each lane of the eight blocks of the largest vectorised K (64).
alignas(32) constexpr std::int32_t kTopicOfLane[8 * kLanes] = {
    0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21,
    22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43,
    44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63};

// The mask of the first min(n, 8) lanes (n > 0: every block of a sweep holds a topic).
inline __m256i LanesBelow(std::size_t n) {
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(std::min(n, kLanes))), lane);
}

// The count of topic `k`, among counts held in registers eight per vector, plus one (kMore)
// or minus one: the lane equal to k compares to -1, which is subtracted or added. Why
// registers: a count changed by a one-element store and then read as part of a vector
// waits until the store completes, and even a whole-vector store puts a store-to-load
// forwarding on the draws' chain of dependent steps.
template <std::size_t B, bool kMore>
inline void CountOne(__m256i* count, std::uint32_t k) {
  const __m256i topic = _mm256_set1_epi32(static_cast<int>(k));
  for (std::size_t b = 0; b < B; ++b) {
    const __m256i lanes =
        _mm256_load_si256(reinterpret_cast<const __m256i*>(kTopicOfLane + b * kLanes));
    const __m256i hit = _mm256_cmpeq_epi32(lanes, topic);
    count[b] = kMore ? _mm256_sub_epi32(count[b], hit) : _mm256_add_epi32(count[b], hit);
  }
}

// CountSearch's position p as a topic, p % B * 8 + p / B, by a table: the compiler divides
// by a constant with a multiply but takes the remainder with a divide instruction, whose
// latency (over ten cycles) was on the chain of dependent draws.
template <std::size_t B>
struct PositionTopics {
  std::uint8_t topic[B * kLanes + 1];
  constexpr PositionTopics() : topic() {
    for (std::size_t p = 0; p < B * kLanes; ++p)
      topic[p] = static_cast<std::uint8_t>(p % B * kLanes + p / B);
    topic[B * kLanes] = static_cast<std::uint8_t>(B * kLanes);  // past the last: no topic
  }
};

template <std::size_t B>
inline std::size_t TopicAtPosition(unsigned p) {
  static constexpr PositionTopics<B> kTable;
  return kTable.topic[p];
}

// ExactDraw from the counts in registers. Kept out of line and cold: inlined, the compiler
// shares the counts' conversion with the weights' and writes it to the stack on every draw
// for this rare branch.
template <std::size_t B>
[[gnu::noinline, gnu::cold]] int ExactDrawFromRegisters(const __m256i* count, const float* phi,
                                                        float alpha, std::size_t K, float uniform) {
  alignas(32) std::int32_t counts[B * kLanes];
  for (std::size_t b = 0; b < B; ++b)
    _mm256_store_si256(reinterpret_cast<__m256i*>(counts + b * kLanes), count[b]);
  float count_of[B * kLanes];
  for (std::size_t k = 0; k < B * kLanes; ++k) count_of[k] = static_cast<float>(counts[k]);
  return ExactDraw(count_of, phi, alpha, K, uniform);
}

// One document's sweeps with B blocks of eight topics (K <= 8 B), a token at a time
// (Step), each step's sums kept in registers, and the document's counts too from one token
// and one sweep to the next. A document's draws depend on nothing but its own tokens,
// counts, numbers and the view, so two chains stepped in turn (SweepBlocksPair) give each
// document the bits of its own sweeps, while the processor overlaps the two chains of
// dependent steps.
template <std::size_t B>
class DenseChain {
 public:
  DenseChain(const DocumentSlice& doc, std::size_t K, const TopicWordView& view,
             const float* uniforms, const SweepCount& sweeps, DenseFault fault)
      : doc_(doc),
        K_(K),
        view_(view),
        uniforms_(uniforms),
        sweeps_(sweeps),
        fault_(fault),
        sweep_(doc.n == 0 ? sweeps.sweeps : 0),
        accumulate_(sweeps.AccumulateIn(0)),
        alpha_(_mm256_set1_ps(static_cast<float>(view.alpha))) {
    // n_dk straight into registers (the last block's lanes past K masked: zero, and not
    // stored back): written to the stack one count at a time and read back as vectors, each
    // vector read waited for the single stores under it, at every document of a tile.
    for (std::size_t b = 0; b < B; ++b)
      count_[b] = _mm256_maskload_epi32(reinterpret_cast<const int*>(doc.doc_topic + b * kLanes),
                                        LanesBelow(K - b * kLanes));
  }

  bool Done() const { return sweep_ >= sweeps_.sweeps; }

  // Draws token i_ of sweep sweep_ and moves to the next.
  __attribute__((always_inline)) inline void Step() {
    constexpr std::size_t row_bytes = B * kLanes * sizeof(float);
    const std::uint32_t* word = doc_.word;
    std::uint16_t* topic = doc_.topic;
    const std::size_t i = i_;
    if (i + 1 < doc_.n) {  // the next token's rows are likely cache misses: start loading them
      const char* next = reinterpret_cast<const char*>(view_.DenseRow(word[i + 1]));
      for (std::size_t b = 0; b < row_bytes; b += 64) __builtin_prefetch(next + b);
      if (accumulate_) {
        const char* row = reinterpret_cast<const char*>(accumulate_ + word[i + 1] * K_);
        for (std::size_t b = 0; b < row_bytes; b += 64) __builtin_prefetch(row + b, 1);
      }
    }
    if (fault_ != DenseFault::kKeepOwnCount) CountOne<B, false>(count_, topic[i]);
    const float* phi = view_.DenseRow(word[i]);
    const __m256 zero = _mm256_setzero_ps();
    __m256 run[B];
    for (std::size_t b = 0; b < B; ++b) {
      const __m256 weight = _mm256_mul_ps(_mm256_add_ps(_mm256_cvtepi32_ps(count_[b]), alpha_),
                                          _mm256_loadu_ps(phi + b * kLanes));
      run[b] = b == 0 ? weight : _mm256_add_ps(run[b - 1], weight);
    }
    const __m256 sum = run[B - 1];
    // LanePrefix's steps.
    const __m256 s1 = _mm256_add_ps(
        sum, _mm256_blend_ps(_mm256_permute_ps(sum, _MM_SHUFFLE(2, 1, 0, 0)), zero, 0x11));
    const __m256 s2 = _mm256_add_ps(
        s1, _mm256_blend_ps(_mm256_permute_ps(s1, _MM_SHUFFLE(1, 0, 0, 0)), zero, 0x33));
    const __m256 low3 = _mm256_permute_ps(s2, _MM_SHUFFLE(3, 3, 3, 3));
    const __m256 prefix = _mm256_add_ps(s2, _mm256_permute2f128_ps(low3, low3, 0x08));
    // CountSearch's steps on the registers (reading the sums back from memory would wait on
    // the stores that wrote them). The total is broadcast within the vector unit: moving it
    // out to a scalar and back puts a round trip through memory on the chain of draws.
    const __m256 high = _mm256_permute_ps(prefix, _MM_SHUFFLE(3, 3, 3, 3));
    const __m256 totals = _mm256_permute2f128_ps(high, high, 0x11);  // every lane: prefix[7]
    const float uniform = uniforms_[static_cast<std::size_t>(sweep_) * doc_.n + i];
    const __m256 u = _mm256_mul_ps(_mm256_set1_ps(uniform), totals);  // uniform * total
    const __m256 start =
        fault_ == DenseFault::kLaneOffByOne
            ? prefix
            : _mm256_blend_ps(
                  _mm256_permutevar8x32_ps(prefix, _mm256_setr_epi32(0, 0, 1, 2, 3, 4, 5, 6)), zero,
                  0x01);
    unsigned p = 0;
    for (std::size_t b = 0; b < B; ++b)
      p += static_cast<unsigned>(__builtin_popcount(
          _mm256_movemask_ps(_mm256_cmp_ps(_mm256_add_ps(start, run[b]), u, _CMP_LE_OQ))));
    const std::size_t k = TopicAtPosition<B>(p);
    int chosen = -1;
    if (_mm256_cvtss_f32(totals) > 0.0f && p < B * kLanes && k < K_ && phi[k] > 0.0f) {
      chosen = static_cast<int>(k);
    } else {  // CountSearch's -1, from a copy: count_'s address given away would keep the
              // counts in memory rather than in registers at every step
      __m256i counts[B];
      for (std::size_t b = 0; b < B; ++b) counts[b] = count_[b];
      chosen = ExactDrawFromRegisters<B>(counts, phi, static_cast<float>(view_.alpha), K_, uniform);
    }
    if (chosen < 0) chosen = topic[i];  // all-zero weights cannot happen for theta > 0
    if (fault_ == DenseFault::kKeepOwnCount) CountOne<B, false>(count_, topic[i]);
    CountOne<B, true>(count_, static_cast<std::uint32_t>(chosen));
    topic[i] = static_cast<std::uint16_t>(chosen);
    if (accumulate_) accumulate_[static_cast<std::size_t>(word[i]) * K_ + chosen]++;
    if (++i_ == doc_.n) {
      i_ = 0;
      ++sweep_;
      accumulate_ = sweeps_.AccumulateIn(sweep_);
    }
  }

  // Stores the document's counts back.
  void Finish() {
    for (std::size_t b = 0; b < B; ++b)
      _mm256_maskstore_epi32(reinterpret_cast<int*>(doc_.doc_topic + b * kLanes),
                             LanesBelow(K_ - b * kLanes), count_[b]);
  }

 private:
  DocumentSlice doc_;
  std::size_t K_;
  const TopicWordView& view_;
  const float* uniforms_;  // sweeps x n, sweep-major
  SweepCount sweeps_;
  DenseFault fault_;
  int sweep_;
  std::size_t i_ = 0;
  std::uint32_t* accumulate_;
  __m256 alpha_;
  __m256i count_[B];
};

template <std::size_t B>
void SweepBlocks(const DocumentSlice& doc, std::size_t K, const TopicWordView& view,
                 const float* uniforms, const SweepCount& sweeps, DenseFault fault) {
  DenseChain<B> chain(doc, K, view, uniforms, sweeps, fault);
  while (!chain.Done()) chain.Step();
  chain.Finish();
}

// Two documents' sweeps, their tokens drawn in turn while both have some left.
template <std::size_t B>
void SweepBlocksPair(const DocumentSlice& doc_a, const float* uniforms_a,
                     const SweepCount& sweeps_a, const DocumentSlice& doc_b,
                     const float* uniforms_b, const SweepCount& sweeps_b, std::size_t K,
                     const TopicWordView& view, DenseFault fault) {
  DenseChain<B> a(doc_a, K, view, uniforms_a, sweeps_a, fault);
  DenseChain<B> b(doc_b, K, view, uniforms_b, sweeps_b, fault);
  while (!a.Done() && !b.Done()) {
    a.Step();
    b.Step();
  }
  while (!a.Done()) a.Step();
  while (!b.Done()) b.Step();
  a.Finish();
  b.Finish();
}

// Calls sweep(std::integral_constant<std::size_t, B>{}) with B = blocks, for the vector code
// of 1 to 8 blocks of eight topics; returns false for other counts (the scalar steps' case).
template <typename Sweep>
bool WithBlocks(std::size_t blocks, const Sweep& sweep) {
  switch (blocks) {
    case 1:
      return sweep(std::integral_constant<std::size_t, 1>{}), true;
    case 2:
      return sweep(std::integral_constant<std::size_t, 2>{}), true;
    case 3:
      return sweep(std::integral_constant<std::size_t, 3>{}), true;
    case 4:
      return sweep(std::integral_constant<std::size_t, 4>{}), true;
    case 5:
      return sweep(std::integral_constant<std::size_t, 5>{}), true;
    case 6:
      return sweep(std::integral_constant<std::size_t, 6>{}), true;
    case 7:
      return sweep(std::integral_constant<std::size_t, 7>{}), true;
    case 8:
      return sweep(std::integral_constant<std::size_t, 8>{}), true;
    default:
      return false;
  }
}
#endif

// The same sweeps in scalar steps, for any number of blocks.
void SweepScalar(const DocumentSlice& doc, std::size_t K, std::size_t blocks,
                 const TopicWordView& view, const float* all_uniforms, const SweepCount& sweeps,
                 DenseFault fault, std::vector<float>& counts, std::vector<float>& running) {
  const std::uint32_t* word = doc.word;
  std::uint16_t* topic = doc.topic;
  std::uint32_t* doc_topic = doc.doc_topic;
  const std::size_t n = doc.n;
  counts.assign(blocks * kLanes, 0.0f);
  running.resize(blocks * kLanes);
  for (std::size_t k = 0; k < K; ++k) counts[k] = static_cast<float>(doc_topic[k]);
  const auto alpha = static_cast<float>(view.alpha);
  for (int sweep = 0; sweep < sweeps.sweeps; ++sweep) {
    std::uint32_t* accumulate = sweeps.AccumulateIn(sweep);
    const float* uniforms = all_uniforms + static_cast<std::size_t>(sweep) * n;
    for (std::size_t i = 0; i < n; ++i) {
      if (fault != DenseFault::kKeepOwnCount) counts[topic[i]] -= 1.0f;
      const float* phi = view.DenseRow(word[i]);
      for (std::size_t k = 0; k < blocks * kLanes; ++k) {
        const float weight = (counts[k] + alpha) * phi[k];
        running[k] = k < kLanes ? weight : running[k - kLanes] + weight;
      }
      const Prefix prefix = LanePrefix(running.data() + (blocks - 1) * kLanes);
      int chosen = CountSearch(running.data(), blocks, prefix.value, uniforms[i], phi, K, fault);
      if (chosen < 0) chosen = ExactDraw(counts.data(), phi, alpha, K, uniforms[i]);
      if (chosen < 0) chosen = topic[i];
      if (fault == DenseFault::kKeepOwnCount) counts[topic[i]] -= 1.0f;
      counts[static_cast<std::size_t>(chosen)] += 1.0f;
      topic[i] = static_cast<std::uint16_t>(chosen);
      if (accumulate) accumulate[static_cast<std::size_t>(word[i]) * K + chosen]++;
    }
  }
  for (std::size_t k = 0; k < K; ++k) doc_topic[k] = static_cast<std::uint32_t>(counts[k]);
}

}  // namespace

DenseDocumentGibbs::DenseDocumentGibbs(int topics, DenseFault fault, bool scalar)
    : topics_(topics),
      blocks_((static_cast<std::size_t>(topics) + kLanes - 1) / kLanes),
      fault_(fault),
      scalar_(scalar) {}

bool DenseDocumentGibbs::Vectorised(int topics) {
#ifdef __AVX2__
  return topics > 0 && topics <= static_cast<int>(8 * kLanes);
#else
  (void)topics;
  return false;
#endif
}

// Two uniforms from each 64-bit number, its top 24 bits and the 24 below them: the weights
// are single precision, so finer uniforms would not draw finer, and half the numbers
// halves the stream's cost. Each sweep takes its own ceil(n / 2) numbers in turn, as
// separate sweeps drawing them one after the other would (the stream's numbers do not
// depend on how they are asked for: KeyedStream::FillBits).
void DenseDocumentGibbs::DrawUniforms(KeyedStream& rng, std::size_t n, int sweeps,
                                      std::vector<float>& uniforms) {
  const std::size_t per_sweep = (n + 1) / 2;
  const auto count = static_cast<std::size_t>(std::max(sweeps, 0));
  bits_.resize(per_sweep * count);
  rng.FillBits(bits_.data(), bits_.size());
  uniforms.resize(n * count);
  for (std::size_t s = 0; s < count; ++s)
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint64_t bits = bits_[s * per_sweep + i / 2];
      const std::uint64_t half = (bits >> (i % 2 == 0 ? 40 : 16)) & 0xffffff;
      uniforms[s * n + i] = (static_cast<float>(half) + 0.5f) * 0x1.0p-24f;  // in (0, 1)
    }
}

void DenseDocumentGibbs::SweepsPair(const DocumentSweeps& a, const DocumentSweeps& b,
                                    const TopicWordView& view) {
#ifdef __AVX2__
  if (!scalar_) {
    CheckView(view);
    DrawUniforms(*a.rng, a.n, a.sweeps.sweeps, uniforms_);
    DrawUniforms(*b.rng, b.n, b.sweeps.sweeps, uniforms_b_);
    const DocumentSlice da{a.word, a.topic, a.n, a.doc_topic};
    const DocumentSlice db{b.word, b.topic, b.n, b.doc_topic};
    const bool swept = WithBlocks(blocks_, [&](auto blocks) {
      SweepBlocksPair<decltype(blocks)::value>(da, uniforms_.data(), a.sweeps, db,
                                               uniforms_b_.data(), b.sweeps,
                                               static_cast<std::size_t>(topics_), view, fault_);
    });
    if (swept) return;
  }
#endif
  Sweeps(a.word, a.topic, a.n, a.doc_topic, view, *a.rng, a.sweeps);
  Sweeps(b.word, b.topic, b.n, b.doc_topic, view, *b.rng, b.sweeps);
}

void DenseDocumentGibbs::Sweep(const std::uint32_t* word, std::uint16_t* topic, std::size_t n,
                               std::uint32_t* doc_topic, const TopicWordView& view,
                               KeyedStream& rng, std::uint32_t* accumulate) {
  Sweeps(word, topic, n, doc_topic, view, rng, SweepCount{1, 0, accumulate});
}

void DenseDocumentGibbs::Sweeps(const std::uint32_t* word, std::uint16_t* topic, std::size_t n,
                                std::uint32_t* doc_topic, const TopicWordView& view,
                                KeyedStream& rng, const SweepCount& sweeps) {
  const auto K = static_cast<std::size_t>(topics_);
  CheckView(view);
  DrawUniforms(rng, n, sweeps.sweeps, uniforms_);
  const DocumentSlice doc{word, topic, n, doc_topic};
  const float* u = uniforms_.data();
#ifdef __AVX2__
  if (!scalar_ && WithBlocks(blocks_, [&](auto blocks) {
        SweepBlocks<decltype(blocks)::value>(doc, K, view, u, sweeps, fault_);
      }))
    return;
#endif
  SweepScalar(doc, K, blocks_, view, u, sweeps, fault_, count_, running_);
}

void DenseDocumentGibbs::CheckView(const TopicWordView& view) const {
  if (view.dense_stride != blocks_ * kLanes)
    throw std::logic_error("DenseDocumentGibbs: the view's dense rows do not match its topics");
}

}  // namespace carousel
