// Vose's alias method (after Walker): draws index i with probability proportional to
// weight i in O(1), from a keyed stream, so a draw is a function of the stream's key only.
#pragma once

#include <cstdint>
#include <vector>

#include "carousel/util/keyed_rng.hpp"

namespace carousel {

class AliasTable {
 public:
  explicit AliasTable(const std::vector<double>& weights)
      : prob_(weights.size()), alias_(weights.size()) {
    const std::size_t n = weights.size();
    double total = 0.0;
    for (double w : weights) total += w;
    std::vector<double> scaled(n);
    std::vector<std::uint32_t> small, large;
    for (std::size_t i = 0; i < n; ++i) {
      scaled[i] = weights[i] * static_cast<double>(n) / total;
      (scaled[i] < 1.0 ? small : large).push_back(static_cast<std::uint32_t>(i));
    }
    while (!small.empty() && !large.empty()) {
      const std::uint32_t s = small.back(), l = large.back();
      small.pop_back();
      prob_[s] = scaled[s];
      alias_[s] = l;
      scaled[l] = (scaled[l] + scaled[s]) - 1.0;
      if (scaled[l] < 1.0) {
        large.pop_back();
        small.push_back(l);
      }
    }
    for (std::uint32_t i : large) prob_[i] = 1.0, alias_[i] = i;
    for (std::uint32_t i : small) prob_[i] = 1.0, alias_[i] = i;  // rounding leftovers
  }

  std::uint32_t Draw(KeyedStream& rng) const {
    const auto i = static_cast<std::uint32_t>(rng.below(prob_.size()));
    return rng.uniform() < prob_[i] ? i : alias_[i];
  }

 private:
  std::vector<double> prob_;
  std::vector<std::uint32_t> alias_;
};

}  // namespace carousel
