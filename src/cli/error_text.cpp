#include "carousel/cli/error_text.hpp"

namespace carousel::cli {

std::string OptionOfSetting(const std::string& setting) {
  return "--" + setting;
}

std::string ErrorText(const Error& e) {
  if (e.setting().empty()) return e.what();
  return "option " + OptionOfSetting(e.setting()) + ": " + e.what();
}

}  // namespace carousel::cli
