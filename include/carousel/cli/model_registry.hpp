// The models of the `carousel` binary, one subcommand each (DESIGN.md section 7). Adding a
// model is its folder under src/model/, its command file in src/cli/ if it needs one, and one
// line in model_registry.cpp; `carousel --help` and the dispatch in main.cpp read this list.
#pragma once

#include <string>
#include <vector>

#include "carousel/cli/given_options.hpp"
#include "carousel/comm/communicator.hpp"

namespace carousel::cli {

using ModelCommandFn = int (*)(Communicator&, const std::vector<std::string>&);
// The options a command line gives the command, as its parser reads them; throws as it does.
using GivenOptionsFn = OptionList (*)(const std::vector<std::string>&);

struct ModelCommand {
  std::string name;     // the subcommand: carousel <name> [options]
  std::string summary;  // one line for carousel --help
  ModelCommandFn run;
  GivenOptionsFn given;
  // The command shares a rank's work out among worker threads (lda --threads), so a run
  // started without a launcher is by default one rank on every CPU (cli/thread_ranks.hpp).
  bool threads_within_rank = false;
};

const std::vector<ModelCommand>& ModelCommands();
const ModelCommand* FindModelCommand(const std::string& name);

// `carousel samplers`: every sampler of the registry, the blocks it runs on and its paper.
std::string SamplersText();

}  // namespace carousel::cli
