#include "carousel/driver/several_chains.hpp"

#include <cstdio>
#include <filesystem>

#include "carousel/analysis/chain_summary.hpp"
#include "carousel/analysis/run_layout.hpp"
#include "carousel/comm/collective.hpp"
#include "carousel/driver/error_text.hpp"
#include "carousel/driver/resume.hpp"
#include "carousel/driver/run_summary.hpp"
#include "carousel/driver/thread_ranks.hpp"
#include "carousel/io/atomic_file.hpp"
#include "carousel/io/checkpoint_file.hpp"
#include "carousel/io/run_model_json.hpp"
#include "carousel/util/error.hpp"
#include "carousel/util/keyed_rng.hpp"

namespace carousel::driver {
namespace fs = std::filesystem;
using analysis::ChainDir;
using analysis::kChainsManifest;
using Manifest = analysis::ChainsManifest;
namespace {

// `options` without those of the flags in `flags`.
OptionList Without(OptionList options, std::initializer_list<const char*> flags) {
  for (const char* flag : flags) options.Remove(flag);
  return options;
}

// Chain c's options when it starts afresh: the run's own, with its seed and --out.
OptionList FreshChainOptions(const OptionList& given, const std::string& out, std::uint64_t seed,
                             int chain) {
  OptionList own = Without(given, {"--chains", "--seed", "--out", "--resume"});
  own.Set("--chains", "1");
  own.Set("--seed", std::to_string(ChainSeed(seed, chain)));
  own.Set("--out", ChainDir(out, chain));
  return own;
}

// The options the chains manifest `m` of the run in `dir` stores, as the model command's
// parser reads them.
OptionList ManifestOptions(const Manifest& m, const std::string& dir,
                           const std::vector<ModelCommand>& commands) {
  const ModelCommand* model = FindModelCommand(commands, m.command);
  if (model == nullptr)
    throw CheckpointError(dir + "/" + kChainsManifest,
                          "names no model command: '" + m.command + "'");
  return model->given(m.args);
}

// OUT/chains.txt, with each chain's seed.
void WriteManifest(const std::string& out, Manifest m) {
  m.chain_seeds.clear();
  for (int c = 1; c <= m.chains; ++c) m.chain_seeds.push_back(ChainSeed(m.seed, c));
  analysis::WriteChainsManifest(out, m);
}

// OUT/draws/chain-c.csv -> ../chain-c/draws/chain-1.csv, for the chains that wrote one.
void LinkDraws(const std::string& out, int chains) {
  io::EnsureDirectory(out + "/draws");
  for (int c = 1; c <= chains; ++c) {
    const fs::path target = fs::path("..") / ("chain-" + std::to_string(c)) / "draws/chain-1.csv";
    const fs::path link = fs::path(out) / "draws" / ("chain-" + std::to_string(c) + ".csv");
    std::error_code ec;
    if (!fs::exists(fs::path(ChainDir(out, c)) / "draws/chain-1.csv", ec)) continue;
    fs::remove(link, ec);
    fs::create_symlink(target, link, ec);
    if (ec) throw OutputError(link.string(), "cannot link the chain's draws: " + ec.message());
  }
}

// Runs `chains` (1-based numbers) one after another on `group`: `args_of(c)` is chain c's
// command line. Returns 0, or chain * 256 + exit code of the first chain that failed.
template <class ArgsOf>
int RunChainsOnGroup(Communicator& world, Communicator& group, const std::vector<int>& chains,
                     ModelCommandFn run, const ArgsOf& args_of) {
  for (const int c : chains) {
    int code = 0;
    try {
      code = run(group, args_of(c));
    } catch (const Error& e) {
      if (!e.quiet())
        std::fprintf(stderr, "carousel: error: chain %d: %s\n", c, ErrorText(e).c_str());
      std::fflush(stderr);
      // One rank alone saw it: its group may wait in a collective, so end the job.
      if (!e.collective() && group.size() > 1) world.Abort(static_cast<int>(e.code()));
      code = static_cast<int>(e.code());
    }
    if (code != 0) return c * 256 + code;  // a stopped or failed group starts no more chains
  }
  return 0;
}

// Rank 0, once every chain has finished: where the outputs are, and the diagnostics of the
// draws, ending with whether the chains mixed.
void PrintFinished(const std::string& out, int chains, int groups) {
  std::printf(
      "carousel: %d chains finished (%d at a time); outputs in %s/chain-*/, draws in "
      "%s/draws/ (carousel summary %s):\n",
      chains, groups, out.c_str(), out.c_str(), out.c_str());
  std::fflush(stdout);
  try {
    PrintRunSummary({out}, 0, "");
  } catch (const Error& e) {
    std::fprintf(stderr, "carousel: warning: no summary of the chains: %s\n", ErrorText(e).c_str());
  }
}

// Runs the chains, `args_of(c)` chain c's command line, and links their draws; with
// `summarize`, rank 0 then prints carousel summary OUT. Returns the job's exit code.
int Run(Communicator& world, const std::string& command, const std::string& out, int chains,
        const std::function<std::vector<std::string>(int)>& args_of, ModelCommandFn run,
        bool summarize = true) {
  const int groups = ChainGroups(world.size(), chains);
  const int per_group = world.size() / groups;
  const int group_id = world.rank() / per_group;
  std::unique_ptr<Communicator> group = world.Split(group_id);
  std::vector<int> mine;
  for (int c = group_id + 1; c <= chains; c += groups) mine.push_back(c);
  const int result = RunChainsOnGroup(world, *group, mine, run, args_of);

  // The job's code: that of the lowest-numbered chain that did not finish.
  int first = 0;
  for (const int r : world.AllGatherInt(result))
    if (r != 0 && (first == 0 || r < first)) first = r;
  RunCollectively(world, [&] {
    if (world.rank() == 0) LinkDraws(out, chains);
  });
  if (world.rank() == 0 && first == 0 && summarize) PrintFinished(out, chains, groups);
  if (world.rank() == 0 && first % 256 == static_cast<int>(ExitCode::kInterrupted))
    std::fprintf(stderr, "carousel: continue every chain with: carousel %s --resume %s\n",
                 command.c_str(), out.c_str());
  return first % 256;
}

// The tiles of the run without --chains: one per rank, of the launcher's ranks, or of those
// the command would start as threads (ThreadRanks).
int TilesWithoutChains(const Communicator& world, const SeveralChains& run,
                       const std::vector<ModelCommand>& commands) {
  if (RunsUnderMpi()) return world.size();
  const ModelCommand* model = FindModelCommand(commands, run.command);
  const OptionList without_chains = Without(run.given, {"--chains"});
  return ThreadRanks(&without_chains, model != nullptr && model->threads_within_rank);
}

}  // namespace

std::uint64_t ChainSeed(std::uint64_t seed, int chain) {
  if (chain <= 1) return seed;
  // 53 bits, so that the seed reads back exactly in any tool that parses numbers as doubles.
  return KeyedStream(seed, Purpose::kChainSeed, static_cast<std::uint64_t>(chain), 0).bits() >> 11;
}

int ChainGroups(int ranks, int chains) {
  int groups = 1;
  for (int g = 1; g <= std::min(ranks, chains); ++g)
    if (ranks % g == 0) groups = g;
  return groups;
}

// Chain c's command line when a job goes on (a --resume of it, a round of --iterations
// auto): from its newest checkpoint, or, if it wrote none, afresh as the job started it
// (`started`, with --overwrite for whatever it wrote before), then the options `given` now,
// which replace the started ones of their names.
std::vector<std::string> ContinuedChainArgs(const OptionList& started, const std::string& out,
                                            std::uint64_t seed, int c, const OptionList& given) {
  OptionList chain;
  if (!io::CheckpointsNewestFirst(CheckpointDir(ChainDir(out, c))).empty()) {
    chain.Set("--resume", ChainDir(out, c));
  } else {
    chain = FreshChainOptions(started, out, seed, c);
    for (const OptionList::Option& o : given.options()) chain.Remove(o.flag);
    chain.Set("--overwrite", std::nullopt);
  }
  chain.Append(given);
  return chain.Args();
}

// Chain c's command line in a round of --iterations auto that runs the chains to `n`
// iterations, ending with a checkpoint to go on from. `given`: options given to a --resume
// of the job.
std::vector<std::string> RoundArgs(const Manifest& m, const OptionList& started,
                                   const std::string& out, int c, std::uint64_t n,
                                   OptionList given) {
  given.Set("--iterations", std::to_string(n));
  given.Set("--checkpoint-every", std::to_string(n));
  return ContinuedChainArgs(started, out, m.seed, c, given);
}

// --iterations auto: rounds of the chains, each twice as long as the one before (they go on
// from their checkpoints, so a round adds iterations), until carousel summary's checks pass
// or the chains reach max_iterations; then the summary. Returns the job's exit code.
int RunRounds(Communicator& world, Manifest m, const OptionList& started, const std::string& out,
              ModelCommandFn run, const OptionList& given = {}) {
  for (;;) {
    const std::uint64_t n = m.round_iterations;
    const int code = Run(
        world, m.command, out, m.chains,
        [&](int c) { return RoundArgs(m, started, out, c, n, given); }, run,
        /*summarize=*/false);
    if (code != 0) return code;
    int failing = 0;
    RunCollectively(world, [&] {
      if (world.rank() == 0) failing = static_cast<int>(analysis::VariablesFailingChecks(out));
    });
    failing = world.AllGatherInt(failing).front();
    if (failing == 0 || n >= m.max_iterations) {
      if (world.rank() == 0) {
        if (failing > 0)
          std::fprintf(stderr,
                       "carousel: --iterations auto: the chains reached --max-iterations %llu "
                       "with %d variable(s) failing carousel summary's checks\n",
                       static_cast<unsigned long long>(m.max_iterations), failing);
        PrintFinished(out, m.chains, ChainGroups(world.size(), m.chains));
      }
      return 0;
    }
    m.round_iterations = std::min(2 * n, m.max_iterations);
    RunCollectively(world, [&] {
      if (world.rank() != 0) return;
      WriteManifest(out, m);
      std::fprintf(stderr,
                   "carousel: --iterations auto: after %llu iterations %d variable(s) fail "
                   "carousel summary's checks; the chains go on to %llu\n",
                   static_cast<unsigned long long>(n), failing,
                   static_cast<unsigned long long>(m.round_iterations));
    });
  }
}

int RunSeveralChains(Communicator& world, const SeveralChains& run,
                     const std::vector<ModelCommand>& commands) {
  // Every chain divides the data as the run does (ChainOptions::split_seed): the chains
  // sample the posterior of one training set, on one tile grid.
  OptionList given = Without(run.given, {"--split-seed"});
  given.Set("--split-seed", std::to_string(run.split_seed));
  if (!run.tiles_given)
    given.Set("--tiles", std::to_string(TilesWithoutChains(world, run, commands)));
  Manifest manifest{run.command, run.chains, run.seed, given.Args(), 0, 0, {}};
  const OptionList rounds_started =
      Without(given, {"--iterations", "--max-iterations", "--checkpoint-every"});
  if (run.auto_iterations) {  // each round gives the chains their length
    manifest.args = rounds_started.Args();
    manifest.round_iterations = run.iterations;
    manifest.max_iterations = run.max_iterations;
  }
  RunCollectively(world, [&] {
    if (world.rank() == 0) {
      io::EnsureDirectory(run.out);
      WriteManifest(run.out, manifest);
    }
  });
  if (run.auto_iterations) return RunRounds(world, manifest, rounds_started, run.out, run.run);
  return Run(
      world, run.command, run.out, run.chains,
      [&](int c) { return FreshChainOptions(given, run.out, run.seed, c).Args(); }, run.run);
}

bool IsSeveralChainsRun(const std::string& dir) {
  std::error_code ec;
  return fs::exists(fs::path(dir) / kChainsManifest, ec);
}

int ResumeSeveralChains(Communicator& world, const std::string& dir, const OptionList& given,
                        ModelCommandFn run, const std::vector<ModelCommand>& commands) {
  Manifest manifest;
  OptionList started;
  RunCollectively(world, [&] {
    manifest = analysis::ReadChainsManifest(dir);
    started = ManifestOptions(manifest, dir, commands);
  });
  // The options given now (--iterations, ...), for every chain.
  const OptionList now = Without(given, {"--resume"});
  if (manifest.round_iterations > 0)  // --iterations auto: the rounds decide the length
    return RunRounds(world, manifest, started, dir, run,
                     Without(now, {"--iterations", "--checkpoint-every"}));
  return Run(
      world, manifest.command, dir, manifest.chains,
      [&](int c) { return ContinuedChainArgs(started, dir, manifest.seed, c, now); }, run);
}

}  // namespace carousel::driver
