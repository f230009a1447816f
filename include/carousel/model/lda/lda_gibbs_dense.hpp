// The per-document Gibbs step of lda_gibbs.hpp computed densely, for few topics: every
// token's topic is drawn from the same conditional
//   p(z = k | rest) proportional to (alpha + n_dk without the token) * phi_kw,
// but from all K weights at once, in single precision and eight topics per vector
// operation, instead of DocumentGibbs's sparse document bucket (one scalar step per topic of
// the document, in double precision) and smoothing bucket.
//
// Why: the sparse draw costs O(topics in the document) scalar steps, each an indirect load,
// a multiply and a dependent add, a scan that exits at an unpredictable point, and O(K) more
// when it lands in the smoothing bucket, as it often does while phi is diffuse. At K = 50 the
// dense draw is 7 vector steps of 8 topics whatever the document holds, and whole runs were
// faster with it (bench/README.md, "A dense Gibbs draw").
//
// The inverse-CDF search needs the topics in some fixed order, not in topic order. The order
// here is lane-major: topic k = 8 b + l sits in lane l of block b. A vector running sum over
// the blocks gives, in each lane, the cumulative weights of that lane's topics; the lanes'
// prefix sums of their totals offset each lane, and the number of cumulative weights at most
// u is the position drawn. So no horizontal sums are needed before the draw.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "carousel/util/keyed_rng.hpp"

namespace carousel {

struct TopicWordView;  // lda_gibbs.hpp

// Deliberate errors, for the tests' negative controls only.
enum class DenseFault {
  kNone,
  kKeepOwnCount,  // the token's own count is removed after its draw, not before
  kLaneOffByOne,  // each lane's cumulative weights offset by its own total, not those before
};

// Several sweeps of one document in a row: sweep s (from 0) adds its tokens' new topics to
// `accumulate` when s >= kept_from (as the tile's kept sweeps do), else to nothing.
struct SweepCount {
  int sweeps = 1;
  int kept_from = 0;
  std::uint32_t* accumulate = nullptr;
  std::uint32_t* AccumulateIn(int sweep) const { return sweep >= kept_from ? accumulate : nullptr; }
};

// One document's piece and sweeps, for DenseDocumentGibbs::SweepsPair.
struct DocumentSweeps {
  const std::uint32_t* word;
  std::uint16_t* topic;
  std::size_t n;
  std::uint32_t* doc_topic;
  KeyedStream* rng;
  SweepCount sweeps;
};

class DenseDocumentGibbs {
 public:
  // scalar: always the scalar steps (the tests compare them with the vector code).
  explicit DenseDocumentGibbs(int topics, DenseFault fault = DenseFault::kNone,
                              bool scalar = false);
  // Whether this build's sweep at `topics` runs in vectors (AVX2 and K <= 64) rather than in
  // the scalar steps that define its arithmetic.
  static bool Vectorised(int topics);

  // As DocumentGibbs::Sweep (the same arguments and conditional), reading the view's
  // single-precision rows (DenseRow) and drawing the sweep's uniforms before it, two from
  // each 64-bit number of rng (24 bits each), so ceil(n / 2) numbers.
  void Sweep(const std::uint32_t* word, std::uint16_t* topic, std::size_t n,
             std::uint32_t* doc_topic, const TopicWordView& view, KeyedStream& rng,
             std::uint32_t* accumulate);
  // sweeps.sweeps such sweeps in a row, each drawing its numbers after the last one's: the
  // same bits as that many calls of Sweep, with one draw of the numbers and without storing
  // the document's counts and loading them again between the sweeps. At 16 tiles a document
  // has about 8 tokens of the 10M-token benchmark corpus in a tile, swept twice; one call
  // made its 16-tile pass 4-14% and its 64-tile pass 9-11% faster (bench/README.md,
  // "Scale-out").
  void Sweeps(const std::uint32_t* word, std::uint16_t* topic, std::size_t n,
              std::uint32_t* doc_topic, const TopicWordView& view, KeyedStream& rng,
              const SweepCount& sweeps);
  // Sweeps of two documents, each with the bits of its own call of Sweeps: their tokens
  // are drawn in turn, so that their two chains of dependent steps overlap. A draw waits
  // on the one before it in its document (the counts it changed), a chain of dependent
  // vector steps beside which one document leaves the processor little to do; with two, a
  // pass of the 10M-token benchmark corpus at one tile took 0.17-0.18 s against
  // 0.22-0.23 (bench/README.md, "Scale-out").
  void SweepsPair(const DocumentSweeps& a, const DocumentSweeps& b, const TopicWordView& view);

 private:
  // Throws std::logic_error unless the view's dense rows have this kernel's blocks.
  void CheckView(const TopicWordView& view) const;
  // A document's uniforms for `sweeps` sweeps of n tokens, sweep-major.
  void DrawUniforms(KeyedStream& rng, std::size_t n, int sweeps, std::vector<float>& uniforms);

  int topics_;
  std::size_t blocks_;  // ceil(K / 8)
  DenseFault fault_;
  bool scalar_;
  std::vector<std::uint64_t> bits_;  // the sweeps' random numbers, one per two tokens
  std::vector<float> uniforms_;      // one per token and sweep, from bits_
  std::vector<float> uniforms_b_;    // the second document's, in SweepsPair
  // The scalar path's n_dk (as floats, exact below 2^24) and running sums (block b, lane l:
  // lane l's weights summed over blocks 0..b), padded to 8 * blocks_; the AVX2 path holds
  // them in registers and on its stack for K <= 64.
  std::vector<float> count_;
  std::vector<float> running_;
};

}  // namespace carousel
