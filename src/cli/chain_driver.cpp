#include "carousel/cli/chain_driver.hpp"

#include <algorithm>
#include <chrono>
#include <numeric>

#include "carousel/cli/progress.hpp"
#include "carousel/cli/signals.hpp"
#include "carousel/io/checkpoint_file.hpp"
#include "carousel/io/draws_writer.hpp"
#include "carousel/sampler/registry.hpp"
#include "carousel/util/malloc_policy.hpp"

namespace carousel::cli {

StratumSchedule::Kind ResolveFactorSchedule(Communicator& comm, RunBasics& basics,
                                            const SamplerOptions& sampler, int tiles) {
  // A sampler that remembers past iterates (SamplerInfo::memory_option) needs random strata
  // when its memory and the tile count share a divisor.
  const SamplerInfo* info = SamplerNamed(sampler.name);
  const bool needs_random = info && !info->memory_option.empty() &&
                            std::gcd(sampler.memory, tiles) != 1;
  if (basics.schedule == "default") {
    basics.schedule = needs_random ? "random" : "cyclic";
    basics.run_config.Resolve("--schedule", basics.schedule,
                              needs_random ? sampler.name + "'s, as " + info->memory_option +
                                                 " and --tiles share a divisor"
                                           : "the default");
  }
  const StratumSchedule::Kind kind =
      basics.schedule == "random" ? StratumSchedule::Kind::kRandom : StratumSchedule::Kind::kCyclic;
  RunCollectively(comm, [&] {  // every rank sees the same options: one message for the job
    if (needs_random && kind == StratumSchedule::Kind::kCyclic)
      throw UsageError("--schedule", sampler.name + " with cyclic strata needs " +
                                         info->memory_option + " and --tiles (" +
                                         std::to_string(tiles) +
                                         ") without a common divisor; use --schedule random");
  });
  return kind;
}

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

void WriteRunConfig(Communicator& comm, const std::string& command, const RunBasics& basics) {
  if (!basics.resume.empty()) return;
  RunCollectively(comm, [&] {
    if (comm.rank() != 0) return;
    io::EnsureDirectory(basics.out);
    io::WriteFileAtomically(basics.out + "/" + kRunConfigFile, basics.run_config.Toml(command));
  });
}

ChainOutcome RunChain(Communicator& comm, TileEngine& engine, const RunBasics& basics,
                      std::uint64_t iterations, const RunRecord& record, const ChainHooks& hooks) {
  Progress progress(engine.iteration(), iterations, comm.rank() == 0 && !basics.quiet);
  double last_trace_write = -1e9;
  using Clock = std::chrono::steady_clock;
  auto last_checkpoint = Clock::now();
  const bool timed = comm.rank() == 0 && basics.checkpoint_minutes > 0;
  EngineCallbacks callbacks;
  callbacks.requests = [&] {  // the engine agrees on every rank's requests
    int requests = TakeSignalRequests();
    if (timed && Clock::now() - last_checkpoint >=
                     std::chrono::duration<double>(60.0 * basics.checkpoint_minutes))
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
    io::WriteCheckpoint(CheckpointDir(basics.out), t, payload);
    last_checkpoint = Clock::now();
  };

  const double comm_before = comm.seconds_communicating();
  const auto start = std::chrono::steady_clock::now();
  ChainOutcome outcome;
  {
    const SamplingMallocPolicy reuse_freed_blocks;  // no page-fault churn per iteration
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

}  // namespace carousel::cli
