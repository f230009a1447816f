// The phases of the engine's iteration (TileEngine::Step, TileEngine::Run), for the
// closing lines' account of where each rank's sampling time went.
#pragma once

namespace carousel {

// Where a rank's sampling time went, in wall seconds, summed over the iterations of Run:
// the phases of an iteration in the order they run (the waits for other ranks are inside
// them: for the travelling column blocks in `shift_wait`, for the model's reductions in
// `end_iteration` and `evaluations`, for the per-iteration agreement in `agreement`).
struct PhaseSeconds {
  double tiles = 0.0;          // the model's work on the stratum's tiles
  double rows = 0.0;           // row-block updates while the column blocks travel
  double shift_wait = 0.0;     // waiting for the column blocks of the next iteration
  double end_iteration = 0.0;  // the model's end of the iteration (its reductions included)
  double evaluations = 0.0;    // evaluations and kept draws
  double agreement = 0.0;      // the ranks' agreement on finiteness, signals and checkpoints
  double checkpoints = 0.0;    // packing, gathering and (rank 0) writing checkpoints
};

}  // namespace carousel
