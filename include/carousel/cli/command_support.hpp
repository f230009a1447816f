// Pieces every sampling subcommand (`carousel mf`, `carousel lda`) shares: option
// validators, the command line kept in checkpoints for --resume, and the per-rank
// statistics printed in the closing summary.
#pragma once

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "carousel/cli/config_file.hpp"
#include "carousel/cli/run_basics.hpp"
#include "carousel/cli/run_config.hpp"
#include "carousel/cli/sampling_time.hpp"
#include "carousel/comm/collective.hpp"
#include "carousel/comm/communicator.hpp"
#include "carousel/io/corpus_loader.hpp"
#include "carousel/io/run_model_json.hpp"
#include "carousel/model/tile_model.hpp"
#include "carousel/util/error.hpp"

namespace carousel::cli {

// Numeric option checks whose messages read well ("must be a positive finite number").
// Validators whose messages and --help read as a user writes: "'0' is not a number in
// [1, 4096]" (CLI::Range's would say "not in range 1.000000 to 4096.000000").
CLI::Validator Within(double lo, double hi);
CLI::Validator Positive();
CLI::Validator NonNegative();
CLI::Validator NonEmpty();  // for paths: "" would otherwise fail later, without the option's name

// Sets up a command's parser: -h/--help, and --help showing every option's default.
void SetUpCommandApp(CLI::App& app);

// Parses `args` into `app`; turns --help into HelpRequested and parse errors into a usage
// Error prefixed with `command` ("carousel mf"), with "did you mean --x?" for a misspelt
// option, and the file and key for a bad key in a --config file (ConfigFileProblem).
void ParseOrThrow(CLI::App& app, const std::vector<std::string>& args, const std::string& command);

// --max-iterations by default: this many times the default --iterations. The rounds of
// --iterations auto end at 1, 2, 4 and 8 times it: ml-100k u1 and u3's mf chains pass at 8
// (8,000 iterations, 7.5 times a fixed-length run's time on u1), and a default run of
// several chains costs at most 8 times a fixed-length one.
inline constexpr std::uint64_t kAutoIterationsCap = 8;

// Declares the options every sampling command shares: the chain's in its Config and the
// others in RunBasics (cli/run_basics.hpp).
template <class Config>
void AddChainOptions(CLI::App& app, Config& c, RunBasics& o) {
  app.add_option("--tiles", c.tiles, "tiles per side B (a multiple of the number of ranks)")
      ->check(Within(1, 4096))
      ->default_str("number of ranks");
  app.add_option("--schedule", o.schedule, "cyclic|random stratum order")
      ->check(CLI::IsMember({"default", "cyclic", "random"}))
      ->default_str("cyclic (random where the sampler needs it)");
  // "auto" stands for the default number, and marks the run as one that goes on until its
  // chains mix (several_chains.hpp).
  const std::string default_iterations = std::to_string(c.iterations);
  app.add_option("--iterations", c.iterations,
                 "iterations (one stratum each); auto (the default with --chains): run "
                 "the chains until carousel summary's checks pass, doubling from the "
                 "default up to --max-iterations")
      ->transform(CLI::Validator(
          [&o, default_iterations](std::string& value) {
            if (value == "auto") {
              o.auto_iterations = true;
              value = default_iterations;
            }
            return std::string();
          },
          ""))
      ->type_name("UINT|auto")
      ->check(Within(std::uint64_t{1}, std::uint64_t{1} << 40));
  app.add_option("--max-iterations", o.max_iterations,
                 "with --iterations auto: at most this many iterations per chain")
      ->check(Within(std::uint64_t{1}, std::uint64_t{1} << 40))
      ->default_str(std::to_string(kAutoIterationsCap) + " x the default --iterations");
  app.add_option("--burn-in", c.burn_in,
                 "iterations before samples enter the posterior averages (default: " +
                     std::to_string(c.burn_in) + ", at most half of --iterations)");
  app.add_option("--eval-every", c.eval_every, "evaluate (test metrics, trace row) every N")
      ->check(Within(std::uint64_t{1}, std::uint64_t{1} << 40));
  app.add_option("--thin", c.thin,
                 "after burn-in keep a draw (posterior averages, draws/) every N iterations")
      ->check(Within(std::uint64_t{1}, std::uint64_t{1} << 40))
      ->default_str("--eval-every");
  app.add_option("--chains", o.chains,
                 "independent chains, seeds derived from --seed (chain 1 uses --seed); "
                 "concurrently on groups of ranks, or one after another")
      ->check(Within(1, 1024));
  app.add_option("--seed", c.seed, "seed of the chain's random choices")->check(NonNegative());
  app.add_option("--split-seed", o.split_seed,
                 "seed of how the data is divided: the tile grid and the held-out split (the "
                 "chains of a --chains run share the run's)")
      ->check(NonNegative())
      ->default_str("--seed");
  app.add_option("--out", o.out, "output directory")->check(NonEmpty());
  app.add_option("--checkpoint-every", c.checkpoint_every,
                 "checkpoint every N iterations (0: only every --checkpoint-minutes and on "
                 "SIGINT, SIGTERM, SIGUSR1 or SIGUSR2)")
      ->check(NonNegative());
  app.add_option("--checkpoint-minutes", o.checkpoint_minutes,
                 "also checkpoint after every M minutes of wall time (0: never)")
      ->check(NonNegative());
  app.add_option("--resume", o.resume,
                 "continue the run whose --out is DIR (only --iterations, --checkpoint-every, "
                 "--checkpoint-minutes, --eval-every and --quiet may be given with it)")
      ->configurable(false);  // decided before parsing (ParseOrResume), from the command line
  app.add_flag("--overwrite", o.overwrite,
               "a fresh run may replace the outputs and checkpoints of another run in --out");
  app.add_flag("--quiet", o.quiet, "no progress lines");
  AddConfigFileOption(app);
}

// A burn-in not given on the command line of a fresh run: `passes` passes over the data
// (BurnInOfPasses), recorded for config.toml and appended to the command line that the
// checkpoints store, so that a resume, which parses that line before it knows the tiles,
// keeps it.
inline void ResolveBurnInOfPasses(std::uint64_t passes, int tiles, std::uint64_t iterations,
                                  std::uint64_t& burn_in, RunBasics& basics,
                                  std::vector<std::string>& recorded_args,
                                  RunFraction most = kHalfTheRun,
                                  RunFraction least = kNoneOfTheRun) {
  burn_in = BurnInOfPasses(passes, tiles, iterations, most, least);
  const std::string floor =
      least.numerator > 0 ? std::string(", at least ") + least.words + " and" : std::string(",");
  basics.run_config.Resolve("--burn-in", std::to_string(burn_in),
                            "the default: " + std::to_string(passes) + " x --tiles" + floor +
                                " at most " + most.words + " of --iterations");
  recorded_args.insert(recorded_args.end(), {"--burn-in", std::to_string(burn_in)});
}

// An --eval-every not given on the command line of a fresh run: `passes` passes over the
// data, passes x tiles iterations (an iteration samples one stratum, 1/tiles of the data),
// and with it --thin where that was not given either. Recorded like the burn-in
// (ResolveBurnInOfPasses), so that a resume keeps it; --thin then follows it as it does
// any --eval-every.
inline void ResolveEvalEveryOfPasses(std::uint64_t passes, int tiles, std::uint64_t& eval_every,
                                     std::uint64_t& thin, RunBasics& basics,
                                     std::vector<std::string>& recorded_args) {
  eval_every = passes * static_cast<std::uint64_t>(tiles);
  const std::string value = std::to_string(eval_every);
  basics.run_config.Resolve("--eval-every", value,
                            "the default: " + std::to_string(passes) + " x --tiles");
  if (!basics.thin_given) {
    thin = eval_every;
    basics.run_config.Resolve("--thin", value, "the default, --eval-every");
  }
  recorded_args.insert(recorded_args.end(), {"--eval-every", value});
}

// After parsing, before the command changes any option's variable: records every option
// for config.toml (RunBasics::run_config). A burn-in that was not given is at most half the
// iterations (so a short run needs no --burn-in); one that was given must be smaller than
// --iterations. --thin not given is --eval-every, so that by default every evaluation after
// burn-in keeps a draw.
template <class Config>
void ResolveChainOptions(CLI::App& app, Config& c, RunBasics& o) {
  o.run_config = RunConfig(app);
  o.burn_in_given = app.count("--burn-in") > 0;
  o.eval_every_given = app.count("--eval-every") > 0;
  o.thin_given = app.count("--thin") > 0;
  if (!o.burn_in_given) {
    c.burn_in = std::min(c.burn_in, c.iterations / 2);
    o.run_config.Resolve("--burn-in", std::to_string(c.burn_in),
                         "the default, at most half of --iterations");
  }
  c.split_seed = o.split_seed >= 0 ? static_cast<std::uint64_t>(o.split_seed) : c.seed;
  if (o.split_seed < 0)
    o.run_config.Resolve("--split-seed", std::to_string(c.split_seed), "--seed");
  if (c.thin == 0) {
    c.thin = c.eval_every;
    o.run_config.Resolve("--thin", std::to_string(c.thin), "the default, --eval-every");
  }
  if (o.auto_iterations && o.chains < 2)
    throw UsageError("--iterations",
                     "auto needs --chains 2 or more: it runs the chains until "
                     "they agree (R-hat) and have enough effective draws");
  // Several chains are run to be diagnosed, so by default they run until the diagnostics
  // pass (issue #42): a fixed default length left every model's 4 chains unmixed
  // (doc/outputs.md, "Running until the chains mix").
  if (o.chains >= 2 && app.count("--iterations") == 0 && o.resume.empty()) {
    o.auto_iterations = true;
    o.run_config.Resolve("--iterations", "auto", "the default with --chains");
  }
  if (o.max_iterations == 0) {
    o.max_iterations = kAutoIterationsCap * c.iterations;
    o.run_config.Resolve("--max-iterations", std::to_string(o.max_iterations),
                         "the default, " + std::to_string(kAutoIterationsCap) + " x --iterations");
  }
  if (o.auto_iterations && o.max_iterations < c.iterations)
    throw UsageError("--max-iterations",
                     "must be at least --iterations (" + std::to_string(c.iterations) + ")");
  if (c.burn_in >= c.iterations && !o.resume.empty())
    throw UsageError("--iterations", "must be larger than the resumed run's burn-in, " +
                                         std::to_string(c.burn_in) + " (fixed when it started)");
  if (c.burn_in >= c.iterations)
    throw UsageError("--burn-in",
                     "must be smaller than --iterations (" + std::to_string(c.iterations) + ")");
}

std::string JoinArgs(const std::vector<std::string>& args);

// --schedule of a model whose samplers need no particular stratum order (lda, sam, dpmix):
// cyclic unless given, recorded for config.toml. (mf and amf: ResolveFactorSchedule.)
StratumSchedule::Kind ResolveSchedule(RunBasics& basics);

// What a command that reads a finished topic-model run and new documents takes (carousel lda
// infer, carousel sam infer): --run and --corpus (required), --vocab, --corpus-format, --out.
struct TopicRunInputs {
  std::string run, corpus, vocab;
  std::string format = "auto";
  std::string out;
};
void AddTopicRunInputs(CLI::App& app, TopicRunInputs& o, const std::string& model,
                       const std::string& corpus_help, const std::string& vocab_help);

// A one-process tool (`command`, e.g. "carousel lda infer") started on `comm`: every rank
// parses `args` with `parse`, and more than one rank is refused, with one usage error for
// the whole job.
template <class Parse>
auto ParseOnOneProcess(Communicator& comm, const std::string& command, Parse parse,
                       const std::vector<std::string>& args) {
  decltype(parse(args)) options;
  RunCollectively(comm, [&] {
    options = parse(args);
    if (comm.size() > 1)
      throw Error(ExitCode::kUsage, command + " runs on one process, not " +
                                        std::to_string(comm.size()) +
                                        ": start it without mpirun (or with -np 1)");
  });
  return options;
}

// The lines every model run's configuration starts with: carousel's version, the command line
// (`carousel <command>` and `args`), the ranks and the tiles.
std::vector<std::pair<std::string, std::string>> RunHeadLines(const std::string& command,
                                                              const std::vector<std::string>& args,
                                                              int ranks, int tiles);

// This rank's share of the corpus a topic-model command reads (--corpus, --vocab,
// --corpus-format; io/corpus_loader.hpp) on the tile grid of `tiles` blocks keyed by `seed`;
// `topics` (0: unknown) sizes the topic-word table that the corpus limits count. Collective.
io::LoadedCorpus LoadCommandCorpus(Communicator& comm, const std::string& path,
                                   const std::string& vocab, const std::string& format, int tiles,
                                   std::uint64_t seed, int topics = 0);

// For a run stopped by a signal (SIGTERM, SIGINT, SIGUSR2): rank 0 says where the checkpoint
// is and how to continue `carousel command`; returns exit code 7.
int StoppedBySignal(int rank, std::uint64_t iteration, const std::string& command,
                    const std::string& out);

// How this rank read its input: wall time of the whole collective load, the time and bytes
// of parsing its own part, and the peak memory when the load was done.
struct LoadStats {
  double seconds = 0.0;
  double parse_seconds = 0.0;
  double parsed_bytes = 0.0;
  double peak_rss_kib = 0.0;
};

// Peak resident memory of this process so far (VmHWM), in KiB.
// model.json's members every model shares (io::RunModelJson), from the chain's options.
io::RunModelJson RunDescription(const std::string& model, const std::string& sampler,
                                const ChainOptions& chain);

double PeakRssKib();

// The statistics of a load that began at `start` and has just ended.
LoadStats FinishedLoad(std::chrono::steady_clock::time_point start, double parse_seconds,
                       std::uint64_t parsed_bytes);

struct RankStats {
  SamplingTime sampling;
  double peak_rss_kib = 0.0;
  std::uint64_t items_held = 0;  // training ratings or tokens in this rank's tiles
  LoadStats load;
  ModelFootprint footprint;
};

// Every rank's statistics, on every rank (collective).
std::vector<RankStats> GatherRankStats(Communicator& comm, const SamplingTime& sampling,
                                       std::uint64_t items_held, const LoadStats& load,
                                       const ModelFootprint& footprint);

// Prints two lines per rank: communication share, peak memory and `items` held; the load
// (time, parse rate, peak memory then) and the bytes of data and state the model holds.
void PrintRankStats(const std::vector<RankStats>& stats, const char* items);

}  // namespace carousel::cli
