// A model as the one pipeline that runs every model command sees it (cli/model_pipeline.hpp
// runs the steps in order; DESIGN.md section 7). A model's folder holds its
// spec, <model>_spec.hpp: a struct of static members, derived from ModelSpecDefaults, with
//
//   kName, kDescription, kDefaultOut   the command, its --help title and its default --out
//   kInput                     the input option a fresh run requires
//   kPasses                    the default burn-in or --eval-every in passes over the data
//   kItemsHeld, ItemsHeld(model, data)  what the closing per-rank statistics count as held
//   ModelOptions, Data, Model  its options (with its config), a rank's data, its TileModel
//   Declare(declare, o), ShowChainDefaults(declare)   its options (util/option_info.hpp)
//   Make(o, data), Check(model, data)   the model of the rank's data, checked once attached
//   Comments(o, data, model)   its lines of the run's configuration
//   Note(o, data, model)       a note before the first iteration
//   WriteTrace(path, comments, model), Draws(model), Status(model, data)   while it runs
//
//   Load(comm, o, start)       the rank's share of the data (a model that needs the command
//                              line's types for it has it in its adapter)
//   Finish(comm, o, data, model, end)   the outputs of a finished run; the closing lines
//
// What needs the command line's own types (its checks after parsing, loading through its
// helpers, the closing outputs) is in the model's command adapter in cli, which derives from
// the spec; a spec that needs none runs as it is.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "carousel/comm/communicator.hpp"
#include "carousel/model/tile_model.hpp"

namespace carousel {

// The input option a fresh run requires (not --resume), and what it names ("a training
// file").
struct RequiredInput {
  const char* flag;
  const char* what;
};

// A model whose default burn-in or --eval-every are passes over the data (an iteration
// works on one stratum, 1/tiles of it; BurnInOfPasses, EvalEveryOfPasses).
struct PassDefaults {
  std::uint64_t burn_in_passes = 0;     // 0: the model's burn-in is in iterations
  std::uint64_t eval_every_passes = 0;  // 0: its --eval-every is in iterations
  RunFraction burn_in_at_most = kHalfTheRun;
  RunFraction burn_in_at_least = kNoneOfTheRun;
  std::uint64_t eval_every_at_least = 0;  // iterations between evaluations, at the fewest
};

// The defaults of a model whose burn-in stays in iterations and which evaluates (and keeps a
// draw) after the fewest whole passes that make at least `iterations` iterations
// (EvalEveryOfPasses): at most once a pass, so that the evaluations' share of a run does not
// grow with --tiles (amf, dpmix, sam).
constexpr PassDefaults EvalEveryPassAtLeast(std::uint64_t iterations) {
  return PassDefaults{0, 1, kHalfTheRun, kNoneOfTheRun, iterations};
}

// The steps a spec may leave out: each does nothing.
struct ModelSpecDefaults {
  static constexpr RequiredInput kInput{nullptr, nullptr};  // none
  static constexpr PassDefaults kPasses{};
  static constexpr const char* kItemsHeld = nullptr;  // no per-rank statistics
  template <class Declare>
  static void ShowChainDefaults(Declare&) {}
  template <class App, class Options>
  static void Resolve(const App&, Options&) {}
  template <class Options, class Start>
  static void ResolveWithTiles(Communicator&, Options&, Start&) {}
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
  template <class Options, class Data, class Model, class End>
  static std::string Finish(Communicator&, const Options&, const Data&, Model&, const End&) {
    return {};
  }
};

}  // namespace carousel
