// The options every sampling command shares, apart from the command-line parser that
// declares them (AddChainOptions, cli/command_support.hpp), so that code which only reads
// them, such as the chain driver, compiles without CLI11.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "carousel/cli/run_config.hpp"

namespace carousel::cli {

// The options every sampling command shares (the chain's in its Config: tiles, iterations,
// burn-in, eval-every, checkpoint-every, seed), declared once in AddChainOptions, and the
// record of the run's options that a fresh run writes as config.toml.
struct RunBasics {
  explicit RunBasics(std::string default_out = "") : out(std::move(default_out)) {}
  std::string out;
  std::string resume;
  std::string schedule = "default";  // cyclic, or what the model prefers (ResolveSchedule)
  bool quiet = false;
  bool overwrite = false;  // a fresh run may replace another run's files in --out
  // Also checkpoint after this much wall time (0: never). On by default, so that a crash
  // or a kill hours into a run loses at most this much of it. A checkpoint of 25M ratings
  // at K = 32 costs well under 1% of 15 minutes (bench/run_checkpoint_cost.sh).
  double checkpoint_minutes = 15.0;
  bool burn_in_given = false;
  bool eval_every_given = false;
  bool thin_given = false;
  int chains = 1;
  bool auto_iterations = false;      // --iterations auto
  std::uint64_t max_iterations = 0;  // its cap; 0: 32 x --iterations
  std::int64_t split_seed = -1;      // < 0: --seed
  // The run's options: those given, and every option with its value, from
  // ResolveChainOptions on; the command adds the values it resolves itself
  // (RunConfig::Resolve, RunConfig::Record) before WriteRunConfig.
  RunConfig run_config;
};

}  // namespace carousel::cli
