#include "carousel/cli/chain_driver.hpp"

#include <algorithm>
#include <chrono>
#include <numeric>

#include "carousel/driver/progress.hpp"
#include "carousel/driver/signals.hpp"
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
  const bool needs_random =
      info && !info->memory_option.empty() && std::gcd(sampler.memory, tiles) != 1;
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

void WriteRunConfig(Communicator& comm, const std::string& command, const RunBasics& basics) {
  if (!basics.resume.empty()) return;
  RunCollectively(comm, [&] {
    if (comm.rank() != 0) return;
    io::EnsureDirectory(basics.out);
    io::WriteFileAtomically(basics.out + "/" + driver::kRunConfigFile,
                            basics.run_config.Toml(command));
  });
}

}  // namespace carousel::cli
