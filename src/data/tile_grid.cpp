#include "carousel/data/tile_grid.hpp"

#include <algorithm>
#include <functional>
#include <numeric>
#include <queue>
#include <string>
#include <tuple>

#include "carousel/util/error.hpp"
#include "carousel/util/keyed_rng.hpp"

namespace carousel {

namespace {

// Longest processing time first over `order` (already shuffled): the ids by weight,
// heaviest first (a stable sort keeps the shuffled order among equals), each to the block
// that weighs least, then holds fewest ids, then has the lowest number.
void CutByWeight(std::vector<std::uint32_t> order, const std::vector<std::uint64_t>& weights,
                 std::vector<std::vector<std::uint32_t>>& members) {
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return weights[a] > weights[b]; });
  using Load = std::tuple<std::uint64_t, std::size_t, int>;  // weight, ids, block
  std::priority_queue<Load, std::vector<Load>, std::greater<Load>> lightest;
  for (int b = 0; b < static_cast<int>(members.size()); ++b) lightest.emplace(0, 0, b);
  for (const std::uint32_t id : order) {
    auto [weight, count, b] = lightest.top();
    lightest.pop();
    members[static_cast<std::size_t>(b)].push_back(id);
    lightest.emplace(weight + weights[id], count + 1, b);
  }
}

}  // namespace

BlockPartition::BlockPartition(std::uint32_t n, int blocks, std::uint64_t seed,
                               std::uint64_t purpose, const std::vector<std::uint64_t>& weights)
    : block_of_(n), local_(n), members_(static_cast<std::size_t>(blocks)) {
  if (!weights.empty() && weights.size() != n)
    throw Error(ExitCode::kInternal, "BlockPartition: " + std::to_string(weights.size()) +
                                         " weights for " + std::to_string(n) + " ids");
  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  KeyedStream stream(seed, static_cast<Purpose>(purpose), 0, 0);
  for (std::uint32_t i = n; i > 1; --i) std::swap(order[i - 1], order[stream.below(i)]);
  if (weights.empty()) {
    for (int b = 0; b < blocks; ++b) {
      const std::uint64_t begin = static_cast<std::uint64_t>(n) * b / blocks;
      const std::uint64_t end = static_cast<std::uint64_t>(n) * (b + 1) / blocks;
      members_[b].assign(order.begin() + begin, order.begin() + end);
    }
  } else {
    CutByWeight(std::move(order), weights, members_);
  }
  for (int b = 0; b < blocks; ++b) {
    const auto& members = members_[b];
    for (std::uint32_t k = 0; k < members.size(); ++k) {
      block_of_[members[k]] = b;
      local_[members[k]] = k;
    }
  }
}

TileGrid::TileGrid(std::uint32_t rows, std::uint32_t cols, int blocks, std::uint64_t seed,
                   const std::vector<std::uint64_t>& col_weights)
    : rows_(rows, blocks, seed, static_cast<std::uint64_t>(Purpose::kPermuteRows)),
      cols_(cols, blocks, seed, static_cast<std::uint64_t>(Purpose::kPermuteCols), col_weights) {}

RankLayout::RankLayout(int blocks, int ranks) : per_rank_(blocks / ranks) {
  if (ranks < 1 || blocks % ranks != 0)
    throw SettingError("tiles", "the number of tiles per side (" + std::to_string(blocks) +
                                    ") must be a multiple of the number of ranks (" +
                                    std::to_string(ranks) + ")");
}

StratumSchedule::StratumSchedule(Kind kind, std::vector<std::uint64_t> stratum_sizes,
                                 std::uint64_t seed)
    : kind_(kind), sizes_(std::move(stratum_sizes)), seed_(seed) {
  cumulative_.resize(sizes_.size());
  std::partial_sum(sizes_.begin(), sizes_.end(), cumulative_.begin());
}

int StratumSchedule::At(std::uint64_t iteration) const {
  const int b = static_cast<int>(sizes_.size());
  if (kind_ == Kind::kCyclic || cumulative_.back() == 0)
    return static_cast<int>(iteration % static_cast<std::uint64_t>(b));
  KeyedStream stream(seed_, Purpose::kSchedule, 0, iteration);
  const std::uint64_t x = stream.below(cumulative_.back());
  return static_cast<int>(std::upper_bound(cumulative_.begin(), cumulative_.end(), x) -
                          cumulative_.begin());
}

}  // namespace carousel
