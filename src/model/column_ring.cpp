#include "carousel/model/column_ring.hpp"

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

std::unique_ptr<PendingExchange> StartColumnMoves(Communicator& comm, const TileGrid& grid,
                                                  const RankLayout& layout, int from, int to,
                                                  const std::function<std::string(int)>& pack,
                                                  const std::function<std::size_t(int)>& bytes) {
  const RotationPlan plan = PlanRotation(grid, layout, comm.rank(), from, to);
  std::vector<Message> sends, expected;
  for (const BlockMove& move : plan.sends)
    sends.push_back(Message{move.peer, move.block, pack(move.block)});
  for (const BlockMove& move : plan.receives)
    expected.push_back(Message{move.peer, move.block, std::string(bytes(move.block), '\0')});
  return comm.StartExchange(std::move(sends), std::move(expected));
}

}  // namespace carousel
