// "Did you mean": the known name closest to a misspelt one, for error messages.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace carousel {

// The known name that `given` most likely meant: the only one it abbreviates (its letters
// in order, the first one first: "--iters" of "--iterations"), else the nearest by edit
// distance if that is at most a third of its length (at least 1). std::nullopt when
// nothing is close.
std::optional<std::string> ClosestName(const std::string& given,
                                       const std::vector<std::string>& known);

}  // namespace carousel
