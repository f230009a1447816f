// The skeleton every model command shares (DESIGN.md section 7): the command line or the
// one stored in the checkpoint being resumed, the default tiles, and the run of the engine
// with progress lines, signal requests, the trace kept current and checkpoints written.
// A model command adds its options, its data, its model and its outputs.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "carousel/cli/command_support.hpp"
#include "carousel/comm/collective.hpp"
#include "carousel/comm/communicator.hpp"
#include "carousel/engine/tile_engine.hpp"
#include "carousel/io/atomic_file.hpp"

namespace carousel::cli {

// Parses `args` into `options` with `parse`; with --resume DIR, parses the command line
// stored in DIR's newest checkpoint instead (ResumedArgs) and returns that checkpoint's
// payload (empty for a fresh run). Collective: one message for the job on a bad option.
template <class Options, class Parse>
std::string ParseOrResume(Communicator& comm, const std::vector<std::string>& args,
                          Options& options, Parse parse) {
  RunCollectively(comm, [&] { options = parse(args); });
  std::string payload;
  if (options.basics.resume.empty()) return payload;
  RunCollectively(comm, [&] {
    payload = ReadLatestCheckpoint(options.basics.resume);
    const auto stored = UnpackArgs(TileEngine::CheckpointExtra(payload));
    options = parse(ResumedArgs(stored, options.basics.resume, args));
  });
  return payload;
}

// --tiles not given (0): one tile per rank. RankLayout checks that it divides.
inline void ResolveTiles(const Communicator& comm, int& tiles) {
  if (tiles <= 0) tiles = comm.size();
}

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

// What the driver asks of a model command while the chain runs; all on rank 0.
struct ChainHooks {
  std::function<void()> write_trace;          // writes the trace file as it stands
  std::function<double()> last_eval_seconds;  // the newest trace row's seconds
  std::function<std::string()> eval_status;   // progress text after an evaluation
};

struct ChainOutcome {
  bool finished = false;    // false: stopped by a signal after writing a checkpoint
  double comm_share = 0.0;  // of this rank's wall time in the sampling loop
};

// Runs `engine` to its last iteration (collective). The trace is rewritten at most every
// 5 seconds of sampling and at every checkpoint; checkpoints keep `argv` for --resume.
ChainOutcome RunChain(Communicator& comm, TileEngine& engine, const RunBasics& basics,
                      std::uint64_t iterations, const std::vector<std::string>& argv,
                      const ChainHooks& hooks);

}  // namespace carousel::cli
