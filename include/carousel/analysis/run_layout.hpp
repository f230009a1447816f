// Where a run keeps what later commands read (doc/outputs.md): a run of one chain is its
// --out; a run of several (--chains C) writes OUT/chains.txt, chain c's outputs in
// OUT/chain-c/, and links OUT/draws/chain-c.csv to each chain's draws.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace carousel::analysis {

// The manifest of a run of several chains, in its --out.
inline constexpr const char* kChainsManifest = "chains.txt";

// What the manifest records: the command and its chains, the run's seed and command line,
// and for --iterations auto the chains' iterations in the round now run (0: a run of fixed
// --iterations, whose args hold them) and the most they may reach.
struct ChainsManifest {
  std::string command;
  int chains = 0;
  std::uint64_t seed = 0;
  std::vector<std::string> args;
  std::uint64_t round_iterations = 0, max_iterations = 0;
  std::vector<std::uint64_t> chain_seeds;  // chain c's at c - 1; written for the reader
};

// OUT/chains.txt, written atomically; an argument holding a line break is a SettingError of
// "chains".
void WriteChainsManifest(const std::string& out, const ChainsManifest& m);

// OUT/chains.txt as written (chain_seeds left empty); a CheckpointError naming the file and
// line when it cannot be read.
ChainsManifest ReadChainsManifest(const std::string& out);

// Chain c's (from 1) output directory in the --out of a run of several chains.
std::string ChainDir(const std::string& out, int chain);

// The output directory of the chain whose draws file is `draws_file` (DIR/draws/chain-1.csv
// of a single run, or OUT/draws/chain-c.csv, a link into OUT/chain-c/draws/), where its
// trace.csv and predictions.csv are; nothing when the file cannot be resolved.
std::optional<std::string> ChainDirOfDraws(const std::string& draws_file);

// The run directories of a finished run's --out: OUT itself for a run of one chain, or
// OUT/chain-1 ... OUT/chain-C for a run of several (OUT/chains.txt), for the commands that
// read a run (carousel predict, carousel lda infer) and pool its chains.
std::vector<std::string> ChainDirectories(const std::string& run);

// The draws files that `inputs` name, one per chain: a directory's DIR/draws/chain-<n>.csv
// (or DIR/chain-<n>.csv when DIR is the draws directory itself) by chain number, and files
// as they are.
std::vector<std::string> ChainDrawsFiles(const std::vector<std::string>& inputs);

}  // namespace carousel::analysis
