// The start every model command shares (DESIGN.md section 7): the command line or the one
// stored in the checkpoint being resumed, several chains, the default tiles and schedule,
// and config.toml. The chain then runs through driver/chain_run.hpp. A model command adds
// its options, its data, its model and its outputs.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "carousel/cli/config_file.hpp"
#include "carousel/cli/model_registry.hpp"
#include "carousel/cli/run_basics.hpp"
#include "carousel/cli/run_config.hpp"
#include "carousel/comm/collective.hpp"
#include "carousel/comm/communicator.hpp"
#include "carousel/driver/output_directory.hpp"
#include "carousel/driver/resume.hpp"
#include "carousel/driver/several_chains.hpp"
#include "carousel/engine/rank_statistics.hpp"
#include "carousel/engine/tile_engine.hpp"
#include "carousel/io/atomic_file.hpp"
#include "carousel/model/draws_table.hpp"
#include "carousel/sampler/sampler.hpp"

namespace carousel::cli {

// --resume DIR of one chain, whose command line gave `given_now`: parses into `options` the
// options stored in DIR's newest intact checkpoint with the few that may change
// (driver::ResumedArgs), and returns that checkpoint's payload.
template <class Options, class Parse>
std::string ResumeChain(const std::string& command, const std::string& dir, bool warn,
                        const OptionList& given_now, Options& options, Parse parse) {
  std::string payload = driver::ReadNewestIntactCheckpoint(dir, warn);
  const TileEngine::CheckpointSummary saved = TileEngine::ReadCheckpointSummary(payload);
  const driver::RunRecord stored = driver::RunRecord::Unpack(saved.extra);
  if (!stored.command.empty() && stored.command != command)
    throw CheckpointError(driver::CheckpointDir(dir), "holds a run of carousel " + stored.command +
                                                          ", not carousel " + command +
                                                          "; continue it with carousel " +
                                                          stored.command + " --resume " + dir);
  const Options started = parse(stored.args);  // the burn-in as the run resolved it
  options = parse(driver::ResumedArgs(started.basics.run_config.given(), dir, saved.tiles,
                                      started.config.chain.burn_in, given_now));
  if (options.config.chain.iterations < saved.iteration)
    throw UsageError("--iterations", "is " + std::to_string(options.config.chain.iterations) +
                                         ", but the run's newest checkpoint is at iteration " +
                                         std::to_string(saved.iteration));
  return payload;
}

// The start every model command shares: the command line is parsed into `options` with
// `parse`, and --out readied for a fresh run (driver::PrepareFreshOutput). With --resume DIR, a run
// of several chains goes on with its chains, and one chain is parsed from its checkpoint
// instead (ResumeChain, the payload into `resume_payload`). Then --chains C > 1 runs C
// chains of `run`. Returns the job's exit code when that finished the command, nothing when
// the command goes on with one chain. Collective: one message for the job on a bad option
// or checkpoint.
template <class Options, class Parse>
std::optional<int> StartModelCommand(Communicator& comm, const std::string& command,
                                     const std::vector<std::string>& args,
                                     driver::ModelCommandFn run, Options& options, Parse parse,
                                     std::string& resume_payload) {
  bool several_chains = false;
  RunCollectively(comm, [&] {
    options = parse(args);
    if (options.basics.resume.empty()) {
      if (comm.rank() == 0)
        driver::PrepareFreshOutput(options.basics.out, options.basics.overwrite);
      return;
    }
    driver::CheckOptionsAllowedOnResume(options.basics.run_config.given());
    several_chains = driver::IsSeveralChainsRun(options.basics.resume);
    if (!several_chains)
      resume_payload = ResumeChain(command, options.basics.resume, comm.rank() == 0,
                                   OptionList(options.basics.run_config.given()), options, parse);
  });
  if (several_chains)
    return driver::ResumeSeveralChains(comm, options.basics.resume,
                                       options.basics.run_config.given(), run, ModelCommands());
  if (options.basics.chains > 1)
    return driver::RunSeveralChains(
        comm,
        {command, options.basics.chains, options.basics.out, options.config.chain.seed,
         options.config.chain.split_seed, options.basics.auto_iterations,
         options.config.chain.iterations, options.basics.max_iterations,
         options.basics.run_config.given(), run, options.config.chain.tiles > 0},
        ModelCommands());
  return std::nullopt;
}

// --schedule of a factor model (mf, amf), collective. HAMCMC's sub-chain j moves at
// iterations t = j mod M; in cyclic order it would only ever see the strata j, j + M, .. mod
// B, i.e. part of the data, unless gcd(M, B) = 1. By default it then draws strata at random
// (the paper's choice, Sec. 4.3), so that hamcmc runs at its defaults on any rank count; an
// explicit --schedule cyclic is refused. Otherwise the default is cyclic.
StratumSchedule::Kind ResolveFactorSchedule(Communicator& comm, RunBasics& basics,
                                            const SamplerOptions& sampler, int tiles);

// --tiles not given (0): one tile per rank, recorded for config.toml. RankLayout checks
// that it divides.
inline void ResolveTiles(const Communicator& comm, int& tiles, RunBasics& basics) {
  if (tiles > 0) return;
  tiles = comm.size();
  basics.run_config.Resolve("--tiles", std::to_string(tiles), "one tile per rank");
}

// A fresh run's config.toml (run_config.hpp) into --out, on rank 0, once the command has
// resolved its options; a resumed run keeps the one its start wrote. Collective: one message
// for the job when it cannot be written.
void WriteRunConfig(Communicator& comm, const std::string& command, const RunBasics& basics);

}  // namespace carousel::cli
