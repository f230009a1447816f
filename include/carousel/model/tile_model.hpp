// The one interface between the tile engine and a model (DESIGN.md section 7).
//
// The engine owns the B x B tile grid, the rank layout, the stratum schedule, the
// iteration loop, the evaluation cadence, signals and checkpoints; it knows no model. A
// model owns the state of the row-blocks its rank runs (they never move), the column
// blocks its rank holds at the moment (they travel, with their sampler state, as opaque
// bytes), and its small global state (combined by ordered reductions it runs itself).
// One iteration, on every rank in the same order:
//
//   UpdateTiles      each local tile of the stratum: gradient or sufficient statistics,
//                    then the column block's update (and the row-block's, for samplers
//                    coupled across blocks)
//   (column blocks that leave this rank start travelling: TakeColBlock)
//   UpdateRows       work that overlaps the transfer (row-block updates)
//   (arriving blocks: PutColBlock)
//   EndIteration     global state after the move (hyperparameters, totals)
//
// Every call with a Communicator argument or a reduction inside is collective.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "carousel/comm/communicator.hpp"
#include "carousel/data/tile_grid.hpp"

namespace carousel {

// What a model holds on this rank, in bytes: its share of the data as stored in its tiles,
// and its parameter blocks with their sampler state, moments and buffers. Benchmarks hold
// peak memory against these (bench/run_load_bench.sh).
struct ModelFootprint {
  std::uint64_t data_bytes = 0;
  std::uint64_t state_bytes = 0;
  // What every rank holds whole rather than its share (a test set, arrays over all columns,
  // the grid's maps): the part of a rank's memory that does not shrink as ranks are added.
  std::uint64_t whole_bytes = 0;
};

// The options every model's chain shares: one member (`chain`) of each model's config.
struct ChainOptions {
  int tiles = 1;
  StratumSchedule::Kind schedule = StratumSchedule::Kind::kCyclic;
  std::uint64_t iterations = 1000;
  std::uint64_t burn_in = 200;
  std::uint64_t eval_every = 10;
  // After burn-in a draw is kept (enters the posterior averages and the draws file) every
  // `thin` iterations and at the last one; each kept draw is also an evaluation. 0: every
  // eval_every (Resolved).
  std::uint64_t thin = 0;
  std::uint64_t checkpoint_every = 0;  // 0: only on signals
  std::uint64_t seed = 1;
  // Keys how the data is divided, the tile grid and the held-out split, apart from the
  // chain's own randomness: the chains of one run share it, so that they sample one
  // posterior of one training set (DESIGN.md section 1).
  std::uint64_t split_seed = 1;

  // These options with a thin of 0 made eval_every: what the engine runs.
  ChainOptions Resolved() const {
    ChainOptions resolved = *this;
    if (resolved.thin == 0) resolved.thin = resolved.eval_every;
    return resolved;
  }
  // The defaults with a model's own burn-in and evaluation cadence.
  static ChainOptions WithDefaults(std::uint64_t burn_in, std::uint64_t eval_every) {
    ChainOptions options;
    options.burn_in = burn_in;
    options.eval_every = eval_every;
    return options;
  }
};

// A fraction numerator / denominator of a run's iterations, and its words for config.toml.
struct RunFraction {
  std::uint64_t numerator, denominator;
  const char* words;
  std::uint64_t Of(std::uint64_t iterations) const { return iterations * numerator / denominator; }
};
inline constexpr RunFraction kNoneOfTheRun{0, 1, "none"};
inline constexpr RunFraction kHalfTheRun{1, 2, "half"};

// A burn-in of `passes` passes over the data: an iteration works on one stratum, 1/tiles of
// the data, so passes x tiles iterations; raised to at least `least` of the iterations
// (by default no floor) and at most `most` of them (by default half), so that a short run
// keeps draws.
inline std::uint64_t BurnInOfPasses(std::uint64_t passes, int tiles, std::uint64_t iterations,
                                    RunFraction most = kHalfTheRun,
                                    RunFraction least = kNoneOfTheRun) {
  std::uint64_t burn_in = passes * static_cast<std::uint64_t>(tiles > 1 ? tiles : 1);
  if (burn_in < least.Of(iterations)) burn_in = least.Of(iterations);
  return burn_in < most.Of(iterations) ? burn_in : most.Of(iterations);
}

// The iterations between evaluations: `passes` passes over the data, or more whole passes
// (of `tiles` iterations each) where those make fewer than `at_least` iterations. An
// evaluation (and the kept draw that comes with it) costs about as much at any tile count,
// so counted in passes its share of the run does not grow with the tiles; counted in
// iterations it did (at 64 tiles a fixed 10 iterations evaluated 6.4 times a pass).
inline std::uint64_t EvalEveryOfPasses(std::uint64_t passes, int tiles,
                                       std::uint64_t at_least = 0) {
  const std::uint64_t pass = static_cast<std::uint64_t>(tiles > 1 ? tiles : 1);
  const std::uint64_t covering = (at_least + pass - 1) / pass;
  return (covering > passes ? covering : passes) * pass;
}

// What a model may ask of the run it is part of; fixed when the model is attached.
struct TileRun {
  Communicator* comm = nullptr;
  const TileGrid* grid = nullptr;
  const RankLayout* layout = nullptr;
  std::vector<int> row_blocks;  // this rank's row-block ids, ascending
  // Wall seconds of the run so far, including the runs it resumed from.
  std::function<double()> seconds_running;
};

struct IterationContext {
  std::uint64_t t = 0;  // the iteration being run, from 0
  int stratum = 0;      // the stratum of t, and of t + 1 (where column blocks go next)
  int next = 0;
  std::uint64_t stratum_size = 0;  // training items in the stratum (the schedule's weight)
};

struct EvaluationContext {
  std::uint64_t t = 0;          // the iteration just run; iteration() is t + 1
  std::uint64_t iteration = 0;  // iterations run so far
  bool collect = false;         // a kept draw: this sample enters the averages and the draws
  std::uint64_t collected = 0;  // samples collected so far, this one included
  int home_stratum = 0;         // where the column blocks are now (the stratum of `iteration`)
};

class TileModel {
 public:
  virtual ~TileModel() = default;

  // ---- Set-up, before the engine exists (grid sizes) and once it does.
  virtual std::uint32_t grid_rows() const = 0;
  virtual std::uint32_t grid_cols() const = 0;
  // Each column's training data (ratings, tokens), so that the column blocks share it evenly
  // (TileGrid); empty: column blocks of equal counts. The same on every rank.
  virtual std::vector<std::uint64_t> grid_col_weights() const { return {}; }
  // Builds this rank's row-blocks; returns the training items of each stratum (the same on
  // every rank), which weight the random stratum schedule.
  virtual std::vector<std::uint64_t> Attach(const TileRun& run) = 0;
  // A fresh column block j, held by this rank at the first stratum.
  virtual void InitColBlock(int j) = 0;
  // Collective, once the fresh column blocks exist, before the first iteration (not after
  // a restore): global state derived from them (LDA's per-topic totals).
  virtual void FinishInit() {}

  // ---- One iteration (see the header).
  virtual void UpdateTiles(const IterationContext& ctx) = 0;
  virtual void UpdateRows(const IterationContext& ctx) = 0;
  virtual void EndIteration(const IterationContext& ctx) = 0;

  // Whether column blocks move to the next stratum's ranks after each UpdateTiles. A model
  // whose update needs every column block at once (SAM: a document's likelihood couples its
  // whole vocabulary) keeps them where the first stratum put them, and brings the few rows it
  // needs to them instead; the engine then runs every iteration at that stratum.
  virtual bool ColumnBlocksTravel() const { return true; }

  // ---- Travelling column blocks, as bytes. The size is known to both sides in advance.
  virtual std::string TakeColBlock(int j) = 0;  // removes it from this rank
  virtual void PutColBlock(int j, const std::string& bytes) = 0;
  virtual std::size_t ColBlockBytes(int j) const = 0;

  // ---- Evaluation and chain health; collective.
  virtual void Evaluate(const EvaluationContext& ctx) = 0;
  // Throws a collective Error(kDiverged) when the chain left the posterior although it is
  // finite (checked after every evaluation); the default finds nothing.
  virtual void CheckHealth() const {}
  // Whether this rank's parameters are finite, and what to tell a user when they are not.
  virtual bool AllFinite() const = 0;
  virtual std::string DivergenceHint(std::uint64_t t) const = 0;

  // ---- Checkpoints. Blocks are saved by global id so that any rank count dividing B
  // can restore them (DESIGN.md section 4).
  virtual std::string Fingerprint() const = 0;  // data and options the chain depends on
  virtual std::string SaveRowBlock(int id) const = 0;
  virtual void RestoreRowBlock(int id, const std::string& bytes) = 0;
  virtual std::string SaveColBlock(int j) const = 0;
  virtual void RestoreColBlock(int j, const std::string& bytes) = 0;
  // Global state on rank 0 (hyperparameters, sampler state, the trace, ...); restored on
  // every rank, first: the model then drops the column blocks it holds, and the ones held
  // at the restored stratum follow (RestoreColBlock).
  virtual std::string SaveGlobal() const = 0;
  virtual void RestoreGlobal(const std::string& bytes) = 0;
};

}  // namespace carousel
