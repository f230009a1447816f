// Pieces every sampling subcommand (`carousel mf`, `carousel lda`) shares: option
// validators, the command line kept in checkpoints for --resume, and the per-rank
// statistics printed in the closing summary.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "carousel/comm/communicator.hpp"

namespace carousel::cli {

// Numeric option checks whose messages read well ("must be a positive finite number").
CLI::Validator Positive();
CLI::Validator NonNegative();

// Parses `args` into `app`; turns --help into HelpRequested and parse errors into a usage
// Error prefixed with `command` ("carousel mf").
void ParseOrThrow(CLI::App& app, const std::vector<std::string>& args, const std::string& command);

std::string JoinArgs(const std::vector<std::string>& args);
// The command line as stored verbatim in checkpoints ('\0'-separated) and back.
std::string PackArgs(const std::vector<std::string>& args);
std::vector<std::string> UnpackArgs(const std::string& packed);

// The arguments of the run being resumed: the stored ones, with --out pointing at
// `resume_dir` and an --iterations given now (in `given`) replacing the stored one.
std::vector<std::string> ResumedArgs(const std::vector<std::string>& stored,
                                     const std::string& resume_dir,
                                     const std::vector<std::string>& given);

std::string CheckpointDir(const std::string& out);

// The payload of the newest checkpoint of the run whose --out is `resume_dir`. Throws
// CheckpointError if there is none or it fails its checks.
std::string ReadLatestCheckpoint(const std::string& resume_dir);

// For a run stopped by SIGTERM: rank 0 says where the checkpoint is; returns exit code 7.
int StoppedBySignal(int rank, std::uint64_t iteration, const std::string& out);

struct RankStats {
  double comm_share = 0.0;  // of the wall time of the sampling loop
  double peak_rss_kib = 0.0;
  std::uint64_t items_held = 0;  // training ratings or tokens in this rank's tiles
};

// Every rank's statistics, on every rank (collective).
std::vector<RankStats> GatherRankStats(Communicator& comm, double comm_share,
                                       std::uint64_t items_held);

// Prints one line per rank: communication share, peak memory and `items` held.
void PrintRankStats(const std::vector<RankStats>& stats, const char* items);

}  // namespace carousel::cli
