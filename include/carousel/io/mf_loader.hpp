// From rating files to an MfProblem and this rank's share of the training ratings
// (DESIGN.md section 8). Each rank parses only its byte range of the training file; the
// seeded train/test split is keyed by a rating's position in the file; the id maps are a
// merge of the ranges' distinct ids; each training rating then travels once, in rounds of
// bounded size, to the rank that runs its row block, which sorts its share into tiles and
// finds duplicate pairs there. Whole-set summaries (mean, counts per item and stratum) are
// reductions in a fixed order, so everything is the same to the bit at any rank count.
//
// The test ratings are held whole on every rank (they are few: the model evaluates them by
// row block, rank 0 writes them all); a --test file is read whole by every rank.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "carousel/comm/communicator.hpp"
#include "carousel/data/mf_problem.hpp"
#include "carousel/io/id_map.hpp"
#include "carousel/io/ratings_reader.hpp"

namespace carousel::io {

struct MfInput {
  std::string train;
  std::string test;            // empty: split the training file
  double test_fraction = 0.0;  // used when `test` is empty
  RatingsFormat format = RatingsFormat::kAuto;
  std::uint64_t seed = 1;  // of the split and of the tile grid
  int tiles = 1;           // blocks of the tile grid the ratings are shared out on
  // Item blocks of about equal numbers of training ratings (MfProblem::col_weights), not of
  // equal numbers of items: the ranks' tiles then hold about as many ratings each.
  bool balance_columns = false;
};

struct LoadedMf {
  MfProblem problem;  // the same on every rank
  TileShare share;    // this rank's training ratings, by tile, each tile in LocalOrder
  IdMap users, items;
  std::vector<std::int64_t> test_user, test_item;  // external ids, in test order
  std::uint64_t cold_test = 0;     // test ratings whose user or item is not in training
  double parse_seconds = 0.0;      // this rank's parsing of its range of the training file
  std::uint64_t parsed_bytes = 0;  // the size of that range
};

// Collective. Every problem with the input ends every rank with one carousel::Error
// (kInput), naming file:line as a single process reading the file would.
LoadedMf LoadMf(Communicator& comm, const MfInput& input);

}  // namespace carousel::io
