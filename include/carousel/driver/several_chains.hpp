// --chains C (issue #13): C independent chains of one model command in one job.
//
// Chain 1 runs with --seed, chain c > 1 with ChainSeed(seed, c), and every chain with the
// run's --split-seed (by default --seed), so chain c of a C-chain run is bitwise the
// single-chain run with that seed, the run's --split-seed and the same --tiles. The chains
// share the held-out split and the tile grid: they sample one posterior, so that their
// disagreement (R-hat) measures mixing, not the stochastic-gradient bias of their own grids. Chain
// c writes the outputs of a single run to OUT/chain-c/, and OUT/draws/chain-c.csv links to its
// draws, so `carousel summary OUT` finds them. OUT/chains.txt lists the chains and their seeds.
//
// Every chain runs on the tiles the same command without --chains would: --tiles, or by
// default the ranks that command would get (the launcher's, or ThreadRanks), so that chain 1
// is that run bitwise. With P ranks, the job splits into G groups of P/G ranks, G the largest
// divisor of P not above C; group g runs chains g + 1, g + 1 + G, ... one after another. So
// 4 chains run concurrently on 4 or 8 ranks, two at a time on 2 ranks, one after another on
// 1. Without a launcher, ThreadRanks starts as many ranks as let the chains finish soonest.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "carousel/comm/communicator.hpp"
#include "carousel/driver/model_command.hpp"
#include "carousel/driver/option_list.hpp"

namespace carousel::driver {

// The seed of chain c (from 1): `seed` for chain 1, a keyed hash of (seed, c) for the others.
std::uint64_t ChainSeed(std::uint64_t seed, int chain);

// How many groups of ranks run chains concurrently (see the header).
int ChainGroups(int ranks, int chains);

struct SeveralChains {
  std::string command;  // "mf"
  int chains = 1;
  std::string out;
  std::uint64_t seed = 1;
  std::uint64_t split_seed = 1;  // every chain's (ChainOptions::split_seed)
  // --iterations auto (RunSeveralChains): rounds from `iterations` to at most max_iterations.
  bool auto_iterations = false;
  std::uint64_t iterations = 0, max_iterations = 0;
  OptionList given;          // the run's options, as parsed
  ModelCommandFn run;        // the single-chain command
  bool tiles_given = false;  // else each chain gets the tiles of the run without --chains
};

// Runs the chains (collective over `world`) of a command of `commands`, the binary's model
// commands; returns the exit code of the job: 0, or the code of the lowest-numbered chain
// that failed.
int RunSeveralChains(Communicator& world, const SeveralChains& run,
                     const std::vector<ModelCommand>& commands);

// Whether `dir` holds a run of several chains (its chains.txt).
bool IsSeveralChainsRun(const std::string& dir);

// `--resume DIR` of a several-chain run, `given` the options given with it: goes on with
// each chain (`run`), a chain with no checkpoint yet starting afresh; chains.txt is read with
// the parser of the command of `commands` it names. Returns the job's exit code.
int ResumeSeveralChains(Communicator& world, const std::string& dir, const OptionList& given,
                        ModelCommandFn run, const std::vector<ModelCommand>& commands);

}  // namespace carousel::driver
