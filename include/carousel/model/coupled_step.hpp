// One iteration of a sampler coupled across blocks (HAMCMC, SGNHT) over the blocks a rank
// steps, in the order of the Sampler coupling protocol (sampler/sampler.hpp):
//   1. PreSums of every block at its gradient point; the sums of all blocks of all ranks,
//      added in key order (OrderedSum), go to every StepWithSums;
//   2. StepWithSums of every block, then the optional `after_move` (e.g. mirroring);
//   3. if the sampler wants it, AfterStep with the gradient at the new point on the same
//      minibatch (and, with a curvature subset, the gradient at the old gradient point on
//      it), group by group;
//   4. PostSums, summed in key order; EndIteration once with both totals.
// Model-independent: the model says which blocks it steps, with their gradients and noise
// keys, and how to take the gradients after the step. Every model on the tile grid (BPMF,
// alpha-stable NMF) runs its coupled samplers through this one function (DESIGN.md
// section 7). It lives in the model layer because models call it; the engine is above them.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "carousel/comm/communicator.hpp"
#include "carousel/sampler/sampler.hpp"

namespace carousel {

// A block stepped this iteration.
struct CoupledBlock {
  // Its place in the ordered sums: unique across all ranks and the same at any rank count
  // (e.g. row-block ids 0..B-1, column blocks B..2B-1).
  int key;
  BlockState* state;
  // At sampler.GradientPoint(*state), on this iteration's minibatch.
  BlockGradient gradient;
  NoiseKey noise;
};

// The gradients after the step of one group's blocks, one per block in the group's order.
struct GradientsAfterStep {
  std::vector<BlockGradient> at_new_point;
  // Empty: the pair is formed on the whole minibatch (AfterStep's one-gradient form).
  // Otherwise both gradients on a curvature subset with the same scale, this one at the
  // gradient point as it was before StepWithSums (AfterStep's two-gradient form).
  std::vector<BlockGradient> at_gradient_point;
};

struct CoupledStepHooks {
  // Applied to every block right after its StepWithSums, before AfterStep; may be empty.
  std::function<void(BlockState&)> after_move;
  // Fills `out` (cleared before the call) for group g. Called only if the sampler needs
  // the gradient after the step, for g = 0, 1, ... in turn; the group's AfterSteps run
  // before the next call, so the gradients may point at buffers the callback reuses.
  std::function<void(std::size_t group, GradientsAfterStep& out)> gradients_after_step;
};

// Runs steps 1-4 above on `blocks`, cut into consecutive groups of `group_size` blocks
// whose gradients after the step come from one pass of the model (a tile: its row block
// and its column block). Collective when the sampler has sums (every rank calls it once
// per iteration).
void RunCoupledStep(Sampler& sampler, Communicator& comm, const std::vector<CoupledBlock>& blocks,
                    std::size_t group_size, double step, const CoupledStepHooks& hooks);

}  // namespace carousel
