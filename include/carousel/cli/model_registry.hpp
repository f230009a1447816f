// The models of the `carousel` binary, one subcommand each (DESIGN.md section 7). Adding a
// model is its folder under src/model/, its command file in src/cli/ if it needs one, and one
// line in model_registry.cpp; `carousel --help` and the dispatch in main.cpp read this list.
#pragma once

#include <string>
#include <vector>

#include "carousel/driver/model_command.hpp"

namespace carousel::cli {

using driver::GivenOptionsFn;
using driver::ModelCommand;
using driver::ModelCommandFn;

const std::vector<ModelCommand>& ModelCommands();
const ModelCommand* FindModelCommand(const std::string& name);

// `carousel samplers`: every sampler of the registry, the blocks it runs on and its paper.
std::string SamplersText();

}  // namespace carousel::cli
