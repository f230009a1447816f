// A chain of the engine as every model command runs it (DESIGN.md section 7): the model and
// its engine started together, and the run of the engine with progress lines, signal
// requests, the trace kept current and checkpoints written.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "carousel/comm/collective.hpp"
#include "carousel/comm/communicator.hpp"
#include "carousel/driver/resume.hpp"
#include "carousel/engine/rank_statistics.hpp"
#include "carousel/engine/tile_engine.hpp"
#include "carousel/io/atomic_file.hpp"
#include "carousel/model/draws_table.hpp"

namespace carousel::driver {

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

// How a chain runs, of the options every run has.
struct ChainRunOptions {
  std::string out;                  // --out, whose checkpoints/ the checkpoints go to
  bool quiet = false;               // no progress lines
  double checkpoint_minutes = 0.0;  // also checkpoint after this much wall time (0: never)
  std::uint64_t iterations = 0;     // the last iteration
};

// Runs `engine` to its last iteration (collective). The trace is rewritten at most every
// 5 seconds of sampling and at every checkpoint; checkpoints keep `record` for --resume.
// A checkpoint is also written every --checkpoint-minutes of wall time (rank 0's clock).
ChainOutcome RunChain(Communicator& comm, TileEngine& engine, const ChainRunOptions& options,
                      const RunRecord& record, const ChainHooks& hooks);

}  // namespace carousel::driver
