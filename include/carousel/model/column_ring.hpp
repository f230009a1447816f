// Moving column blocks around the ring of ranks (DESIGN.md section 1): which blocks leave
// and arrive at a rank when the grid moves from one stratum to another, and the transfer
// itself. The engine moves every model's column blocks with it once per iteration; a
// model that tours copies of the blocks past its row-blocks (LDA's evaluation) uses the
// same code.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "carousel/comm/communicator.hpp"
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

// Starts the moves of this rank from stratum `from` to `to`: `pack(j)` gives the bytes of
// each block that leaves, `bytes(j)` the size of each block that arrives. Finish with
// Communicator::FinishExchange: the received messages carry the block id as their tag.
std::unique_ptr<PendingExchange> StartColumnMoves(Communicator& comm, const TileGrid& grid,
                                                  const RankLayout& layout, int from, int to,
                                                  const std::function<std::string(int)>& pack,
                                                  const std::function<std::size_t(int)>& bytes);

}  // namespace carousel
