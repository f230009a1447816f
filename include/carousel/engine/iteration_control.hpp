// What every rank must agree on after an iteration (DESIGN.md section 3): the signal
// requests seen by any rank (checkpoint, stop) and whether any rank's parameters became
// NaN or infinite. One tiny collective per iteration carries them, so all ranks take the
// same branch and none waits alone in a collective.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "carousel/comm/communicator.hpp"

namespace carousel {

// Bits of an engine's `requests` callback (set by the signal handlers); kDivergedBit is
// added internally.
enum RequestBits : int { kRequestCheckpoint = 1, kRequestStop = 2, kDivergedBit = 4 };

struct IterationVerdict {
  bool checkpoint = false;  // write a checkpoint now: periodic (checkpoint_every) or requested
  bool stop = false;        // stop after that checkpoint
};

// Collective. A checkpoint is due at every checkpoint_every-th iteration, on a stop request
// and on a checkpoint request, except one at the iteration right after `last_checkpoint`
// (the same signal, taken by some rank one exchange late). If any rank reports !finite, every rank
// throws Error(kDiverged) with "the chain diverged at iteration N: " + hint(), printed by the
// lowest diverged rank.
IterationVerdict AgreeAfterIteration(Communicator& comm, int local_requests, bool finite,
                                     std::uint64_t iteration, std::uint64_t checkpoint_every,
                                     std::uint64_t last_checkpoint,
                                     const std::function<std::string()>& hint);

}  // namespace carousel
