#include "carousel/cli/given_options.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>

namespace carousel::cli {
namespace {

std::string LongName(const CLI::Option& option) {
  return option.get_lnames().empty() ? option.get_name() : "--" + option.get_lnames().front();
}

// An option as its parse left it. CLI11 gives a flag that is on the value "true", and keeps
// no result for an empty value.
OptionList::Option Given(const CLI::Option& option, bool from_file) {
  OptionList::Option given{LongName(option), option.results(), from_file,
                           option.get_expected_min() == 0};
  if (given.takes_no_value) {  // its last value counts
    const std::string last = given.values.empty() ? "true" : given.values.back();
    given.values.clear();
    if (last != "true") given.values.push_back(last);
  } else if (given.values.empty()) {
    given.values.push_back("");
  }
  return given;
}

}  // namespace

OptionList GivenOptions(const CLI::App& app) {
  OptionList given;
  const CLI::Option* config = app.get_config_ptr();
  std::vector<const CLI::Option*> seen;
  // CLI11 lists the options of the command line in parse_order(), once per occurrence; the
  // config file's are the others that have a value.
  for (const CLI::Option* o : app.parse_order()) {
    if (o == config || std::find(seen.begin(), seen.end(), o) != seen.end()) continue;
    seen.push_back(o);
    given.Add(Given(*o, false));
  }
  for (const CLI::Option* o : app.get_options()) {
    if (o == config || o->count() == 0 || std::find(seen.begin(), seen.end(), o) != seen.end())
      continue;
    given.Add(Given(*o, true));
  }
  if (config != nullptr && config->count() > 0 && !config->results().empty())
    given.config_file = config->results().front();
  return given;
}

}  // namespace carousel::cli
