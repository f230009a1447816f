// Looks at a command line before CLI11 parses it: for what must be known first (the file a
// --config message names, the ranks a run starts).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace carousel::cli {

// The value of `option` ("--config F" or "--config=F"), if the command line gives one.
std::optional<std::string> OptionArgument(const std::vector<std::string>& args,
                                          const std::string& option);

// Whether the command line names `option` ("--tiles" or "--tiles=..."), value or not.
bool OnCommandLine(const std::vector<std::string>& args, const std::string& option);

}  // namespace carousel::cli
