// The memory floor of `carousel mf`'s row touches: seconds a pass spends only moving the W
// rows that a pass touches through the cache, read and written back, at --tiles B, with no
// ratings, no arithmetic beyond one multiply-add per element, and nothing else (issue #39,
// "Work"). At B tiles a row is touched in each tile of a pass where it has a rating (a
// 52-rating user in 15.4 of 16 tiles, 36.6 of 64), so its 132 bytes (K = 32 and a bias,
// float) go through memory about that often, in row order within each tile, as the gradient
// kernel visits a tile's rows_with_data (model/bpmf/bpmf.cpp). The difference between this
// floor at B tiles and at 1 or 4 tiles is the least any kernel that keeps the rows of a tile
// in memory and touches each once per tile can add to a pass.
//
//   mf_row_touch_floor RATINGS_FILE [TILES...]      (default tiles: 1 4 16 64)
//
// RATINGS_FILE: "user item value" lines (bench/run_tile_work.sh's mf_25000000_480189.train).
// Users and items are dealt to blocks by the tile grid's own code (tile_counts.hpp). Prints,
// per B: rows touched a pass, seconds a pass (best of 5) and GB moved.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "tile_counts.hpp"

namespace {

constexpr int kRowFloats = 33;      // K = 32 and a bias
constexpr std::uint64_t kSeed = 1;  // carousel's default --seed

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: mf_row_touch_floor RATINGS_FILE [TILES...]\n");
    return 2;
  }
  std::vector<int> tiles_list;
  for (int a = 2; a < argc; ++a) tiles_list.push_back(std::atoi(argv[a]));
  if (tiles_list.empty()) tiles_list = {1, 4, 16, 64};
  const carousel::bench::GridEntries ratings =
      carousel::bench::ReadRatingsFile(argv[1], "mf_row_touch_floor");
  std::printf("%zu ratings, %u users, %u items; W %.1f MB\n", ratings.row.size(), ratings.rows,
              ratings.cols, ratings.rows * kRowFloats * 4.0 / 1e6);
  std::vector<float> w(static_cast<std::size_t>(ratings.rows) * kRowFloats, 0.01f);
  float drift[kRowFloats];
  for (int k = 0; k < kRowFloats; ++k) drift[k] = 1e-7f * static_cast<float>(k);
  std::printf("tiles,rows_touched_per_pass,seconds_per_pass,gb_moved_per_pass\n");
  for (const int tiles : tiles_list) {
    const auto rows = carousel::bench::CountTiles(ratings, tiles, kSeed).rows;
    std::uint64_t touched = 0;
    for (const auto& list : rows) touched += list.size();
    double best = 1e30;
    for (int repeat = 0; repeat < 5; ++repeat) {
      const auto start = std::chrono::steady_clock::now();
      for (int t = 0; t < tiles; ++t)      // a pass: B iterations
        for (int i = 0; i < tiles; ++i) {  // stratum t: tile (i, (i + t) mod B)
          for (const std::uint32_t row :
               rows[static_cast<std::size_t>(i) * tiles + (i + t) % tiles]) {
            float* x = w.data() + static_cast<std::size_t>(row) * kRowFloats;
            for (int k = 0; k < kRowFloats; ++k) x[k] = x[k] * 0.999999f + drift[k];
          }
        }
      best = std::min(
          best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    std::printf("%d,%llu,%.4f,%.2f\n", tiles, static_cast<unsigned long long>(touched), best,
                2.0 * static_cast<double>(touched) * kRowFloats * 4 / 1e9);
  }
  std::printf("# checksum %g\n", static_cast<double>(w[12345]));
  return 0;
}
