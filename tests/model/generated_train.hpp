// Every rating `carousel gen mf` would generate with options g, as one training matrix:
// the small data set of the BpmfModel tests that need no test split.
#pragma once

#include <cstddef>

#include "carousel/data/mf_problem.hpp"
#include "carousel/model/bpmf/mf_generator.hpp"

namespace carousel {

inline RatingMatrix GeneratedTraining(const MfGeneratorOptions& g) {
  const GeneratedRatings gen = GenerateMf(g);
  RatingMatrix train{g.users, g.items, {}};
  for (std::size_t t = 0; t < gen.rating.size(); ++t)
    train.entries.push_back({gen.user[t], gen.item[t], gen.rating[t]});
  return train;
}

}  // namespace carousel
