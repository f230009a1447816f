#include "carousel/driver/option_list.hpp"

#include <algorithm>

namespace carousel::driver {

const OptionList::Option* OptionList::Find(const std::string& flag) const {
  const auto it = std::find_if(options_.begin(), options_.end(),
                               [&](const Option& o) { return o.flag == flag; });
  return it == options_.end() ? nullptr : &*it;
}

std::optional<std::string> OptionList::Value(const std::string& flag) const {
  const Option* o = Find(flag);
  if (o == nullptr || o->values.empty()) return std::nullopt;
  return o->values.back();
}

void OptionList::Add(Option option) {
  const auto it = std::find_if(options_.begin(), options_.end(),
                               [&](const Option& o) { return o.flag == option.flag; });
  if (it == options_.end())
    options_.push_back(std::move(option));
  else
    *it = std::move(option);
}

void OptionList::Set(const std::string& flag, std::optional<std::string> value) {
  Option option{flag, {}, false, !value};
  if (value) option.values.push_back(std::move(*value));
  Add(std::move(option));
}

void OptionList::Remove(const std::string& flag) {
  options_.erase(std::remove_if(options_.begin(), options_.end(),
                                [&](const Option& o) { return o.flag == flag; }),
                 options_.end());
}

void OptionList::Append(const OptionList& other) {
  for (const Option& o : other.options_) Remove(o.flag);
  options_.insert(options_.end(), other.options_.begin(), other.options_.end());
}

std::vector<std::string> OptionList::Args() const {
  std::vector<std::string> args;
  for (const Option& o : options_) {
    if (o.values.empty()) args.push_back(o.flag);
    for (const std::string& value : o.values) {
      if (value.empty())  // "--out=" would be refused
        args.insert(args.end(), {o.flag, value});
      else if (o.from_file || o.takes_no_value || value.front() == '-')  // "-5": an option
        args.push_back(o.flag + "=" + value);
      else
        args.insert(args.end(), {o.flag, value});
    }
  }
  return args;
}

}  // namespace carousel::driver
