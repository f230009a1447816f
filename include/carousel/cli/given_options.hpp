// The options a parse was given (DESIGN.md section 7), as the run's OptionList
// (driver/option_list.hpp): read from CLI11 after the parse, never from the words of a
// command line.
#pragma once

#include "carousel/driver/option_list.hpp"

namespace CLI {
class App;
}  // namespace CLI

namespace carousel::cli {

using driver::OptionList;

// The options `app` was given by its parse: those of the command line in the order they came,
// then those its --config file set (without --config itself, config_file names the file).
OptionList GivenOptions(const CLI::App& app);

}  // namespace carousel::cli
