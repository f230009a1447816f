#include "carousel/cli/command_line.hpp"

#include <algorithm>

namespace carousel::cli {

std::optional<std::string> OptionArgument(const std::vector<std::string>& args,
                                          const std::string& option) {
  const std::string inline_form = option + "=";
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == option && i + 1 < args.size()) return args[i + 1];
    if (args[i].rfind(inline_form, 0) == 0) return args[i].substr(inline_form.size());
  }
  return std::nullopt;
}

bool OnCommandLine(const std::vector<std::string>& args, const std::string& option) {
  return std::any_of(args.begin(), args.end(), [&](const std::string& arg) {
    return arg == option || arg.rfind(option + "=", 0) == 0;
  });
}

}  // namespace carousel::cli
