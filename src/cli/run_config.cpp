#include "carousel/cli/run_config.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <sstream>

#include "carousel/util/error.hpp"
#include "carousel/version.hpp"

namespace carousel::cli {
namespace {

// Options a replay must not take from the run: where it writes (--out), whether it replaces
// another run's files there (--overwrite), which run it continues (--resume), and the file
// the run read, whose options are recorded themselves (--config).
const char* const kNotRecorded[] = {"out", "overwrite", "resume", "config"};

bool Recorded(const CLI::Option& option) {
  if (!option.get_configurable() || option.get_lnames().empty()) return false;  // --help
  const std::string& name = option.get_lnames().front();
  return std::none_of(std::begin(kNotRecorded), std::end(kNotRecorded),
                      [&](const char* excluded) { return name == excluded; });
}

// CLI11 turns a real default into text with a stream's 6 significant digits. Text with
// fewer is the value; with 6 it may be a rounding of it.
bool MayBeRounded(const CLI::Option& option, const std::string& text) {
  if (option.get_type_name().rfind("FLOAT", 0) != 0) return false;
  const std::string mantissa = text.substr(0, text.find_first_of("eE"));
  int digits = 0;
  bool leading = true;
  for (char c : mantissa) {
    if (!std::isdigit(static_cast<unsigned char>(c))) continue;
    if (leading && c == '0') continue;
    leading = false;
    ++digits;
  }
  return digits >= 6;
}

std::string TomlValue(const std::vector<std::string>& values) {
  return CLI::detail::ini_join(values, ',', '[', ']', '"', '\'');
}

// Whether CLI11's reader gives `values` back from the line `key = TomlValue(values)`.
bool ReadsBack(const std::string& key, const std::vector<std::string>& values) {
  std::istringstream line(key + " = " + TomlValue(values) + "\n");
  const std::vector<CLI::ConfigItem> items = CLI::ConfigTOML().from_config(line);
  return items.size() == 1 && items[0].parents.empty() && items[0].name == key &&
         items[0].inputs == values;
}

// `text` as '#' comment lines.
std::string Comment(const std::string& text) {
  std::string out = "# ";
  for (char c : text) out += c == '\n' ? std::string("\n# ") : std::string(1, c);
  return out + "\n";
}

}  // namespace

RunConfig::RunConfig(CLI::App& app) : given_(GivenOptions(app)) {
  for (CLI::Option* option : app.get_options()) {
    if (!Recorded(*option)) continue;
    Entry entry;
    entry.name = option->get_lnames().front();
    entry.help = option->get_description();
    if (option->count() > 0 && option->get_expected_min() == 0) {
      entry.values = {option->results().back()};  // a flag: the last of its values wins
    } else if (option->count() > 0) {
      entry.values = option->results();
    } else if (option->get_expected_min() == 0) {
      entry.values = {"false"};  // a flag not given is off (every flag's variable starts false)
    } else {
      option->capture_default_str();  // the variable's value, not the --help text
      entry.values = {option->get_default_str()};
      if (MayBeRounded(*option, entry.values.front()))
        entry.not_written = "its default has more digits than CLI11 writes; the default applies";
    }
    entries_.push_back(std::move(entry));
  }
}

void RunConfig::Resolve(const std::string& option, const std::string& value,
                        const std::string& how) {
  const auto entry = std::find_if(entries_.begin(), entries_.end(),
                                  [&](const Entry& e) { return "--" + e.name == option; });
  if (entry == entries_.end())
    throw Error(ExitCode::kInternal, "config.toml: no option " + option + " to resolve");
  entry->values = {value};
  entry->resolved = how;
  entry->not_written.clear();
}

void RunConfig::Record(const std::string& option, const std::string& value,
                       const std::string& how) {
  Resolve(option, value, how);
  recorded_.Set(option, value);
}

std::vector<std::string> RunConfig::CheckpointArgs() const {
  OptionList all = given_;
  all.Append(recorded_);
  return all.Args();
}

std::string RunConfig::Toml(const std::string& command) const {
  const std::string run = "carousel " + command;
  std::string text = Comment(
      "config.toml of a `" + run + "` run (carousel " + kVersion +
      "): every option, with the value the run used;\n"
      "\"resolved\" marks a value the run chose itself. Replay the run (bitwise the same "
      "outputs,\non any rank count dividing tiles) with\n"
      "  " +
      run +
      " --config config.toml --out NEW_DIR\n"
      "Options on the command line override the file's. Not recorded: --out, --overwrite,\n"
      "--resume, --config. Relative paths are relative to the directory the run started in.");
  for (const Entry& entry : entries_) {
    text += "\n" + Comment(entry.help);
    if (entry.not_written.empty() && ReadsBack(entry.name, entry.values)) {
      text += entry.name + " = " + TomlValue(entry.values);
      text += entry.resolved.empty() ? "\n" : "  # resolved: " + entry.resolved + "\n";
    } else {
      const std::string why = entry.not_written.empty()
                                  ? "CLI11 would not read its value back (a '#' starts a "
                                    "comment there); give --" +
                                        entry.name + " on the command line to replay the run"
                                  : entry.not_written;
      text += "# " + entry.name + ": not written: " + why + "\n";
    }
  }
  return text;
}

}  // namespace carousel::cli
