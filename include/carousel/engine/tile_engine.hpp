// The distributed SG-MCMC loop of every model (DESIGN.md sections 1 and 7; DSGLD of Ahn et
// al. 2015 and HAMCMC paper Sec. 4.3).
//
// Rank p runs row-blocks p*B/P .. (p+1)*B/P - 1. Each iteration runs one stratum: the model
// processes the tiles its rank holds, the column blocks that are needed elsewhere next
// start travelling, the model updates its row-blocks while they travel, and the blocks
// arrive. Data never moves. All randomness is keyed and every cross-rank sum is ordered,
// so the chain does not depend on P. The engine knows the grid, the schedule, the loop,
// the evaluation cadence and burn-in, signals and checkpoints; the model (TileModel)
// knows its math.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "carousel/comm/communicator.hpp"
#include "carousel/data/tile_grid.hpp"
#include "carousel/engine/iteration_control.hpp"
#include "carousel/engine/phase_seconds.hpp"
#include "carousel/model/tile_model.hpp"

namespace carousel {

// What the engine asks of the outside world, all on rank 0 except `requests`.
struct EngineCallbacks {
  // Local signal requests: bit 0 = checkpoint, bit 1 = checkpoint and stop.
  std::function<int()> requests = [] { return 0; };
  // After each evaluation (the model holds its result).
  std::function<void()> on_eval = [] {};
  std::function<void(std::uint64_t iteration, double seconds)> on_iteration = [](std::uint64_t,
                                                                                 double) {};
  std::function<void(std::uint64_t iteration, const std::string& payload)> on_checkpoint =
      [](std::uint64_t, const std::string&) {};
  // Stored verbatim in every checkpoint (the CLI keeps its command line there).
  std::string checkpoint_extra;
};

class TileEngine {
 public:
  // Attaches `model` to this rank's part of the grid and initialises its column blocks.
  // Communicates with no one (so it may run inside RunCollectively). A thin of 0 in `options`
  // is its eval_every (ChainOptions::Resolved).
  TileEngine(Communicator& comm, TileModel& model, const ChainOptions& options);
  ~TileEngine();

  // Restores the state saved by a checkpoint payload (from any rank count dividing B).
  void Restore(const std::string& payload);

  // Runs up to options.iterations. Returns false when stopped early by a stop request
  // (after writing a checkpoint).
  bool Run(const EngineCallbacks& callbacks);

  std::uint64_t iteration() const;
  std::uint64_t collected() const;  // evaluations whose sample entered the averages
  const TileGrid& grid() const;
  // Collective; non-empty on rank 0 only. `extra` is stored verbatim and returned by
  // ReadCheckpointSummary.
  std::string CheckpointPayload(const std::string& extra);

  // What a resume needs to know of a checkpoint payload before any model exists: the
  // caller's `extra`, the iteration reached and the tiles per side it was taken on (its
  // row-blocks are stored by global id, one per row of tiles).
  struct CheckpointSummary {
    std::string extra;
    std::uint64_t iteration = 0;
    int tiles = 0;
  };
  static CheckpointSummary ReadCheckpointSummary(const std::string& payload);

  // Wall seconds of the run, including the runs this one resumed from.
  double seconds_running() const;
  // This rank's sampling time by phase, over the calls of Run so far in this process.
  const PhaseSeconds& phase_seconds() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace carousel
