#include "carousel/model/lda/lda_inference.hpp"

#include <algorithm>
#include <cmath>

#include "carousel/model/lda/lda_tokens.hpp"
#include "carousel/util/keyed_rng.hpp"

namespace carousel {

DocumentInference::DocumentInference(const TopicWordView& view, int sweeps, std::uint64_t seed)
    : view_(view),
      sweeps_(sweeps),
      seed_(seed),
      gibbs_(view.topics),
      counts_(static_cast<std::size_t>(view.topics)),
      sum_(static_cast<std::size_t>(view.topics)) {}

double DocumentInference::Sweeps(std::uint64_t doc, const std::vector<std::uint32_t>& words,
                                 std::uint64_t stream) {
  const auto K = static_cast<std::size_t>(view_.topics);
  std::fill(counts_.begin(), counts_.end(), 0u);
  std::fill(sum_.begin(), sum_.end(), 0.0);
  const double length = static_cast<double>(words.size());
  if (words.empty()) {
    AddTopicProportions(counts_.data(), length, view_.alpha, K, sum_.data());
    return 1.0;
  }
  KeyedStream init(seed_, Purpose::kInfer, doc, 2 * stream);
  topic_.resize(words.size());
  for (std::uint16_t& z : topic_) {
    z = static_cast<std::uint16_t>(init.below(K));
    counts_[z]++;
  }
  KeyedStream rng(seed_, Purpose::kInfer, doc, 2 * stream + 1);
  for (int sweep = 0; sweep < sweeps_; ++sweep) {
    gibbs_.Sweep(words.data(), topic_.data(), words.size(), counts_.data(), view_, rng, nullptr);
    if (sweep >= sweeps_ / 2)
      AddTopicProportions(counts_.data(), length, view_.alpha, K, sum_.data());
  }
  return static_cast<double>(sweeps_ - sweeps_ / 2);
}

void DocumentInference::Infer(std::uint64_t doc, const std::vector<std::uint32_t>& words,
                              double* theta, std::uint64_t stream) {
  const double kept = Sweeps(doc, words, stream);
  for (std::size_t k = 0; k < sum_.size(); ++k) theta[k] = sum_[k] / kept;
}

DocumentInference::Completion DocumentInference::Complete(std::uint64_t doc,
                                                          const std::vector<std::uint32_t>& words) {
  observed_.clear();
  test_.clear();
  for (std::size_t i = 0; i < words.size(); ++i)
    (IsTestToken(i) ? test_ : observed_).push_back(words[i]);
  Completion c;
  if (test_.empty()) return c;
  const double kept = Sweeps(doc, observed_, 1);
  const auto K = static_cast<std::size_t>(view_.topics);
  for (std::uint32_t w : test_)
    c.log_likelihood += std::log(PredictiveProbability(sum_.data(), view_.Row(w), K, kept));
  c.test_tokens = test_.size();
  return c;
}

}  // namespace carousel
