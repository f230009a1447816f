#include "carousel/sampler/topic_word_update.hpp"

#include <cmath>

#include "carousel/sampler/registry.hpp"
#include "carousel/sampler/scir_block.hpp"
#include "carousel/sampler/simplex_sgrld.hpp"
#include "carousel/util/error.hpp"
#include "carousel/util/keyed_rng.hpp"

namespace carousel {

SimplexSampler ParseSimplexSampler(const std::string& name) {
  return *FindSampler(name, BlockKind::kSimplex).simplex;
}

// The registry's name of the sampler whose simplex update is `sampler`.
const char* SimplexSamplerName(SimplexSampler sampler) {
  for (const SamplerInfo& info : SamplerRegistry())
    if (info.simplex == sampler) return info.name.c_str();
  throw Error(ExitCode::kInternal, "simplex sampler missing from the registry");
}

namespace {

// SCIR's update: every entry's own stream, keyed by (word, topic) (sampler/scir_block.hpp).
bool UpdateScirBlock(const TopicWordStep& step, const std::vector<std::uint32_t>& word_ids,
                     const std::uint32_t* counts, double* theta, double* block_total) {
  // The shapes are beta + count_hat, and count_hat = 0 for most entries.
  const ScirSharedShapeTransition scir(step.step, step.beta);
  return ScirBlockStep(scir, CellStreamKey(step.seed, Purpose::kNoiseCol, step.iteration), word_ids,
                       static_cast<std::uint32_t>(step.topics), counts, step.scale, theta,
                       block_total);
}

}  // namespace

bool UpdateTopicWordBlock(const TopicWordStep& step, const std::vector<std::uint32_t>& word_ids,
                          const std::uint32_t* counts, double* theta, double* momentum,
                          double* block_total) {
  if (step.sampler == SimplexSampler::kScir)
    return UpdateScirBlock(step, word_ids, counts, theta, block_total);
  const auto K = static_cast<std::size_t>(step.topics);
  std::vector<double> pull;
  if (step.sampler == SimplexSampler::kSgrhmc) {
    pull.resize(K);
    for (std::size_t k = 0; k < K; ++k)
      pull[k] = 1.0 + step.count_hat_total[k] / step.theta_total[k];
  }
  bool finite = true;
  for (std::size_t w = 0; w < word_ids.size(); ++w) {
    KeyedStream rng(step.seed, Purpose::kNoiseCol, word_ids[w], step.iteration);
    double* t = theta + w * K;
    const std::uint32_t* n = counts + w * K;
    for (std::size_t k = 0; k < K; ++k) {
      const double count_hat = step.scale * n[k];
      if (step.sampler == SimplexSampler::kSgrld)
        t[k] = SgrldComponentStep(t[k], step.beta, count_hat, step.theta_total[k],
                                  step.count_hat_total[k], step.step, rng);
      else
        SgrhmcComponentStep(t[k], momentum[w * K + k], step.beta, count_hat, pull[k], step.step,
                            rng);
      finite = finite && std::isfinite(t[k]);
      block_total[k] += t[k];
    }
  }
  return finite;
}

}  // namespace carousel
