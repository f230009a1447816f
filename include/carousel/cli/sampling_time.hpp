// Where a rank's sampling loop spent its wall time: what RunChain (cli/chain_driver.hpp)
// measures and the closing summary (cli/command_support.hpp) reports, in a header of its own
// so that the chain driver compiles without the command-line parser.
#pragma once

#include "carousel/engine/phase_seconds.hpp"

namespace carousel::cli {

// Where a rank's sampling loop (RunChain) spent its wall time.
struct SamplingTime {
  double wall = 0.0;
  double communicating = 0.0;  // inside the communicator, the waits for other ranks included
  PhaseSeconds phases;
};

}  // namespace carousel::cli
