// The options of a run as its parse and the run resolved them (DESIGN.md section 7): the
// ones given (GivenOptions), which the outputs' headers show; with the defaults the run
// recorded, what its checkpoints keep; and config.toml, every option of a fresh run with
// the value the run used, written into its --out, so that `carousel <command> --config
// OUT/config.toml --out NEW` replays the run and writes bitwise the same outputs (on any
// rank count dividing its tiles).
//
// The options are those of the command's parser, whatever they are: an option added to a
// command is recorded without any list to keep. A value is what was given (on the command
// line or in a --config file), else what the run resolved an unset option to (--tiles from
// the rank count, the burn-in from --iterations, a step from the sampler and the data),
// else the option's default. Not recorded: --out, --resume, --overwrite and --config, which
// must not be replayed blindly.
#pragma once

#include <string>
#include <vector>

#include "carousel/cli/given_options.hpp"

namespace CLI {
class App;
}  // namespace CLI

namespace carousel::cli {

class RunConfig {
 public:
  RunConfig() = default;

  // Every option of `app`, just parsed: a given one with its values, any other with the
  // value its variable holds now, its default (so the command must not have changed it).
  explicit RunConfig(CLI::App& app);

  // The run chose `option`'s value ("--tiles"), which was not given: `value`, because of
  // `how` ("one tile per rank"). Throws an internal Error for an option not recorded.
  void Resolve(const std::string& option, const std::string& value, const std::string& how);

  // Resolve, for a default that a fresh run resolved from its tiles or data and a resume
  // must keep: a resume parses the checkpoint's options before it knows either, so they
  // hold this value too (CheckpointArgs).
  void Record(const std::string& option, const std::string& value, const std::string& how);

  // The options the run was given, as parsed.
  const OptionList& given() const { return given_; }

  // What a checkpoint keeps of the run's options (resume.hpp, RunRecord): those given, then
  // those recorded.
  std::vector<std::string> CheckpointArgs() const;

  // The text of config.toml of a `carousel <command>` run: a comment header, then one
  // `key = value` line per option after a comment with its help text. A value that CLI11's
  // reader would not give back as it is (one holding '#', which starts a comment there; a
  // default real that CLI11 printed with 6 digits only) is left as a comment, so that a
  // replay takes the run's value from the same place the run did.
  std::string Toml(const std::string& command) const;

 private:
  struct Entry {
    std::string name;  // the key: the option's long name without "--"
    std::string help;
    std::vector<std::string> values;
    std::string resolved;     // how the run chose the value, if it did
    std::string not_written;  // why the value is only a comment, if it is
  };
  std::vector<Entry> entries_;
  OptionList given_;
  OptionList recorded_;
};

}  // namespace carousel::cli
