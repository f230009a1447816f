// Which column blocks leave and arrive at a rank when the grid moves from one stratum to
// another (DESIGN.md section 1). Shared by every engine whose column-side state rotates:
// the factor blocks of matrix factorization and the topic-word blocks of LDA.
#pragma once

#include <vector>

#include "carousel/data/tile_grid.hpp"

namespace carousel {

struct BlockMove {
  int block = 0;  // column-block id
  int peer = 0;   // the rank it goes to (sends) or comes from (receives)
};

struct RotationPlan {
  std::vector<BlockMove> sends;     // blocks this rank holds at `from` and passes on
  std::vector<BlockMove> receives;  // blocks this rank holds at `to` that are elsewhere now
};

// The moves of `rank` between stratum `from` and stratum `to`, in block order (so both
// sides of every transfer agree on it).
RotationPlan PlanRotation(const TileGrid& grid, const RankLayout& layout, int rank, int from,
                          int to);

}  // namespace carousel
