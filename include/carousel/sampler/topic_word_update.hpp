// One stochastic-gradient update of a block of LDA topic-word parameters, in the
// expanded-mean (Gamma) parameterisation: theta_kw > 0, phi_kw = theta_kw / theta_k., with
// theta_kw ~ Gamma(beta, 1) a priori so that phi_k ~ Dirichlet(beta). The minibatch gives
// count_hat_kw = scale * nbar_kw, an unbiased estimate of the expected number of tokens of
// word w in topic k over the whole training corpus.
//
//   scir   : SCIR paper Alg. 1 / Eq. 2.3, theta_kw <- exact CIR transition over h with
//            shape a_hat_kw = beta + count_hat_kw. Every entry is independent, so a block
//            needs nothing from outside itself. Drawn by ScirBlockStep (scir_block.hpp:
//            ScirSharedShapeTransition's law, the same as ScirStep's, its common case
//            eight entries at a time).
//   sgrld  : Patterson and Teh (2013) expanded-mean SGRLD (SgrldComponentStep), whose
//            drift needs the row sums theta_k. and count_hat_k. over the whole vocabulary.
//   sgrhmc : recipe paper Alg. 1 with G = diag(theta)^-1 (SgrhmcComponentStep), the same
//            row sums, and a momentum per entry.
//
// Blocks are stored word-major (theta[w * K + k]) so that one word's K topics are
// contiguous for the Gibbs step. Noise for word w at iteration t is keyed by
// (seed, kNoiseCol, global word id, t): for scir each entry (w, k) has its own stream
// (util/cell_streams.hpp), for sgrld and sgrhmc one stream serves k in order. Either way
// whichever rank holds the block draws the same numbers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace carousel {

enum class SimplexSampler { kScir, kSgrld, kSgrhmc };

// By the registry's names (registry.hpp): "scir", "sgrld" or "sgrhmc"; throws
// SettingError("sampler", ...) naming the known ones otherwise.
SimplexSampler ParseSimplexSampler(const std::string& name);
const char* SimplexSamplerName(SimplexSampler sampler);
// Whether the update needs theta_k. and count_hat_k. (one reduction of K numbers).
inline bool NeedsRowSums(SimplexSampler s) {
  return s != SimplexSampler::kScir;
}
inline bool HasMomentum(SimplexSampler s) {
  return s == SimplexSampler::kSgrhmc;
}

struct TopicWordStep {
  SimplexSampler sampler = SimplexSampler::kScir;
  int topics = 0;
  double beta = 0.0;
  double step = 0.0;                        // h of SCIR, eps of SGRLD / SGRHMC
  double scale = 0.0;                       // count_hat = scale * nbar
  const double* theta_total = nullptr;      // theta_k. over all words (sgrld, sgrhmc)
  const double* count_hat_total = nullptr;  // count_hat_k. over all words (sgrld, sgrhmc)
  std::uint64_t seed = 0;
  std::uint64_t iteration = 0;
};

// Updates `words` x K entries of theta (and momentum for sgrhmc) given the minibatch
// counts (same layout; summed over the kept Gibbs sweeps, whose number `scale` divides
// by); word_ids maps block rows to global word ids. Adds each
// topic's new block total to block_total[k] (K entries, zeroed by the caller). Returns
// false if a value became NaN or infinite (the caller stops the run collectively).
bool UpdateTopicWordBlock(const TopicWordStep& step, const std::vector<std::uint32_t>& word_ids,
                          const std::uint32_t* counts, double* theta, double* momentum,
                          double* block_total);

}  // namespace carousel
