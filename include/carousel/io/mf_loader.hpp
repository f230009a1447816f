// From rating files to an MfProblem: reading, the optional seeded train/test split, id
// maps built from the training ratings, and the test ratings of unseen users or items.
#pragma once

#include <cstdint>
#include <string>

#include "carousel/data/mf_problem.hpp"
#include "carousel/io/id_map.hpp"
#include "carousel/io/ratings_reader.hpp"

namespace carousel::io {

struct MfInput {
  std::string train;
  std::string test;            // empty: split the training file
  double test_fraction = 0.0;  // used when `test` is empty
  RatingsFormat format = RatingsFormat::kAuto;
  std::uint64_t seed = 1;
};

struct LoadedMf {
  MfProblem problem;
  IdMap users, items;
  std::vector<std::int64_t> test_user, test_item;  // external ids, in test order
  std::uint64_t cold_test = 0;  // test ratings whose user or item is not in training
};

// Throws carousel::Error (kInput) for unreadable or malformed files.
LoadedMf LoadMf(const MfInput& input);

}  // namespace carousel::io
