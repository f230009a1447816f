#include "carousel/cli/config_file.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>

#include "carousel/driver/error_text.hpp"
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

// The top-level keys of a config file's lines, with their 1-based line numbers: the text
// before '=' of each line that is not blank, a comment or a [section] header, trimmed and
// unquoted. Keys within sections are listed too (they are refused elsewhere).
std::vector<std::pair<std::string, std::size_t>> KeyLines(const std::string& path) {
  std::vector<std::pair<std::string, std::size_t>> keys;
  std::ifstream in(path);
  std::string line;
  for (std::size_t number = 1; std::getline(in, line); ++number) {
    const std::size_t first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] == '#' || line[first] == ';' ||
        line[first] == '[')
      continue;
    const std::size_t equals = line.find('=');
    if (equals == std::string::npos) continue;
    std::string key = line.substr(first, equals - first);
    key.erase(key.find_last_not_of(" \t") + 1);
    if (key.size() >= 2 && (key.front() == '"' || key.front() == '\'') && key.back() == key.front())
      key = key.substr(1, key.size() - 2);
    keys.emplace_back(key, number);
  }
  return keys;
}

// "config file PATH:LINE: " for the line that sets `key`, or "config file PATH: ".
std::string Where(const std::string& path, const std::string& key) {
  for (const auto& [name, line] : KeyLines(path))
    if (name == key) return "config file " + path + ":" + std::to_string(line) + ": ";
  return "config file " + path + ": ";
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
      std::string message = Where(*path, item.name) + "unknown option '" + item.name + "'";
      // Compared with "--" before them, as on the command line, so that a short key's
      // misspelling is judged as the option's would be there ("rnak": "rank").
      std::vector<std::string> options;
      for (const std::string& key : ConfigurableKeys(app)) options.push_back("--" + key);
      if (const auto closest = ClosestName("--" + item.name, options))
        message += "; did you mean '" + closest->substr(2) + "'?";
      return message;
    }
    if (!option->get_configurable())
      return Where(*path, item.name) + "'" + item.name + "' cannot be set in a config file; give " +
             LongName(*option) + " on the command line";
  }
  return where + error.what();
}

std::optional<std::string> DuplicateConfigKey(const CLI::App& app) {
  const std::optional<std::string> path = ConfigFilePath(app);
  if (!path) return std::nullopt;
  std::map<std::string, std::size_t> first_line;
  for (const auto& [key, line] : KeyLines(*path)) {
    const auto [at, fresh] = first_line.emplace(key, line);
    if (!fresh)
      return "config file " + *path + ":" + std::to_string(line) + ": '" + key +
             "' is set again (first on line " + std::to_string(at->second) +
             "); a key may be given once";
  }
  return std::nullopt;
}

Error NameConfigFile(const Error& error, const CLI::App& app) {
  const std::optional<std::string> path = ConfigFilePath(app);
  if (!path || error.code() != ExitCode::kUsage) return error;
  std::vector<CLI::ConfigItem> items;
  try {
    items = CLI::ConfigTOML().from_file(*path);
  } catch (const CLI::Error&) {
    return error;
  }
  const std::string text = driver::ErrorText(error);  // a lower layer's setting as its option
  for (const std::string& name : OptionsNamedIn(text)) {
    const CLI::Option* option = app.get_option_no_throw("--" + name);
    const auto& typed = app.parse_order();  // the command line's options (the file's are not)
    if (option != nullptr && std::find(typed.begin(), typed.end(), option) != typed.end()) continue;
    const bool in_file = std::any_of(items.begin(), items.end(), [&](const CLI::ConfigItem& item) {
      return item.parents.empty() && !IsSectionMarker(item) && item.name == name;
    });
    if (in_file)
      return Error(error.code(), text + " (" + name + " is set in config file " + *path + ")");
  }
  return error;
}

}  // namespace carousel::cli
