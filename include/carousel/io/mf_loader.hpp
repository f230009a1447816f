// From rating files to an MfProblem and this rank's share of the training ratings
// (DESIGN.md section 8). Each rank parses only its byte range of the training file; the
// seeded train/test split is keyed by a rating's position in the file; the id maps are a
// merge of the ranges' distinct ids; each training rating then travels once, in rounds of
// bounded size, to the rank that runs its row block, which sorts its share into tiles and
// finds duplicate pairs there. Whole-set summaries (mean, counts per item and stratum) are
// reductions in a fixed order, so everything is the same to the bit at any rank count.
//
// The test ratings are read or split off whole by every rank, which keeps those of its own
// row blocks (PartitionTestSet): the model evaluates them by row block, and rank 0 gathers
// them for predictions.csv (GatherTestSet).
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
  // External ids of this rank's test ratings (problem.test), in test order.
  std::vector<std::int64_t> test_user, test_item;
  std::uint64_t cold_test = 0;     // test ratings whose user or item is not in training (all)
  double parse_seconds = 0.0;      // this rank's parsing of its range of the training file
  std::uint64_t parsed_bytes = 0;  // the size of that range
};

// Collective. Every problem with the input ends every rank with one carousel::Error
// (kInput), naming file:line as a single process reading the file would.
LoadedMf LoadMf(Communicator& comm, const MfInput& input);

// The whole test set in test order: each rating's value and external ids.
struct WholeTestSet {
  std::vector<float> value;
  std::vector<std::int64_t> user, item;
};

// This rank's test ratings in their order: the whole test set in a single process.
WholeTestSet HeldTestSet(const LoadedMf& data);

// Collective: every rank's test ratings, gathered in test order on rank 0 (empty elsewhere).
WholeTestSet GatherTestSet(Communicator& comm, const LoadedMf& data);

}  // namespace carousel::io
