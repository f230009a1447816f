// The options a run was given, as the parse of its command line read them (DESIGN.md
// section 7): what a checkpoint records, what the chains of a --chains run and a resumed run
// are started from, and the command line the outputs' headers show. Built from a parse
// (the command line's, cli/given_options.hpp), never by reading the words of a command line.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace carousel::driver {

class OptionList {
 public:
  struct Option {
    std::string flag;                 // "--iterations"
    std::vector<std::string> values;  // none: a flag that is on
    bool from_file = false;           // set by the --config file
    bool takes_no_value = false;      // a flag, whose value can only be given as "--quiet=false"
  };

  const Option* Find(const std::string& flag) const;
  bool Has(const std::string& flag) const { return Find(flag) != nullptr; }
  // The last value of `flag`, if it was given one.
  std::optional<std::string> Value(const std::string& flag) const;

  // `option`, in place of the one of its flag if there is one, else last.
  void Add(Option option);
  // `flag` with `value` (none: a flag that is on), as Add.
  void Set(const std::string& flag, std::optional<std::string> value);
  void Remove(const std::string& flag);
  // Every option of `other`, last, in place of ours of the same flag.
  void Append(const OptionList& other);

  // The options as the words of a command line that parses back to them, in their order:
  // "--quiet", "--seed 5" ("--seed=-5", "--quiet=false", "--out ''" where the value needs
  // it); an option of the config file as "--seed=5", as its key = value line reads.
  std::vector<std::string> Args() const;

  const std::vector<Option>& options() const { return options_; }

  std::optional<std::string> config_file;  // the --config file the parse read, if any

 private:
  std::vector<Option> options_;
};

}  // namespace carousel::driver
