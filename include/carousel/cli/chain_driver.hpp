// The skeleton every model command shares (DESIGN.md section 7): the command line or the
// one stored in the checkpoint being resumed, the default tiles, and the run of the engine
// with progress lines, signal requests, the trace kept current and checkpoints written.
// A model command adds its options, its data, its model and its outputs.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "carousel/cli/config_file.hpp"
#include "carousel/cli/output_directory.hpp"
#include "carousel/cli/resume.hpp"
#include "carousel/cli/run_basics.hpp"
#include "carousel/cli/run_config.hpp"
#include "carousel/cli/several_chains.hpp"
#include "carousel/comm/collective.hpp"
#include "carousel/comm/communicator.hpp"
#include "carousel/engine/rank_statistics.hpp"
#include "carousel/engine/tile_engine.hpp"
#include "carousel/io/atomic_file.hpp"
#include "carousel/model/draws_table.hpp"
#include "carousel/sampler/sampler.hpp"

namespace carousel::cli {

// --resume DIR of one chain, whose command line gave `given_now`: parses into `options` the
// options stored in DIR's newest intact checkpoint with the few that may change
// (ResumedArgs), and returns that checkpoint's payload.
template <class Options, class Parse>
std::string ResumeChain(const std::string& command, const std::string& dir, bool warn,
                        const OptionList& given_now, Options& options, Parse parse) {
  std::string payload = ReadNewestIntactCheckpoint(dir, warn);
  const TileEngine::CheckpointSummary saved = TileEngine::ReadCheckpointSummary(payload);
  const RunRecord stored = RunRecord::Unpack(saved.extra);
  if (!stored.command.empty() && stored.command != command)
    throw CheckpointError(CheckpointDir(dir), "holds a run of carousel " + stored.command +
                                                  ", not carousel " + command +
                                                  "; continue it with carousel " + stored.command +
                                                  " --resume " + dir);
  const Options started = parse(stored.args);  // the burn-in as the run resolved it
  options = parse(ResumedArgs(started.basics.run_config.given(), dir, saved.tiles,
                              started.config.chain.burn_in, given_now));
  if (options.config.chain.iterations < saved.iteration)
    throw UsageError("--iterations", "is " + std::to_string(options.config.chain.iterations) +
                                         ", but the run's newest checkpoint is at iteration " +
                                         std::to_string(saved.iteration));
  return payload;
}

// The start every model command shares: the command line is parsed into `options` with
// `parse`, and --out readied for a fresh run (PrepareFreshOutput). With --resume DIR, a run
// of several chains goes on with its chains, and one chain is parsed from its checkpoint
// instead (ResumeChain, the payload into `resume_payload`). Then --chains C > 1 runs C
// chains of `run`. Returns the job's exit code when that finished the command, nothing when
// the command goes on with one chain. Collective: one message for the job on a bad option
// or checkpoint.
template <class Options, class Parse>
std::optional<int> StartModelCommand(Communicator& comm, const std::string& command,
                                     const std::vector<std::string>& args, ModelCommandFn run,
                                     Options& options, Parse parse, std::string& resume_payload) {
  bool several_chains = false;
  RunCollectively(comm, [&] {
    options = parse(args);
    if (options.basics.resume.empty()) {
      if (comm.rank() == 0) PrepareFreshOutput(options.basics.out, options.basics.overwrite);
      return;
    }
    CheckOptionsAllowedOnResume(options.basics.run_config.given());
    several_chains = IsSeveralChainsRun(options.basics.resume);
    if (!several_chains)
      resume_payload = ResumeChain(command, options.basics.resume, comm.rank() == 0,
                                   OptionList(options.basics.run_config.given()), options, parse);
  });
  if (several_chains)
    return ResumeSeveralChains(comm, options.basics.resume, options.basics.run_config.given(), run);
  if (options.basics.chains > 1)
    return RunSeveralChains(
        comm, {command, options.basics.chains, options.basics.out, options.config.chain.seed,
               options.config.chain.split_seed, options.basics.auto_iterations,
               options.config.chain.iterations, options.basics.max_iterations,
               options.basics.run_config.given(), run, options.config.chain.tiles > 0});
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

// A model and the engine that runs it.
template <class Model>
struct Chain {
  std::unique_ptr<Model> model;
  std::unique_ptr<TileEngine> engine;
};

// Builds the model with `make()`, the engine over it (attaching the model), runs `check`
// on the attached model, restores `resume_payload` when there is one, and creates the
// output directory on rank 0. Collective: one message for the job on an error.
template <class Model, class Make>
Chain<Model> StartChain(
    Communicator& comm, Make make, const ChainOptions& options, const std::string& resume_payload,
    const std::string& out, const std::function<void(const Model&)>& check = [](const Model&) {}) {
  Chain<Model> chain;
  RunCollectively(comm, [&] {
    chain.model = make();
    chain.engine = std::make_unique<TileEngine>(comm, *chain.model, options);
    check(*chain.model);
    if (!resume_payload.empty()) chain.engine->Restore(resume_payload);
    if (comm.rank() == 0) io::EnsureDirectory(out);
  });
  return chain;
}

// A chain's kept draws go to OUT/draws/chain-1.csv (a run of several chains links each
// chain's file into its own draws/ as chain-c.csv: several_chains.hpp). Rank 0.
struct DrawsOutput {
  std::string out;       // the chain's --out
  std::string command;   // "carousel mf"
  ChainOptions chain;    // burn-in, thin and seed for the CmdStan header
  std::string comments;  // the run's configuration block
  void Write(const DrawsTable& draws) const;
};

// What the driver asks of a model command while the chain runs; all on rank 0.
struct ChainHooks {
  std::function<void()> write_trace;          // writes the trace file as it stands
  std::function<double()> last_eval_seconds;  // the newest trace row's seconds
  std::function<std::string()> eval_status;   // progress text after an evaluation
};

struct ChainOutcome {
  bool finished = false;  // false: stopped by a signal after writing a checkpoint
  SamplingTime sampling;  // this rank's sampling loop
};

// Runs `engine` to its last iteration (collective). The trace is rewritten at most every
// 5 seconds of sampling and at every checkpoint; checkpoints keep `record` for --resume.
// A checkpoint is also written every --checkpoint-minutes of wall time (rank 0's clock).
ChainOutcome RunChain(Communicator& comm, TileEngine& engine, const RunBasics& basics,
                      std::uint64_t iterations, const RunRecord& record, const ChainHooks& hooks);

}  // namespace carousel::cli
