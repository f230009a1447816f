// The one pipeline every model command runs (DESIGN.md section 7). A model command is a
// spec: a struct whose static members say what differs between models, run in this order by
// RunModelCommand<Spec>:
//
//   Parse(args) -> Options         the command line (or the resumed checkpoint's) parsed
//   ResolveWithTiles(comm, o, s)   defaults that follow from --tiles, before the data is read
//   Load(comm, o, s) -> Data       the rank's share of the data, and the defaults that follow
//                                  from it; Data has parse_seconds and parsed_bytes
//   RunInstead(comm, o, d)         a command that is not a chain of the engine (mf's gibbs)
//   Make(o, d) -> unique_ptr<Model>, Check(model, d)   the model, checked once attached
//   Started(comm, o, d, model)     what the model needs once it runs (sample sinks)
//   Comments(o, d, model)          the model's lines of the run's configuration, the '#' lines
//                                  of every output, after those every run starts with
//   Note(o, d, model)              a note before the first iteration (rank 0, not --quiet)
//   WriteTrace(path, comments, model), Draws(model), Status(model, d)   while it runs
//   Finish(comm, o, d, model, end) the outputs and the closing lines
//
// Options holds `config` (the model's config, with the chain's options), `basics`
// (RunBasics) and `argv` (SelfContainedArgs). A spec derives from ModelSpecDefaults and
// declares only the steps it needs beyond Parse, Load, Make, Comments, WriteTrace, Draws,
// Status and Finish.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "carousel/cli/chain_driver.hpp"
#include "carousel/cli/command_support.hpp"
#include "carousel/comm/communicator.hpp"
#include "carousel/engine/tile_engine.hpp"
#include "carousel/io/text_output.hpp"

namespace carousel::cli {

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

// The steps a spec may leave out: each does nothing.
struct ModelSpecDefaults {
  template <class Options>
  static void ResolveWithTiles(Communicator&, Options&, RunStart&) {}
  template <class Options, class Data>
  static std::optional<int> RunInstead(Communicator&, Options&, Data&) {
    return std::nullopt;
  }
  template <class Model, class Data>
  static void Check(const Model&, const Data&) {}
  template <class Options, class Data, class Model>
  static void Started(Communicator&, Options&, Data&, Model&) {}
  template <class Options, class Data, class Model>
  static void Note(const Options&, const Data&, const Model&) {}
};

// The run's configuration, the '#' lines of every output: the lines every run starts with
// (RunHeadLines: version, command line, ranks, tiles), then the model's.
template <class Spec>
std::vector<std::pair<std::string, std::string>> RunConfiguration(
    const typename Spec::Options& options, int ranks, const typename Spec::Data& data,
    const typename Spec::Model& model) {
  auto lines = RunHeadLines(Spec::kName, options.argv, ranks, options.config.chain.tiles);
  for (auto& line : Spec::Comments(options, data, model)) lines.push_back(std::move(line));
  return lines;
}

// Runs the model command `Spec` (see the header): one chain, or --chains C of them.
template <class Spec>
int RunModelCommand(Communicator& comm, const std::vector<std::string>& args) {
  using Model = typename Spec::Model;
  typename Spec::Options options;
  std::string resume_payload;
  if (const std::optional<int> code = StartModelCommand(
          comm, Spec::kName, args, RunModelCommand<Spec>, options, Spec::Parse, resume_payload))
    return *code;
  ResolveTiles(comm, options.config.chain.tiles, options.basics);
  RunStart start{resume_payload.empty(), options.argv};
  Spec::ResolveWithTiles(comm, options, start);
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
      io::CommentBlock(RunConfiguration<Spec>(options, comm.size(), data, model));
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
  Spec::Finish(comm, options, data, model, RunEnd{comments, outcome, load, *chain.engine});
  return 0;
}

}  // namespace carousel::cli
