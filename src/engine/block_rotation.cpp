#include "carousel/engine/block_rotation.hpp"

namespace carousel {

RotationPlan PlanRotation(const TileGrid& grid, const RankLayout& layout, int rank, int from,
                          int to) {
  RotationPlan plan;
  for (int j = 0; j < grid.blocks(); ++j) {
    const int before = layout.RankOfColBlock(grid, j, from);
    const int after = layout.RankOfColBlock(grid, j, to);
    if (before == after) continue;
    if (before == rank) plan.sends.push_back({j, after});
    if (after == rank) plan.receives.push_back({j, before});
  }
  return plan;
}

}  // namespace carousel
