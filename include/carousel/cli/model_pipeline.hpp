// The one pipeline every model command runs (DESIGN.md section 7):
// RunModelCommand<Spec> runs a model's spec (model/model_spec.hpp) through these steps, Spec
// being the spec itself or the model's command adapter, which derives from its spec and adds
// what needs the command line's types (the options `o` are CommandOptions<Spec::ModelOptions>):
//
//   Resolve(app, o)                after parsing: the model's checks and the defaults that
//                                  follow from the options alone
//   ResolveWithTiles(comm, o, s)   defaults that follow from --tiles, before the data is read
//   Load(comm, o, s) -> Data       the rank's share of the data, and the defaults that follow
//                                  from it; Data has parse_seconds and parsed_bytes
//   RunInstead(comm, o, d)         a command that is not a chain of the engine (mf's gibbs)
//   Started(comm, o, d, model)     what the model needs once it runs (sample sinks)
//   Finish(comm, o, d, model, end) the outputs; returns the closing lines (rank 0's), which
//                                  the pipeline prints before the per-rank statistics
//
// in this order: parse (the spec's options, then the chain's, then Resolve), the tiles,
// ResolveWithTiles, the default burn-in and --eval-every (the spec's kPasses), Load,
// RunInstead, Make and Check, Started, Note, the chain (WriteTrace, Draws, Status), the
// per-rank statistics (kItemsHeld), Finish.
#pragma once

#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "carousel/cli/chain_driver.hpp"
#include "carousel/cli/command_support.hpp"
#include "carousel/cli/config_file.hpp"
#include "carousel/cli/declared_options.hpp"
#include "carousel/comm/communicator.hpp"
#include "carousel/driver/chain_run.hpp"
#include "carousel/driver/signals.hpp"
#include "carousel/engine/tile_engine.hpp"
#include "carousel/io/text_output.hpp"
#include "carousel/model/model_spec.hpp"
#include "carousel/util/malloc_policy.hpp"

namespace carousel::cli {

// A model command's options: the model's own (its folder's <Model>Options, with its config)
// and those every run has.
template <class ModelOptions>
struct CommandOptions : ModelOptions {
  RunBasics basics;
};

// The options of the model command of `Spec`.
template <class Spec>
using OptionsOf = CommandOptions<typename Spec::ModelOptions>;

// Whether the run starts afresh while it resolves defaults from the tiles or the data.
struct RunStart {
  bool fresh = true;  // false: resumed from a checkpoint, whose options are complete
};

// What a spec's Finish gets once the chain has run to its last iteration.
struct RunEnd {
  const std::string& comments;          // the run's configuration block
  const driver::ChainOutcome& outcome;  // this rank's sampling loop
  const LoadStats& load;                // this rank's load
  const TileEngine& engine;             // iterations and seconds running
};

// Parses `args` into `app`, which holds the options of the model command of `Spec`: the
// model's, then the chain's.
template <class Spec>
void ParseModelOptions(CLI::App& app, OptionsOf<Spec>& o, const std::vector<std::string>& args) {
  SetUpCommandApp(app);
  OptionDeclarer declare(app);
  Spec::Declare(declare, o);
  AddChainOptions(app, o.config.chain, o.basics);
  Spec::ShowChainDefaults(declare);
  if constexpr (Spec::kPasses.eval_every_at_least > 0) {
    static_assert(Spec::kPasses.eval_every_passes == 1, "the help below counts single passes");
    const std::string n = std::to_string(Spec::kPasses.eval_every_at_least);
    declare.Show("--eval-every", "the fewest whole passes over the data that make at least " + n +
                                     " iterations: --tiles x ceil(" + n + " / --tiles)");
  }
  ParseOrThrow(app, args, std::string("carousel ") + Spec::kName);
}

// Parses a model command's line: its options, then the model's checks and the defaults that
// follow from the options alone. A bad option that a --config file set names the file.
template <class Spec>
OptionsOf<Spec> ParseModelCommand(const std::vector<std::string>& args) {
  OptionsOf<Spec> o;
  o.basics.out = Spec::kDefaultOut;
  CLI::App app{Spec::kDescription, std::string("carousel ") + Spec::kName};
  try {
    ParseModelOptions<Spec>(app, o, args);
    ResolveChainOptions(app, o.config.chain, o.basics);
    Spec::Resolve(app, o);
  } catch (const Error& e) {
    throw NameConfigFile(e, app);
  }
  if (Spec::kInput.flag && o.basics.resume.empty() && app.count(Spec::kInput.flag) == 0)
    throw UsageError(Spec::kInput.flag,
                     std::string(Spec::kInput.what) + " is required (or --resume DIR)");
  return o;
}

// The options `args` gives the model command of `Spec`, as its parser reads them (no checks
// across options): what the registry tells the ranks a run starts (thread_ranks.hpp) and
// the chains of a run (several_chains.hpp). Throws as the parse does.
template <class Spec>
OptionList GivenOptionsOf(const std::vector<std::string>& args) {
  OptionsOf<Spec> o;
  CLI::App app{Spec::kDescription, std::string("carousel ") + Spec::kName};
  ParseModelOptions<Spec>(app, o, args);
  return GivenOptions(app);
}

// The burn-in and --eval-every of a model whose defaults are passes over the data, where
// they were not given.
template <class Spec>
void ResolvePassDefaults(OptionsOf<Spec>& options) {
  constexpr PassDefaults passes = Spec::kPasses;
  ChainOptions& chain = options.config.chain;
  if constexpr (passes.burn_in_passes > 0)
    if (!options.basics.burn_in_given)
      ResolveBurnInOfPasses(passes.burn_in_passes, chain.tiles, chain.iterations, chain.burn_in,
                            options.basics, passes.burn_in_at_most, passes.burn_in_at_least);
  if constexpr (passes.eval_every_passes > 0)
    if (!options.basics.eval_every_given)
      ResolveEvalEveryOfPasses(passes.eval_every_passes, passes.eval_every_at_least, chain.tiles,
                               chain.eval_every, chain.thin, options.basics);
}

// The run's configuration as the '#' lines of every output: the lines every run starts with
// (RunHeadLines: version, command line, ranks, tiles), then the model's.
template <class Options>
std::string RunComments(const char* command, const Options& options, int ranks,
                        std::vector<std::pair<std::string, std::string>> model_lines) {
  auto lines = RunHeadLines(command, options.basics.run_config.given().Args(), ranks,
                            options.config.chain.tiles);
  for (auto& line : model_lines) lines.push_back(std::move(line));
  return io::CommentBlock(lines);
}

// Runs the model command `Spec` (see the header): one chain, or --chains C of them.
template <class Spec>
int RunModelCommand(Communicator& comm, const std::vector<std::string>& args) {
  using Model = typename Spec::Model;
  OptionsOf<Spec> options;
  std::string resume_payload;
  if (const std::optional<int> code =
          StartModelCommand(comm, Spec::kName, args, RunModelCommand<Spec>, options,
                            ParseModelCommand<Spec>, resume_payload))
    return *code;
  ResolveTiles(comm, options.config.chain.tiles, options.basics);
  RunStart start{resume_payload.empty()};
  Spec::ResolveWithTiles(comm, options, start);
  ResolvePassDefaults<Spec>(options);
  const auto load_start = std::chrono::steady_clock::now();
  typename Spec::Data data = Spec::Load(comm, options, start);
  const LoadStats load = FinishedLoad(load_start, data.parse_seconds, data.parsed_bytes);
  if (const std::optional<int> code = Spec::RunInstead(comm, options, data)) return *code;

  const driver::Chain<Model> chain = driver::StartChain<Model>(
      comm, [&] { return Spec::Make(options, data); }, options.config.chain.Resolved(),
      resume_payload, options.basics.out, [&](const Model& m) { Spec::Check(m, data); });
  WriteRunConfig(comm, Spec::kName, options.basics);
  Model& model = *chain.model;
  Spec::Started(comm, options, data, model);

  const std::string comments =
      RunComments(Spec::kName, options, comm.size(), Spec::Comments(options, data, model));
  const std::string trace_path = options.basics.out + "/trace.csv";
  const driver::DrawsOutput draws{options.basics.out, std::string("carousel ") + Spec::kName,
                                  options.config.chain.Resolved(), comments};
  driver::ChainHooks hooks;
  hooks.write_trace = [&] {
    Spec::WriteTrace(trace_path, comments, model);
    draws.Write(Spec::Draws(model));
  };
  hooks.last_eval_seconds = [&] { return model.trace().back().seconds; };
  hooks.eval_status = [&] { return Spec::Status(model, data); };
  if (comm.rank() == 0 && !options.basics.quiet) Spec::Note(options, data, model);
  const driver::ChainOutcome outcome = driver::RunChain(
      comm, *chain.engine,
      {options.basics.out, options.basics.quiet, options.basics.checkpoint_minutes,
       options.config.chain.iterations},
      driver::RunRecord{Spec::kName, options.basics.run_config.CheckpointArgs()}, hooks);
  if (!outcome.finished)
    return driver::StoppedBySignal(comm.rank(), chain.engine->iteration(), Spec::kName,
                                   options.basics.out);
  std::vector<RankStats> stats;
  if constexpr (Spec::kItemsHeld != nullptr)
    stats = GatherRankStats(comm, outcome.sampling, Spec::ItemsHeld(model, data), load,
                            model.footprint());
  std::string closing;
  {
    const ReuseFreedBlocks reuse_freed_blocks;  // the outputs' slices reuse their buffers
    closing =
        Spec::Finish(comm, options, data, model, RunEnd{comments, outcome, load, *chain.engine});
  }
  if (comm.rank() == 0) std::fputs(closing.c_str(), stdout);
  if (comm.rank() == 0 && !stats.empty())
    std::fputs(RankStatsText(stats, Spec::kItemsHeld).c_str(), stdout);
  return 0;
}

}  // namespace carousel::cli
