#include "carousel/cli/declared_options.hpp"

namespace carousel::cli {

void AddDeclaredCheck(CLI::Option& option, const OptionInfo& info) {
  switch (info.check) {
    case OptionInfo::Check::kNone:
      return;
    case OptionInfo::Check::kPositive:
      option.check(Positive());
      return;
    case OptionInfo::Check::kNonNegative:
      option.check(NonNegative());
      return;
    case OptionInfo::Check::kWithin:
      option.check(Within(info.lo, info.hi));
      return;
    case OptionInfo::Check::kOneOf:
      option.check(CLI::IsMember(info.choices));
      return;
  }
}

void RecordDefaults(RunConfig& run_config, const std::vector<ResolvedDefault>& chosen) {
  for (const ResolvedDefault& d : chosen) run_config.Resolve(d.flag, d.value, d.how);
}

}  // namespace carousel::cli
