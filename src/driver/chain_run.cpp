#include "carousel/driver/chain_run.hpp"

#include <chrono>

#include "carousel/driver/progress.hpp"
#include "carousel/driver/signals.hpp"
#include "carousel/io/checkpoint_file.hpp"
#include "carousel/io/draws_writer.hpp"
#include "carousel/util/malloc_policy.hpp"

namespace carousel::driver {

void DrawsOutput::Write(const DrawsTable& draws) const {
  io::EnsureDirectory(out + "/draws");
  io::DrawsHeader header;
  header.command = command;
  header.burn_in = chain.burn_in;
  header.thin = chain.thin;
  header.seed = chain.seed;
  header.comments = comments;
  io::WriteDraws(out + "/draws/chain-1.csv", header, draws.columns(), draws.values());
}

ChainOutcome RunChain(Communicator& comm, TileEngine& engine, const ChainRunOptions& options,
                      const RunRecord& record, const ChainHooks& hooks) {
  Progress progress(engine.iteration(), options.iterations, comm.rank() == 0 && !options.quiet);
  double last_trace_write = -1e9;
  using Clock = std::chrono::steady_clock;
  auto last_checkpoint = Clock::now();
  const bool timed = comm.rank() == 0 && options.checkpoint_minutes > 0;
  EngineCallbacks callbacks;
  callbacks.requests = [&] {  // the engine agrees on every rank's requests
    int requests = TakeSignalRequests();
    if (timed && Clock::now() - last_checkpoint >=
                     std::chrono::duration<double>(60.0 * options.checkpoint_minutes))
      requests |= kRequestCheckpoint;
    return requests;
  };
  callbacks.checkpoint_extra = record.Pack();
  callbacks.on_iteration = [&](std::uint64_t t, double s) { progress.OnIteration(t, s); };
  callbacks.on_eval = [&] {
    progress.OnEval(hooks.eval_status());
    const double seconds = hooks.last_eval_seconds();
    if (seconds - last_trace_write > 5.0) {  // keep the file current without rewriting it
      const io::SnapshotWrites snapshot;     // at every evaluation; written durably at the end
      hooks.write_trace();
      last_trace_write = seconds;
    }
  };
  callbacks.on_checkpoint = [&](std::uint64_t t, const std::string& payload) {
    hooks.write_trace();
    io::WriteCheckpoint(CheckpointDir(options.out), t, payload);
    last_checkpoint = Clock::now();
  };

  const double comm_before = comm.seconds_communicating();
  const auto start = std::chrono::steady_clock::now();
  ChainOutcome outcome;
  {
    const ReuseFreedBlocks reuse_freed_blocks;  // no page-fault churn per iteration
    outcome.finished = engine.Run(callbacks);
  }
  // The trace and draws as they stand at the end, whatever the 5-second cadence skipped.
  if (comm.rank() == 0) hooks.write_trace();
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  outcome.sampling.wall = wall;
  outcome.sampling.communicating = comm.seconds_communicating() - comm_before;
  outcome.sampling.phases = engine.phase_seconds();
  progress.Finish();
  return outcome;
}

}  // namespace carousel::driver
