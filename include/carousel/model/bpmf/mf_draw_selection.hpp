// --save-draws: which users' and items' factors go to the draws file at every kept draw.
//   "users=1,5,9 items=3"   these ids of the input (either part may be left out)
//   "N"                     N users and N items chosen at random with the run's seed
#pragma once

#include <cstdint>
#include <string>

#include "carousel/io/id_map.hpp"
#include "carousel/model/bpmf/mf_config.hpp"

namespace carousel {

// Throws a SettingError of "save-draws" for a malformed spec or an id not in the training
// data. The selection keeps the order given (random picks: ascending dense index).
MfDrawSelection ResolveDrawSelection(const std::string& spec, const io::IdMap& users,
                                     const io::IdMap& items, std::uint64_t seed);

}  // namespace carousel
