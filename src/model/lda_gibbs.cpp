#include "carousel/model/lda_gibbs.hpp"

#include <limits>

namespace carousel {

void TopicWordView::Assign(const double* theta, std::size_t words, int k_topics,
                           const double* inverse_total, double alpha_) {
  topics = k_topics;
  alpha = alpha_;
  const auto K = static_cast<std::size_t>(k_topics);
  phi.resize(words * K);
  smoothing.resize(words);
  for (std::size_t w = 0; w < words; ++w) {
    double sum = 0.0;
    for (std::size_t k = 0; k < K; ++k) {
      // Subnormal phi (from theta at SCIR's floor) would make every multiply by it slow;
      // such a phi carries less than 1e-300 of the probability and is set to 0.
      double p = theta[w * K + k] * inverse_total[k];
      if (p < std::numeric_limits<double>::min()) p = 0.0;
      phi[w * K + k] = p;
      sum += p;
    }
    smoothing[w] = alpha * sum;
  }
}

DocumentGibbs::DocumentGibbs(int topics)
    : topics_(topics),
      position_(static_cast<std::size_t>(topics), -1),
      cumulative_(static_cast<std::size_t>(topics)) {
  present_.reserve(static_cast<std::size_t>(topics));
}

void DocumentGibbs::Add(std::uint32_t* doc_topic, int k) {
  if (doc_topic[k]++ == 0) {
    position_[k] = static_cast<int>(present_.size());
    present_.push_back(k);
  }
}

void DocumentGibbs::Remove(std::uint32_t* doc_topic, int k) {
  if (--doc_topic[k] == 0) {  // swap-remove from the present list
    const int at = position_[k];
    const int last = present_.back();
    present_[static_cast<std::size_t>(at)] = last;
    position_[last] = at;
    present_.pop_back();
    position_[k] = -1;
  }
}

void DocumentGibbs::Sweep(const std::uint32_t* word, std::uint16_t* topic, std::size_t n,
                          std::uint32_t* doc_topic, const TopicWordView& view, KeyedStream& rng,
                          double* accumulate) {
  for (int k : present_) position_[k] = -1;
  present_.clear();
  for (int k = 0; k < topics_; ++k)
    if (doc_topic[k] > 0) {
      position_[k] = static_cast<int>(present_.size());
      present_.push_back(k);
    }
  const auto K = static_cast<std::size_t>(topics_);
  for (std::size_t i = 0; i < n; ++i) {
    Remove(doc_topic, topic[i]);
    const double* phi = view.Row(word[i]);
    double document_mass = 0.0;
    const std::size_t present = present_.size();
    for (std::size_t p = 0; p < present; ++p) {
      const int k = present_[p];
      document_mass += static_cast<double>(doc_topic[k]) * phi[k];
      cumulative_[p] = document_mass;
    }
    double u = rng.uniform() * (document_mass + view.smoothing[word[i]]);
    int chosen = -1;
    if (u < document_mass) {
      for (std::size_t p = 0; p < present; ++p)
        if (u < cumulative_[p]) {
          chosen = present_[p];
          break;
        }
    } else {
      u = (u - document_mass) / view.alpha;
      double c = 0.0;
      for (std::size_t k = 0; k < K; ++k) {
        c += phi[k];
        if (phi[k] > 0.0) chosen = static_cast<int>(k);  // rounding falls to the last one
        if (u < c) break;
      }
    }
    if (chosen < 0) chosen = topic[i];  // all-zero weights cannot happen for theta > 0
    topic[i] = static_cast<std::uint16_t>(chosen);
    Add(doc_topic, chosen);
    if (accumulate) accumulate[static_cast<std::size_t>(word[i]) * K + chosen] += 1.0;
  }
}

}  // namespace carousel
