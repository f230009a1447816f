#include "carousel/cli/command_support.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>

#include "carousel/cli/commands.hpp"
#include "carousel/comm/collective.hpp"
#include "carousel/driver/resume.hpp"
#include "carousel/driver/signals.hpp"
#include "carousel/io/checkpoint_file.hpp"
#include "carousel/io/corpus_reader.hpp"
#include "carousel/util/closest_name.hpp"
#include "carousel/util/error.hpp"
#include "carousel/version.hpp"

namespace carousel::cli {

CLI::Validator Positive() {
  return CLI::Validator(
      [](std::string& v) {
        double x = 0;
        return CLI::detail::lexical_cast(v, x) && x > 0 && std::isfinite(x)
                   ? std::string()
                   : "'" + v + "' must be a positive finite number";
      },
      "> 0");
}

CLI::Validator NonNegative() {
  return CLI::Validator(
      [](std::string& v) {
        double x = 0;
        return CLI::detail::lexical_cast(v, x) && x >= 0 && std::isfinite(x)
                   ? std::string()
                   : "'" + v + "' must be a non-negative number";
      },
      ">= 0");
}

CLI::Validator NonEmpty() {
  return CLI::Validator(
      [](std::string& v) { return v.empty() ? std::string("must not be empty") : std::string(); },
      "not empty");
}

namespace {

// A bound as a user would write it: whole numbers in full, others with 6 digits.
std::string BoundText(double x) {
  char text[40];
  if (x == std::floor(x) && std::abs(x) < 1e15)
    std::snprintf(text, sizeof text, "%.0f", x);
  else
    std::snprintf(text, sizeof text, "%g", x);
  return text;
}

// --help without CLI11's type noise: "--rank INT (default 10)", and what the validators
// check ("in [1, 4096]") at the end of the description, as the sampler options give it.
class PlainHelp : public CLI::Formatter {
 public:
  std::string make_option_opts(const CLI::Option* opt) const override {
    if (!opt->get_option_text().empty()) return " " + opt->get_option_text();
    if (opt->get_type_size() == 0) return "";
    std::string out;
    const std::string type = TypeOf(*opt);
    if (!type.empty()) out += " " + type;
    if (opt->get_expected_max() == CLI::detail::expected_max_vector_size) out += " ...";
    if (!opt->get_default_str().empty()) out += " (default " + opt->get_default_str() + ")";
    if (opt->get_required()) out += " (required)";
    return out;
  }
  std::string make_option_desc(const CLI::Option* opt) const override {
    const std::string checks = ChecksOf(*opt);
    return opt->get_description() + (checks.empty() ? "" : " (" + checks + ")");
  }

 private:
  // CLI11 joins the type and its validators' descriptions: "INT:INT in [1 - 4096]". A set
  // of values takes the type's place ("--schedule {default,cyclic,random}", as argparse
  // writes it, and as launch/carousel-completion.bash reads it).
  static std::string TypeOf(const CLI::Option& opt) {
    const std::string checks = ChecksText(opt);
    if (!checks.empty() && checks.front() == '{') return checks;
    const std::string name = opt.get_type_name();
    return name.substr(0, name.find(':'));
  }
  static std::string ChecksOf(const CLI::Option& opt) {
    const std::string checks = ChecksText(opt);
    return !checks.empty() && checks.front() == '{' ? "" : checks;
  }
  static std::string ChecksText(const CLI::Option& opt) {
    const std::string name = opt.get_type_name();
    const std::size_t colon = name.find(':');
    return colon == std::string::npos ? "" : name.substr(colon + 1);
  }
};

}  // namespace

CLI::Validator Within(double lo, double hi) {
  const std::string range = "[" + BoundText(lo) + ", " + BoundText(hi) + "]";
  // An upper bound of 2^40 or more only guards against overflow: help shows the lower one
  // alone, an error the whole range.
  constexpr double kNoPracticalLimit = 1099511627776.0;
  const std::string shown = hi >= kNoPracticalLimit ? "at least " + BoundText(lo) : "in " + range;
  return CLI::Validator(
      [lo, hi, range](std::string& v) {
        double x = 0;
        return CLI::detail::lexical_cast(v, x) && x >= lo && x <= hi
                   ? std::string()
                   : "'" + v + "' is not a number in " + range;
      },
      shown);
}

void SetUpCommandApp(CLI::App& app) {
  app.set_help_flag("-h,--help", "print this help and exit");
  app.option_defaults()->always_capture_default();
  app.formatter(std::make_shared<PlainHelp>());
}

namespace {

// "unknown option --iteratons; did you mean --iterations?" for the first of the words that
// `app`'s parse did not take (CLI::App::remaining) that looks like an option, or "".
std::string SuggestOption(const CLI::App& app, const std::vector<std::string>& untaken) {
  std::vector<std::string> known;
  for (const CLI::Option* o : app.get_options())
    for (const std::string& name : o->get_lnames()) known.push_back("--" + name);
  for (const std::string& word : untaken) {
    if (word.rfind("--", 0) != 0) continue;
    const std::string name = word.substr(0, word.find('='));
    if (std::find(known.begin(), known.end(), name) != known.end()) continue;
    const auto closest = ClosestName(name, known);
    return "unknown option " + name + (closest ? "; did you mean " + *closest + "?" : "");
  }
  return "";
}

}  // namespace

void ParseOrThrow(CLI::App& app, const std::vector<std::string>& args, const std::string& command) {
  std::vector<std::string> reversed(args.rbegin(), args.rend());
  try {
    app.parse(reversed);
    if (const std::optional<std::string> twice = DuplicateConfigKey(app))
      throw Error(ExitCode::kUsage, command + ": " + *twice);
  } catch (const CLI::CallForHelp&) {
    throw HelpRequested{app.help()};
  } catch (const CLI::ParseError& e) {
    // A key given twice on adjacent lines makes CLI11 fail with its own words.
    if (const std::optional<std::string> twice = DuplicateConfigKey(app))
      throw Error(ExitCode::kUsage, command + ": " + *twice);
    if (const std::optional<std::string> problem = ConfigFileProblem(app, e))
      throw Error(ExitCode::kUsage, command + ": " + *problem);
    const std::string suggestion = SuggestOption(app, app.remaining());
    throw Error(ExitCode::kUsage, command + ": " + (suggestion.empty() ? e.what() : suggestion));
  }
}

std::string JoinArgs(const std::vector<std::string>& args) {
  std::string s;
  for (const auto& a : args) s += (s.empty() ? "" : " ") + a;
  return s;
}

StratumSchedule::Kind ResolveSchedule(RunBasics& basics) {
  if (basics.schedule == "default") {
    basics.schedule = "cyclic";
    basics.run_config.Resolve("--schedule", basics.schedule, "the default");
  }
  return basics.schedule == "random" ? StratumSchedule::Kind::kRandom
                                     : StratumSchedule::Kind::kCyclic;
}

void AddTopicRunInputs(CLI::App& app, TopicRunInputs& o, const std::string& model,
                       const std::string& corpus_help, const std::string& vocab_help) {
  app.add_option(
         "--run", o.run,
         "the --out directory of a finished carousel " + model + " run (of one chain or several)")
      ->required()
      ->check(NonEmpty());
  app.add_option("--corpus", o.corpus, corpus_help)->required()->check(NonEmpty());
  app.add_option("--vocab", o.vocab, vocab_help);
  app.add_option("--corpus-format", o.format, "auto|uci|ldac");
  app.add_option("--out", o.out,
                 "topic proportions, D x K float64 .npy (C x D x K for a run of C chains)")
      ->check(NonEmpty());
}

std::vector<std::pair<std::string, std::string>> RunHeadLines(const std::string& command,
                                                              const std::vector<std::string>& args,
                                                              int ranks, int tiles) {
  return {{"carousel", kVersion},
          {"command", "carousel " + command + " " + JoinArgs(args)},
          {"ranks", std::to_string(ranks)},
          {"tiles", std::to_string(tiles)}};
}

io::RunModelJson RunDescription(const std::string& model, const std::string& sampler,
                                const ChainOptions& chain) {
  io::RunModelJson m;
  m.model = model;
  m.version = kVersion;
  m.sampler = sampler;
  m.seed = chain.seed;
  m.tiles = chain.tiles;
  m.iterations = chain.iterations;
  m.burn_in = chain.burn_in;
  m.thin = chain.thin;
  return m;
}

io::LoadedCorpus LoadCommandCorpus(Communicator& comm, const std::string& path,
                                   const std::string& vocab, const std::string& format, int tiles,
                                   std::uint64_t seed, int topics) {
  io::CorpusInput input;
  input.path = path;
  input.vocab = vocab;
  RunCollectively(comm, [&] { input.format = io::ParseCorpusFormat(format); });
  input.tiles = tiles;
  input.seed = seed;
  input.topics = topics;
  return io::LoadCorpus(comm, input);
}

void AddChainOptions(CLI::App& app, ChainOptions& c, RunBasics& o) {
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
      ->configurable(false);  // a file must not continue another run (StartModelCommand)
  app.add_flag("--overwrite", o.overwrite,
               "a fresh run may replace the outputs and checkpoints of another run in --out");
  app.add_flag("--quiet", o.quiet, "no progress lines");
  AddConfigFileOption(app);
}

void ResolveChainOptions(CLI::App& app, ChainOptions& c, RunBasics& o) {
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

}  // namespace carousel::cli
