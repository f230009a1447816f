// Cross-rank sums combined in a fixed order (DESIGN.md section 1): each rank contributes
// partial sums keyed by a global id (a tile or block id, unique across ranks); every rank
// receives the total, added up in ascending key order, so the floating-point result does
// not depend on which rank held which piece.
#pragma once

#include <map>
#include <vector>

#include "carousel/comm/communicator.hpp"

namespace carousel {

using KeyedPartials = std::map<int, std::vector<double>>;

std::vector<double> OrderedSum(Communicator& comm, const KeyedPartials& mine, std::size_t width);

}  // namespace carousel
