// --resume: which options may change when a run goes on, what a checkpoint keeps of its
// run, and the command line a resumed run is parsed from.
//
// A resumed run is the run that was started, continued: the same data, model, sampler,
// seed, tile grid and burn-in. Only how far it goes and how it reports may change.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "carousel/driver/option_list.hpp"

namespace carousel::driver {

// Throws UsageError naming the first option of `given` (the options a --resume command line
// gave) that a resumed run may not change. Allowed: --resume, --iterations,
// --checkpoint-every, --checkpoint-minutes, --eval-every, --quiet. --config is refused too:
// the checkpoint holds the run's options (those of a config file the run started with
// among them, as given options), and a file could change them.
void CheckOptionsAllowedOnResume(const OptionList& given);

// What a checkpoint keeps of its run: the command ("mf", "lda") and its options as a command
// line (cli/run_config.hpp, RunConfig::CheckpointArgs; earlier versions kept the command line
// as given).
// Stored '\0'-separated as "carousel <command>", then the arguments.
struct RunRecord {
  std::string command;  // empty in checkpoints of versions that did not store it
  std::vector<std::string> args;

  std::string Pack() const;
  static RunRecord Unpack(const std::string& packed);
};

// The command line of the resumed run: the `stored` options (the checkpoint's, parsed)
// without --out, --resume, --tiles, --burn-in and the options `given` now, then --tiles
// `tiles` (the checkpoint's grid, at any rank count now), --burn-in `burn_in` (as the run
// resolved it at its start, so that a new --iterations does not move it), --out `dir`, the
// options `given` now, and --resume `dir`.
std::vector<std::string> ResumedArgs(const OptionList& stored, const std::string& dir, int tiles,
                                     std::uint64_t burn_in, const OptionList& given);

std::string CheckpointDir(const std::string& out);

// The payload of the newest intact checkpoint of the run whose --out is `dir`. A damaged
// newest file (truncated, failing its checksum) is passed over for the one before it, with
// a warning on stderr when `warn`. Throws CheckpointError when there is none or none is
// intact (naming the newest one's problem).
std::string ReadNewestIntactCheckpoint(const std::string& dir, bool warn);

}  // namespace carousel::driver
