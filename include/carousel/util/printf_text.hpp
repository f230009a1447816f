// printf-style formatting into a std::string of any length, for the lines a command prints
// that a lower layer composes (a model's closing lines).
#pragma once

#include <string>

namespace carousel {

std::string PrintfText(const char* format, ...) __attribute__((format(printf, 1, 2)));

}  // namespace carousel
