// An option as the layer that owns it declares it, once: its flag, help, the values it takes
// and, where the field's initial value is not what --help should show, the default in words.
// A model declares its options in its folder (model/<name>/<name>_options.hpp) as a function
// that calls a declarer with each field and its OptionInfo; the command line turns each into
// a parser option (cli/declared_options.hpp), so the model needs no parser.
//
//   declare(c.topics, "--topics", "number of topics K", opt::Within(1, 4096));
//   declare(o.step, "--step", "h", opt::Positive(), opt::Shown("from the data"));
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace carousel {

struct OptionInfo {
  enum class Check { kNone, kPositive, kNonNegative, kWithin, kOneOf };
  std::string flag;  // "--topics"
  std::string help;
  Check check = Check::kNone;
  double lo = 0.0, hi = 0.0;         // kWithin: lo <= value <= hi
  std::vector<std::string> choices;  // kOneOf
  std::string shown_default;         // "" : the field's value
};

// The modifiers a declaration takes after its flag and help: a check of the values, and the
// default as --help shows it.
namespace opt {

struct Modifier {
  OptionInfo::Check check = OptionInfo::Check::kNone;  // kNone: not a check
  double lo = 0.0, hi = 0.0;
  std::vector<std::string> choices;
  std::string shown_default;  // "": not the shown default
};

// A finite number > 0.
inline Modifier Positive() {
  Modifier m;
  m.check = OptionInfo::Check::kPositive;
  return m;
}
// A finite number >= 0.
inline Modifier NonNegative() {
  Modifier m;
  m.check = OptionInfo::Check::kNonNegative;
  return m;
}
// A number in [lo, hi].
inline Modifier Within(double lo, double hi) {
  Modifier m;
  m.check = OptionInfo::Check::kWithin;
  m.lo = lo;
  m.hi = hi;
  return m;
}
// One of `choices`.
inline Modifier OneOf(std::vector<std::string> choices) {
  Modifier m;
  m.check = OptionInfo::Check::kOneOf;
  m.choices = std::move(choices);
  return m;
}
// The default as --help shows it, where the field's initial value is a placeholder (the
// default follows from other options or the data).
inline Modifier Shown(std::string text) {
  Modifier m;
  m.shown_default = std::move(text);
  return m;
}

inline void Apply(OptionInfo& info, const Modifier& m) {
  if (m.check != OptionInfo::Check::kNone) {
    info.check = m.check;
    info.lo = m.lo;
    info.hi = m.hi;
    info.choices = m.choices;
  }
  if (!m.shown_default.empty()) info.shown_default = m.shown_default;
}

}  // namespace opt

// The OptionInfo of `flag` and `help` with `modifiers` applied in order.
template <class... Modifiers>
OptionInfo MakeOptionInfo(std::string flag, std::string help, const Modifiers&... modifiers) {
  OptionInfo info;
  info.flag = std::move(flag);
  info.help = std::move(help);
  (opt::Apply(info, modifiers), ...);
  return info;
}

// A default that a rule chose for an option that was not given (from other options or the
// data): its value, and how it was chosen, for config.toml.
struct ResolvedDefault {
  std::string flag;   // "--step"
  std::string value;  // as the option would be written
  std::string how;    // "sqrt(learning rate / D)"
};

}  // namespace carousel
