#include "carousel/cli/config_file.hpp"

#include <algorithm>
#include <cctype>

#include "carousel/cli/command_line.hpp"
#include "carousel/util/closest_name.hpp"

namespace carousel::cli {
namespace {

constexpr const char* kConfigOption = "--config";

// The file given with --config, if any.
std::optional<std::string> ConfigFilePath(const CLI::App& app) {
  const CLI::Option* config = app.get_config_ptr();
  if (config == nullptr || config->count() == 0 || config->results().empty()) return std::nullopt;
  return config->results().front();
}

// The option that a file's key sets, looked up as CLI11 does (App::_parse_single_config).
const CLI::Option* OptionOfKey(const CLI::App& app, const std::string& key) {
  if (const CLI::Option* o = app.get_option_no_throw("--" + key)) return o;
  if (key.size() == 1)
    if (const CLI::Option* o = app.get_option_no_throw("-" + key)) return o;
  return app.get_option_no_throw(key);
}

// The keys a config file may hold: the long names of the options it may set.
std::vector<std::string> ConfigurableKeys(const CLI::App& app) {
  std::vector<std::string> keys;
  for (const CLI::Option* o : app.get_options())
    if (o->get_configurable())
      for (const std::string& name : o->get_lnames()) keys.push_back(name);
  return keys;
}

// CLI11's markers of a [section]'s start and end among a file's items.
bool IsSectionMarker(const CLI::ConfigItem& item) {
  return item.name == "++" || item.name == "--";
}

std::string LongName(const CLI::Option& option) {
  return option.get_lnames().empty() ? option.get_name() : "--" + option.get_lnames().front();
}

// The options a message names ("--burn-in", "--iterations"), in the order it names them.
std::vector<std::string> OptionsNamedIn(const std::string& message) {
  std::vector<std::string> names;
  for (std::size_t at = message.find("--"); at != std::string::npos;
       at = message.find("--", at + 2)) {
    std::size_t end = at + 2;
    while (end < message.size() &&
           (std::isalnum(static_cast<unsigned char>(message[end])) || message[end] == '-'))
      ++end;
    if (end > at + 2) names.push_back(message.substr(at + 2, end - at - 2));
  }
  return names;
}

}  // namespace

void AddConfigFileOption(CLI::App& app) {
  app.set_config(kConfigOption, "",
                 "read options from this TOML or INI file (key = value, a key being an "
                 "option's name without --); options given here override the file's")
      ->type_name("FILE");
  app.allow_config_extras(CLI::config_extras_mode::error);
}

std::optional<std::string> ConfigFileProblem(const CLI::App& app, const CLI::ParseError& error) {
  const std::optional<std::string> path = ConfigFilePath(app);
  if (!path) return std::nullopt;
  const std::string where = "config file " + *path + ": ";
  if (dynamic_cast<const CLI::FileError*>(&error))
    return "option --config: cannot read the config file " + *path;
  if (!dynamic_cast<const CLI::ConfigError*>(&error)) return std::nullopt;
  std::vector<CLI::ConfigItem> items;
  try {
    items = app.get_config_formatter()->from_file(*path);
  } catch (const CLI::Error&) {
    return where + error.what();
  }
  for (const CLI::ConfigItem& item : items) {
    if (!item.parents.empty())
      return where + "[" + item.parents.front() +
             "]: sections are not read; put the options at the top of the file";
    if (IsSectionMarker(item)) continue;
    const CLI::Option* option = OptionOfKey(app, item.name);
    if (option == nullptr) {
      std::string message = where + "unknown option '" + item.name + "'";
      if (const auto closest = ClosestName(item.name, ConfigurableKeys(app)))
        message += "; did you mean '" + *closest + "'?";
      return message;
    }
    if (!option->get_configurable())
      return where + "'" + item.name + "' cannot be set in a config file; give " +
             LongName(*option) + " on the command line";
  }
  return where + error.what();
}

std::vector<std::string> SelfContainedArgs(const CLI::App& app,
                                           const std::vector<std::string>& args) {
  if (!ConfigFilePath(app)) return args;
  std::vector<std::string> spelled_out;
  for (const CLI::Option* o : app.get_options()) {
    if (o == app.get_config_ptr() || o->count() == 0) continue;
    const std::string name = LongName(*o);
    for (const std::string& value : o->results()) {
      if (value.empty() && o->get_expected_min() > 0) {
        spelled_out.insert(spelled_out.end(), {name, value});  // "--test=" would be refused
      } else {
        spelled_out.push_back(name + "=" + value);  // also for a value that starts with "-"
      }
    }
  }
  return spelled_out;
}

Error NameConfigFile(const Error& error, const std::vector<std::string>& args) {
  const std::optional<std::string> path = OptionArgument(args, kConfigOption);
  if (!path || error.code() != ExitCode::kUsage) return error;
  std::vector<CLI::ConfigItem> items;
  try {
    items = CLI::ConfigTOML().from_file(*path);
  } catch (const CLI::Error&) {
    return error;
  }
  for (const std::string& name : OptionsNamedIn(error.what())) {
    if (OnCommandLine(args, "--" + name)) continue;
    const bool in_file = std::any_of(items.begin(), items.end(), [&](const CLI::ConfigItem& item) {
      return item.parents.empty() && !IsSectionMarker(item) && item.name == name;
    });
    if (in_file)
      return Error(error.code(), std::string(error.what()) + " (" + name +
                                     " is set in config file " + *path + ")");
  }
  return error;
}

}  // namespace carousel::cli
