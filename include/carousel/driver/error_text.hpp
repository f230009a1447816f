// How the command line words an error: a SettingError of a lower layer (util/error.hpp) is
// about the option the user typed for that setting.
#pragma once

#include <string>

#include "carousel/util/error.hpp"

namespace carousel::driver {

// The option for a setting of the lower layers: "--" and its name. The lower layers name
// their settings as the commands' options do; a command whose option for a setting is
// named otherwise catches the SettingError and raises the UsageError itself.
std::string OptionOfSetting(const std::string& setting);

// e.what(), or for a SettingError "option --flag: " and the problem, as UsageError words it.
std::string ErrorText(const Error& e);

}  // namespace carousel::driver
