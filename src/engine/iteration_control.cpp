#include "carousel/engine/iteration_control.hpp"

#include <algorithm>
#include <vector>

#include "carousel/util/error.hpp"

namespace carousel {

IterationVerdict AgreeAfterIteration(Communicator& comm, int local_requests, bool finite,
                                     std::uint64_t iteration, std::uint64_t checkpoint_every,
                                     std::uint64_t last_checkpoint,
                                     const std::function<std::string()>& hint) {
  const std::vector<int> flags = comm.AllGatherInt(local_requests | (finite ? 0 : kDivergedBit));
  int all = 0;
  for (int f : flags) all |= f;
  if (all & kDivergedBit) {
    const auto first =
        std::find_if(flags.begin(), flags.end(), [](int f) { return f & kDivergedBit; }) -
        flags.begin();
    throw Error(ExitCode::kDiverged,
                "the chain diverged at iteration " + std::to_string(iteration) + ": " + hint())
        .SetCollective(comm.rank() != static_cast<int>(first));
  }
  IterationVerdict verdict;
  verdict.stop = (all & kRequestStop) != 0;
  // One SIGUSR1 sent to every rank can reach one rank just before this exchange and another
  // just after it: the second rank then asks at the next iteration for the checkpoint just
  // written. A requested checkpoint right after one is that same request.
  const bool requested = (all & kRequestCheckpoint) != 0 && iteration != last_checkpoint + 1;
  verdict.checkpoint =
      verdict.stop || requested || (checkpoint_every > 0 && iteration % checkpoint_every == 0);
  return verdict;
}

}  // namespace carousel
