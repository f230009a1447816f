// Counter-based random numbers keyed by (seed, purpose, global id, iteration).
//
// DESIGN.md section 1: randomness is keyed, not streamed. Whichever rank draws the
// noise for row 1234 at iteration 77 gets the same numbers, which is what makes the
// chain independent of the rank count. Built on Random123's Philox4x64-10
// (Salmon et al. 2011): the key holds (seed, purpose), the counter holds
// (global id, iteration, draw index).
#pragma once

#include <Random123/philox.h>

#include <cmath>
#include <cstddef>
#include <cstdint>

namespace carousel {

// Why a stream of random numbers is drawn. Distinct purposes never share numbers.
enum class Purpose : std::uint64_t {
  kPermuteRows = 1,
  kPermuteCols,
  kSplit,
  kInitRow,
  kInitCol,
  kNoiseRow,
  kNoiseCol,
  kMinibatch,
  kSchedule,
  kHyper,
  kGenerate,
  kGibbs,
  kTest,  // reserved for tests and benchmarks
  kNoiseAux,
  kHeldOut,        // Gibbs sweeps over held-out documents during evaluation
  kInfer,          // topics of new documents given a finished run's (carousel lda infer)
  kDrawSelection,  // the users and items --save-draws N picks
  kChainSeed,      // the seeds of chains 2, 3, ... of --chains
  kSphereNoise,    // geodesic samplers on unit vectors (id: block; sampler/geodesic.hpp)
  // Dirichlet-process mixture (model/dpmix/dpmix_model.hpp); ids never depend on the rank
  // count: observation ids, category ids or component serial numbers.
  kDpMinibatch,       // which observations a minibatch holds (id: observation)
  kDpSlice,           // slice variables u_i (id: observation)
  kDpAllocate,        // allocations z_i given the slices (id: observation)
  kDpStick,           // stick breaks of the rest mass for new components (id: serial)
  kDpComponent,       // theta of a new component from the base measure (id: category)
  kDpWeights,         // SCIR/SGRLD step of the weights (id: 0)
  kDpAlpha,           // Escobar-West update of the concentration (id: 0)
  kDpTheta,           // SCIR/SGRLD step of the component parameters (id: category)
  kTopicProportions,  // SAM: MALA steps of a document's theta (id: document)
  kPriorProportions,  // SAM: theta drawn from its prior for held-out likelihoods (id: document)
  kStable,            // alpha-stable MF: Metropolis steps of Phi_ij (id: entry; model/amf)
  // The composed prior-only steps of a row that sat out iterations without data
  // (sampler/lazy_rows.hpp; id: row or column, iteration: the one it is brought to).
  kCatchUpRow,
  kCatchUpCol,
  kScaleRidge,  // BPMF's move along the W/H scale ridge (model/bpmf/bpmf_ridge.hpp; id 0)
  kPredictive,  // new entries drawn by carousel predict (id: pair, iteration: sample)
};

// The uniform on the open interval (0, 1) of 64 random bits, from their top 53: never
// exactly 0, so log() is safe. Every keyed stream's uniform() (and util/cell_streams.hpp's).
inline double OpenUniform(std::uint64_t bits) {
  return (static_cast<double>(bits >> 11) + 0.5) * 0x1.0p-53;
}

// A uniform integer in [0, n) from 64 random bits, by Lemire's multiply-shift (bias below
// 2^-64 * n). Every keyed stream's below().
inline std::uint64_t BitsBelow(std::uint64_t bits, std::uint64_t n) {
  return static_cast<std::uint64_t>((static_cast<unsigned __int128>(bits) * n) >> 64);
}

class KeyedStream {
 public:
  KeyedStream(std::uint64_t seed, Purpose purpose, std::uint64_t id, std::uint64_t iteration) {
    key_ = {{seed, static_cast<std::uint64_t>(purpose)}};
    ctr_ = {{id, iteration, 0, 0}};
  }

  // Uniform on the open interval (0, 1) (OpenUniform).
  double uniform() {
    if (used_ == 4) refill();
    return OpenUniform(block_[used_++]);
  }

  std::uint64_t bits() {
    if (used_ == 4) refill();
    return block_[used_++];
  }

  // The next n uniforms of the stream: the numbers n calls of uniform() would return, in
  // their order. Why: a loop that takes one uniform per step (LDA's Gibbs sweep) otherwise
  // waits on Philox's ten dependent rounds every fourth step; drawn here ahead of it, the
  // blocks do not depend on each other and are computed together (util/philox_lanes.hpp).
  void FillUniform(double* out, std::size_t n);

  // The next n numbers of the stream: what n calls of bits() would return, in their order
  // (drawn ahead as FillUniform draws).
  void FillBits(std::uint64_t* out, std::size_t n);

  // Standard normal by Box-Muller; the second value of each pair is kept.
  double normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    const double u1 = uniform();
    const double u2 = uniform();
    const double r = std::sqrt(-2.0 * std::log(u1));
    const double angle = 6.283185307179586476925 * u2;
    spare_ = r * std::sin(angle);
    has_spare_ = true;
    return r * std::cos(angle);
  }

  // Uniform integer in [0, n) (BitsBelow).
  std::uint64_t below(std::uint64_t n) { return BitsBelow(bits(), n); }

  // Gamma(shape, 1) by Marsaglia and Tsang (2000); shape < 1 by the boost
  // Gamma(shape) = Gamma(shape + 1) * U^(1/shape), done in log space so that tiny
  // shapes give tiny positive values instead of underflowing to zero.
  double gamma(double shape) { return std::exp(log_gamma_variate(shape)); }

  // log of a Gamma(shape, 1) variate; finite for any shape > 0.
  double log_gamma_variate(double shape) {
    double log_boost = 0.0;
    if (shape < 1.0) {
      log_boost = std::log(uniform()) / shape;
      shape += 1.0;
    }
    return std::log(MarsagliaTsang(shape)) + log_boost;
  }

  // A Gamma(shape, 1) variate in linear scale: the same draws as log_gamma_variate without
  // its log and exp, so it may underflow to 0 when shape is tiny (callers that cannot
  // accept 0 use log_gamma_variate or apply a floor).
  double gamma_linear(double shape) {
    if (shape >= 1.0) return MarsagliaTsang(shape);
    const double log_boost = std::log(uniform()) / shape;
    return MarsagliaTsang(shape + 1.0) * std::exp(log_boost);
  }

 private:
  // Marsaglia and Tsang (2000) for shape >= 1: returns the variate d * v.
  double MarsagliaTsang(double shape) {
    const double d = shape - 1.0 / 3.0;
    const double c = 1.0 / std::sqrt(9.0 * d);
    for (;;) {
      double x, v;
      do {
        x = normal();
        v = 1.0 + c * x;
      } while (v <= 0.0);
      v = v * v * v;
      const double u = uniform();
      if (u < 1.0 - 0.0331 * x * x * x * x ||
          std::log(u) < 0.5 * x * x + d * (1.0 - v + std::log(v))) {
        return d * v;
      }
    }
  }

  using Philox = r123::Philox4x64;
  void refill() {
    block_ = Philox()(ctr_, key_);
    ctr_.v[2]++;
    used_ = 0;
  }

  Philox::key_type key_;
  Philox::ctr_type ctr_;
  Philox::ctr_type block_{};
  int used_ = 4;
  bool has_spare_ = false;
  double spare_ = 0.0;
};

}  // namespace carousel
