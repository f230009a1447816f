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
#include "carousel/engine/tile_engine.hpp"
#include "carousel/io/text_output.hpp"
#include "carousel/model/model_spec.hpp"

namespace carousel::cli {

// A model command's options: the model's own (its folder's <Model>Options, with its config)
// and those every run has.
template <class ModelOptions>
struct CommandOptions : ModelOptions {
  RunBasics basics;
  std::vector<std::string> argv;  // as given, self-contained: for checkpoints and headers
};

// The options of the model command of `Spec`.
template <class Spec>
using OptionsOf = CommandOptions<typename Spec::ModelOptions>;

// What a fresh run records of itself while it resolves defaults from the tiles or the data.
struct RunStart {
  bool fresh = true;  // false: resumed from a checkpoint, whose command line is complete
  // The command line the checkpoints store; a default resolved from the tiles or the data
  // is appended to it, so that a resume, which parses it before it knows either, keeps it.
  std::vector<std::string> recorded_args;
};

// What a spec's Finish gets once the chain has run to its last iteration.
struct RunEnd {
  const std::string& comments;  // the run's configuration block
  const ChainOutcome& outcome;  // this rank's sampling loop
  const LoadStats& load;        // this rank's load
  const TileEngine& engine;     // iterations and seconds running
};

// Parses a model command's line: the model's options, the chain's, then the model's checks
// and the defaults that follow from the options alone.
template <class Spec>
OptionsOf<Spec> ParseModelCommand(const std::vector<std::string>& args) {
  OptionsOf<Spec> o;
  o.basics.out = Spec::kDefaultOut;
  const std::string command = std::string("carousel ") + Spec::kName;
  CLI::App app{Spec::kDescription, command};
  SetUpCommandApp(app);
  OptionDeclarer declare(app);
  Spec::Declare(declare, o);
  AddChainOptions(app, o.config.chain, o.basics);
  Spec::ShowChainDefaults(declare);
  ParseOrThrow(app, args, command);
  ResolveChainOptions(app, o.config.chain, o.basics);
  o.argv = SelfContainedArgs(app, args);
  Spec::Resolve(app, o);
  if (Spec::kInput.flag && o.basics.resume.empty() && app.count(Spec::kInput.flag) == 0)
    throw UsageError(Spec::kInput.flag,
                     std::string(Spec::kInput.what) + " is required (or --resume DIR)");
  return o;
}

// A default the run resolved itself (`how`), not given: recorded for config.toml and appended
// to the command line the checkpoints store, so that a resume keeps it.
inline void RecordArgument(RunBasics& basics, RunStart& start, const std::string& flag,
                           const std::string& value, const std::string& how) {
  basics.run_config.Resolve(flag, value, how);
  start.recorded_args.insert(start.recorded_args.end(), {flag, value});
}

// The burn-in and --eval-every of a model whose defaults are passes over the data, where
// they were not given.
template <class Spec>
void ResolvePassDefaults(OptionsOf<Spec>& options, RunStart& start) {
  constexpr PassDefaults passes = Spec::kPasses;
  if constexpr (passes.burn_in_passes > 0) {
    ChainOptions& chain = options.config.chain;
    if (!options.basics.burn_in_given)
      ResolveBurnInOfPasses(passes.burn_in_passes, chain.tiles, chain.iterations, chain.burn_in,
                            options.basics, start.recorded_args, passes.burn_in_at_most,
                            passes.burn_in_at_least);
    if (!options.basics.eval_every_given)
      ResolveEvalEveryOfPasses(passes.eval_every_passes, chain.tiles, chain.eval_every, chain.thin,
                               options.basics, start.recorded_args);
  }
}

// The run's configuration as the '#' lines of every output: the lines every run starts with
// (RunHeadLines: version, command line, ranks, tiles), then the model's.
template <class Options>
std::string RunComments(const char* command, const Options& options, int ranks,
                        std::vector<std::pair<std::string, std::string>> model_lines) {
  auto lines = RunHeadLines(command, options.argv, ranks, options.config.chain.tiles);
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
  RunStart start{resume_payload.empty(), options.argv};
  Spec::ResolveWithTiles(comm, options, start);
  ResolvePassDefaults<Spec>(options, start);
  const auto load_start = std::chrono::steady_clock::now();
  typename Spec::Data data = Spec::Load(comm, options, start);
  const LoadStats load = FinishedLoad(load_start, data.parse_seconds, data.parsed_bytes);
  if (const std::optional<int> code = Spec::RunInstead(comm, options, data)) return *code;

  const Chain<Model> chain = StartChain<Model>(
      comm, [&] { return Spec::Make(options, data); }, options.config.chain.Resolved(),
      resume_payload, options.basics.out, [&](const Model& m) { Spec::Check(m, data); });
  WriteRunConfig(comm, Spec::kName, options.basics);
  Model& model = *chain.model;
  Spec::Started(comm, options, data, model);

  const std::string comments =
      RunComments(Spec::kName, options, comm.size(), Spec::Comments(options, data, model));
  const std::string trace_path = options.basics.out + "/trace.csv";
  const DrawsOutput draws{options.basics.out, std::string("carousel ") + Spec::kName,
                          options.config.chain.Resolved(), comments};
  ChainHooks hooks;
  hooks.write_trace = [&] {
    Spec::WriteTrace(trace_path, comments, model);
    draws.Write(Spec::Draws(model));
  };
  hooks.last_eval_seconds = [&] { return model.trace().back().seconds; };
  hooks.eval_status = [&] { return Spec::Status(model, data); };
  if (comm.rank() == 0 && !options.basics.quiet) Spec::Note(options, data, model);
  const ChainOutcome outcome =
      RunChain(comm, *chain.engine, options.basics, options.config.chain.iterations,
               RunRecord{Spec::kName, start.recorded_args}, hooks);
  if (!outcome.finished)
    return StoppedBySignal(comm.rank(), chain.engine->iteration(), Spec::kName, options.basics.out);
  std::vector<RankStats> stats;
  if constexpr (Spec::kItemsHeld != nullptr)
    stats = GatherRankStats(comm, outcome.sampling, Spec::ItemsHeld(model, data), load,
                            model.footprint());
  const std::string closing =
      Spec::Finish(comm, options, data, model, RunEnd{comments, outcome, load, *chain.engine});
  if (comm.rank() == 0) std::fputs(closing.c_str(), stdout);
  if (comm.rank() == 0 && !stats.empty())
    std::fputs(RankStatsText(stats, Spec::kItemsHeld).c_str(), stdout);
  return 0;
}

}  // namespace carousel::cli
