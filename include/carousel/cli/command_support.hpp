// Pieces every sampling subcommand (`carousel mf`, `carousel lda`) shares: option
// validators, the command line kept in checkpoints for --resume, and the per-rank
// statistics printed in the closing summary.
#pragma once

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "carousel/cli/config_file.hpp"
#include "carousel/cli/run_basics.hpp"
#include "carousel/cli/run_config.hpp"
#include "carousel/comm/collective.hpp"
#include "carousel/comm/communicator.hpp"
#include "carousel/engine/rank_statistics.hpp"
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

// Declares the options every sampling command shares: the chain's (a config's `chain`) and
// the others in RunBasics (cli/run_basics.hpp).
void AddChainOptions(CLI::App& app, ChainOptions& c, RunBasics& o);

// A burn-in not given on the command line of a fresh run: `passes` passes over the data
// (BurnInOfPasses), recorded for config.toml and with the options the checkpoints store
// (RunConfig::Record), so that a resume, which parses them before it knows the tiles,
// keeps it.
inline void ResolveBurnInOfPasses(std::uint64_t passes, int tiles, std::uint64_t iterations,
                                  std::uint64_t& burn_in, RunBasics& basics,
                                  RunFraction most = kHalfTheRun,
                                  RunFraction least = kNoneOfTheRun) {
  burn_in = BurnInOfPasses(passes, tiles, iterations, most, least);
  const std::string floor =
      least.numerator > 0 ? std::string(", at least ") + least.words + " and" : std::string(",");
  basics.run_config.Record("--burn-in", std::to_string(burn_in),
                           "the default: " + std::to_string(passes) + " x --tiles" + floor +
                               " at most " + most.words + " of --iterations");
}

// An --eval-every not given on the command line of a fresh run: `passes` passes over the
// data, passes x tiles iterations (an iteration samples one stratum, 1/tiles of the data),
// or more whole passes where that is fewer than `at_least` iterations (EvalEveryOfPasses);
// with it --thin where that was not given either. Recorded like the burn-in
// (ResolveBurnInOfPasses), so that a resume keeps it; --thin then follows it as it does
// any --eval-every.
inline void ResolveEvalEveryOfPasses(std::uint64_t passes, std::uint64_t at_least, int tiles,
                                     std::uint64_t& eval_every, std::uint64_t& thin,
                                     RunBasics& basics) {
  eval_every = EvalEveryOfPasses(passes, tiles, at_least);
  const std::string value = std::to_string(eval_every);
  std::string rule = std::to_string(passes) + " x --tiles";
  if (at_least > 0)
    rule = "the fewest whole passes (--tiles iterations each" +
           (passes > 1 ? ", at least " + std::to_string(passes) : std::string()) +
           ") that make at least " + std::to_string(at_least) + " iterations";
  basics.run_config.Record("--eval-every", value, "the default: " + rule);
  if (!basics.thin_given) {
    thin = eval_every;
    basics.run_config.Resolve("--thin", value, "the default, --eval-every");
  }
}

// After parsing, before the command changes any option's variable: records every option
// for config.toml (RunBasics::run_config). A burn-in that was not given is at most half the
// iterations (so a short run needs no --burn-in); one that was given must be smaller than
// --iterations. --thin not given is --eval-every, so that by default every evaluation after
// burn-in keeps a draw.
void ResolveChainOptions(CLI::App& app, ChainOptions& c, RunBasics& o);

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

// model.json's members every model shares (io::RunModelJson), from the chain's options.
io::RunModelJson RunDescription(const std::string& model, const std::string& sampler,
                                const ChainOptions& chain);

}  // namespace carousel::cli
