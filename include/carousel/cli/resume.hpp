// --resume: which options may change when a run goes on, what a checkpoint keeps of its
// run, and the command line a resumed run is parsed from.
//
// A resumed run is the run that was started, continued: the same data, model, sampler,
// seed, tile grid and burn-in. Only how far it goes and how it reports may change.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace carousel::cli {

// The directory given with --resume in `args` ("--resume DIR" or "--resume=DIR"), if any.
std::optional<std::string> ResumeDirectory(const std::vector<std::string>& args);

// Throws UsageError naming the first option in `args` that a resumed run may not change.
// Allowed: --resume, --iterations, --checkpoint-every, --checkpoint-minutes, --eval-every,
// --quiet, --help. --config is refused too: the checkpoint's command line is the run's
// options (it holds those of a config file the run started with, SelfContainedArgs).
void CheckOptionsAllowedOnResume(const std::vector<std::string>& args);

// What a checkpoint keeps of its run: the command ("mf", "lda") and its command line.
// Stored '\0'-separated as "carousel <command>", then the arguments.
struct RunRecord {
  std::string command;  // empty in checkpoints of versions that did not store it
  std::vector<std::string> args;

  std::string Pack() const;
  static RunRecord Unpack(const std::string& packed);
};

// The command line of the resumed run: the stored one without --out, --resume, --tiles,
// --burn-in and the options given now, then --tiles `tiles` (the checkpoint's grid, at any
// rank count now), --burn-in `burn_in` (as the run resolved it at its start, so that a new
// --iterations does not move it), --resume and --out `dir`, and the options in `given`.
std::vector<std::string> ResumedArgs(const RunRecord& stored, const std::string& dir, int tiles,
                                     std::uint64_t burn_in, const std::vector<std::string>& given);

std::string CheckpointDir(const std::string& out);

// The payload of the newest intact checkpoint of the run whose --out is `dir`. A damaged
// newest file (truncated, failing its checksum) is passed over for the one before it, with
// a warning on stderr when `warn`. Throws CheckpointError when there is none or none is
// intact (naming the newest one's problem).
std::string ReadNewestIntactCheckpoint(const std::string& dir, bool warn);

}  // namespace carousel::cli
