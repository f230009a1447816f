// What the mf bench programs need of a ratings file: its "user item value" lines as dense
// indices, and, per tile of carousel mf's B x B grid (data/tile_grid.hpp: users shuffled
// into blocks of equal counts, items into blocks of nearly equal ratings), the tile's
// ratings and the W rows it touches. Users and items take dense indices in the order they
// first appear, so the blocks are those of the same algorithm and seed, not necessarily the
// very blocks of a `carousel mf` run (its id maps may order the ids otherwise).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <unordered_map>
#include <vector>

#include "carousel/data/tile_grid.hpp"

namespace carousel::bench {

struct RatingsFile {
  std::vector<std::uint32_t> user, item;  // dense indices, one entry per rating
  std::uint32_t users = 0, items = 0;
};

inline RatingsFile ReadRatingsFile(const char* path, const char* program) {
  std::FILE* f = std::fopen(path, "r");
  if (!f) {
    std::fprintf(stderr, "%s: cannot open %s\n", program, path);
    std::exit(2);
  }
  RatingsFile r;
  std::unordered_map<std::uint64_t, std::uint32_t> users, items;
  unsigned long long u, i;
  double v;
  while (std::fscanf(f, "%llu %llu %lf", &u, &i, &v) == 3) {
    r.user.push_back(users.try_emplace(u, static_cast<std::uint32_t>(users.size())).first->second);
    r.item.push_back(items.try_emplace(i, static_cast<std::uint32_t>(items.size())).first->second);
  }
  std::fclose(f);
  r.users = static_cast<std::uint32_t>(users.size());
  r.items = static_cast<std::uint32_t>(items.size());
  return r;
}

struct TileCounts {
  int tiles = 0;
  // rows[i * B + j]: the rows of W with a rating in tile (i, j), ascending; W holds row
  // block i's users contiguously, in their local order, after blocks 0 .. i-1.
  std::vector<std::vector<std::uint32_t>> rows;
  std::vector<std::uint64_t> ratings;  // per tile, same index
};

inline TileCounts CountTiles(const RatingsFile& r, int tiles, std::uint64_t seed) {
  std::vector<std::uint64_t> item_ratings(r.items, 0);
  for (std::uint32_t i : r.item) ++item_ratings[i];
  const TileGrid grid(r.users, r.items, tiles, seed, item_ratings);
  std::vector<std::uint32_t> block_start(static_cast<std::size_t>(tiles) + 1, 0);
  for (int b = 0; b < tiles; ++b)
    block_start[b + 1] = block_start[b] + static_cast<std::uint32_t>(grid.rows().Members(b).size());
  TileCounts counts;
  counts.tiles = tiles;
  counts.rows.resize(static_cast<std::size_t>(tiles) * tiles);
  counts.ratings.assign(counts.rows.size(), 0);
  for (std::size_t e = 0; e < r.user.size(); ++e) {
    const int i = grid.rows().BlockOf(r.user[e]);
    const auto tile = static_cast<std::size_t>(grid.TileId(i, grid.cols().BlockOf(r.item[e])));
    counts.rows[tile].push_back(block_start[i] + grid.rows().LocalIndex(r.user[e]));
    ++counts.ratings[tile];
  }
  for (auto& list : counts.rows) {
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
  }
  return counts;
}

}  // namespace carousel::bench
