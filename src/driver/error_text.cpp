#include "carousel/driver/error_text.hpp"

namespace carousel::driver {

std::string OptionOfSetting(const std::string& setting) {
  return "--" + setting;
}

std::string ErrorText(const Error& e) {
  if (e.setting().empty()) return e.what();
  return "option " + OptionOfSetting(e.setting()) + ": " + e.what();
}

}  // namespace carousel::driver
