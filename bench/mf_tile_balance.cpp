// How evenly carousel mf's tile grid shares a pass's work among ranks at P = B (issue #39,
// "Balance the ranks"): from the data alone, the waiting the partition implies. An iteration
// ends when its slowest tile ends, so at B ranks a stratum takes its slowest tile's work and
// a rank waits for the difference. A tile's work is, as in bench/cost_model.py, its ratings
// times c_rating plus its touched W rows times (K + 1) c_row (DESIGN.md section 9).
//
//   mf_tile_balance RATINGS_FILE [--c-rating S] [--c-row S] [TILES...]   (default 2 4 ... 64)
//
// The default constants are cost_model.py's fit to the 16-core device (17.1 ns a rating,
// 4.8 ns a touched row element, K = 32). Prints CSV, per B: the largest tile's ratings and
// touched rows against the mean tile's (over every stratum), a pass's work at the slowest
// tile of each stratum and at the mean, and the share of a rank's time spent waiting.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "tile_counts.hpp"

namespace {

constexpr int kRowFloats = 33;      // K = 32 and a bias
constexpr std::uint64_t kSeed = 1;  // carousel's default --seed

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: mf_tile_balance RATINGS_FILE [--c-rating S] [--c-row S] [TILES...]\n");
    return 2;
  }
  double c_rating = 1.708e-8, c_row = 4.82e-9;
  std::vector<int> tiles_list;
  for (int a = 2; a < argc; ++a) {
    if (std::strcmp(argv[a], "--c-rating") == 0 && a + 1 < argc)
      c_rating = std::atof(argv[++a]);
    else if (std::strcmp(argv[a], "--c-row") == 0 && a + 1 < argc)
      c_row = std::atof(argv[++a]);
    else
      tiles_list.push_back(std::atoi(argv[a]));
  }
  if (tiles_list.empty()) tiles_list = {2, 4, 8, 16, 32, 64};
  const carousel::bench::RatingsFile ratings =
      carousel::bench::ReadRatingsFile(argv[1], "mf_tile_balance");
  const double c_touch = c_row * kRowFloats;
  std::printf("# %zu ratings, %u users, %u items; c_rating %g s, c_row %g s\n", ratings.user.size(),
              ratings.users, ratings.items, c_rating, c_row);
  std::printf(
      "tiles,largest_tile_ratings_over_mean,largest_tile_rows_over_mean,pass_seconds_slowest,"
      "pass_seconds_mean,waiting_percent\n");
  for (const int b : tiles_list) {
    const carousel::bench::TileCounts counts = carousel::bench::CountTiles(ratings, b, kSeed);
    const std::size_t n = counts.ratings.size();
    double ratings_max = 0, ratings_sum = 0, rows_max = 0, rows_sum = 0;
    for (std::size_t t = 0; t < n; ++t) {
      const auto r = static_cast<double>(counts.ratings[t]);
      const auto w = static_cast<double>(counts.rows[t].size());
      ratings_max = std::max(ratings_max, r);
      ratings_sum += r;
      rows_max = std::max(rows_max, w);
      rows_sum += w;
    }
    double slowest = 0, mean = 0;
    for (int s = 0; s < b; ++s) {  // stratum s: tiles (i, (i + s) mod B), one per rank
      double stratum_max = 0, stratum_sum = 0;
      for (int i = 0; i < b; ++i) {
        const std::size_t t = static_cast<std::size_t>(i) * b + (i + s) % b;
        const double work = c_rating * static_cast<double>(counts.ratings[t]) +
                            c_touch * static_cast<double>(counts.rows[t].size());
        stratum_max = std::max(stratum_max, work);
        stratum_sum += work;
      }
      slowest += stratum_max;
      mean += stratum_sum / b;
    }
    std::printf("%d,%.3f,%.3f,%.4f,%.4f,%.1f\n", b, ratings_max / (ratings_sum / n),
                rows_max / (rows_sum / n), slowest, mean, 100.0 * (1.0 - mean / slowest));
  }
  return 0;
}
