// The coupling protocol of sampler.hpp over one rank's blocks (coupled_step.hpp).
#include "carousel/model/coupled_step.hpp"

#include "carousel/comm/ordered_sum.hpp"
#include "carousel/util/error.hpp"

namespace carousel {
namespace {

// Each block's `width` sums, added over all blocks of all ranks in key order.
template <typename Fill>
std::vector<double> KeyedTotal(Communicator& comm, const std::vector<CoupledBlock>& blocks,
                               std::size_t width, Fill&& fill) {
  if (width == 0) return {};
  KeyedPartials partials;
  for (const CoupledBlock& b : blocks) {
    std::vector<double>& sums = partials[b.key];
    sums.assign(width, 0.0);
    fill(b, sums.data());
  }
  return OrderedSum(comm, partials, width);
}

}  // namespace

void RunCoupledStep(Sampler& sampler, Communicator& comm, const std::vector<CoupledBlock>& blocks,
                    std::size_t group_size, double step, const CoupledStepHooks& hooks) {
  if (group_size == 0 || blocks.size() % group_size != 0)
    throw Error(ExitCode::kInternal, "RunCoupledStep: blocks do not fall into whole groups");
  const std::vector<double> pre =
      KeyedTotal(comm, blocks, static_cast<std::size_t>(sampler.pre_sum_count()),
                 [&](const CoupledBlock& b, double* out) {
                   sampler.PreSums(*b.state, b.gradient, b.noise, out);
                 });
  for (const CoupledBlock& b : blocks) {
    sampler.StepWithSums(*b.state, b.gradient, step, b.noise, pre.data());
    if (hooks.after_move) hooks.after_move(*b.state);
  }
  if (sampler.needs_gradient_after_step()) {
    if (!hooks.gradients_after_step)
      throw Error(ExitCode::kInternal, sampler.name() + " needs the gradient after the step");
    GradientsAfterStep after;
    for (std::size_t g = 0; g * group_size < blocks.size(); ++g) {
      after.at_new_point.clear();
      after.at_gradient_point.clear();
      hooks.gradients_after_step(g, after);
      const bool pair = !after.at_gradient_point.empty();
      if (after.at_new_point.size() != group_size ||
          (pair && after.at_gradient_point.size() != group_size))
        throw Error(ExitCode::kInternal, "RunCoupledStep: one gradient per block of the group");
      for (std::size_t i = 0; i < group_size; ++i) {
        BlockState& state = *blocks[g * group_size + i].state;
        if (pair)
          sampler.AfterStep(state, after.at_new_point[i], after.at_gradient_point[i]);
        else
          sampler.AfterStep(state, after.at_new_point[i]);
      }
    }
  }
  const std::vector<double> post =
      KeyedTotal(comm, blocks, static_cast<std::size_t>(sampler.post_sum_count()),
                 [&](const CoupledBlock& b, double* out) { sampler.PostSums(*b.state, out); });
  sampler.EndIteration(pre.data(), post.data(), step);
}

}  // namespace carousel
