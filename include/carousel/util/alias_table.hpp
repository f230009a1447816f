// Vose's alias method (after Walker): draws index i with probability proportional to
// weight i in O(1), from a keyed stream, so a draw is a function of the stream's key only.
#pragma once

#include <cstdint>
#include <vector>

#include "carousel/util/keyed_rng.hpp"

namespace carousel {

// Reusable work space of FillAliasTable, so that building many tables allocates nothing.
struct AliasScratch {
  std::vector<double> scaled;
  std::vector<std::uint32_t> small, large;
};

// Builds the table of weights[0..n) (Vose 1991), handing each index i to
// set(i, prob, alias): i is kept with probability prob, else replaced by alias. All-zero
// weights give the uniform table (nothing to prefer).
template <class Set>
void FillAliasTable(const double* weights, std::size_t n, AliasScratch& scratch, Set set) {
  double total = 0.0;
  for (std::size_t i = 0; i < n; ++i) total += weights[i];
  auto& scaled = scratch.scaled;
  auto& small = scratch.small;
  auto& large = scratch.large;
  scaled.resize(n);
  small.clear();
  large.clear();
  for (std::size_t i = 0; i < n; ++i) {
    scaled[i] = total > 0.0 ? weights[i] * static_cast<double>(n) / total : 1.0;
    (scaled[i] < 1.0 ? small : large).push_back(static_cast<std::uint32_t>(i));
  }
  while (!small.empty() && !large.empty()) {
    const std::uint32_t s = small.back(), l = large.back();
    small.pop_back();
    set(s, scaled[s], l);
    scaled[l] = (scaled[l] + scaled[s]) - 1.0;
    if (scaled[l] < 1.0) {
      large.pop_back();
      small.push_back(l);
    }
  }
  for (std::uint32_t i : large) set(i, 1.0, i);
  for (std::uint32_t i : small) set(i, 1.0, i);  // rounding leftovers
}

class AliasTable {
 public:
  explicit AliasTable(const std::vector<double>& weights)
      : prob_(weights.size()), alias_(weights.size()) {
    AliasScratch scratch;
    FillAliasTable(weights.data(), weights.size(), scratch,
                   [this](std::uint32_t i, double prob, std::uint32_t alias) {
                     prob_[i] = prob;
                     alias_[i] = alias;
                   });
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
