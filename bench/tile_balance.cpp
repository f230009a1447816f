// How evenly the tile grid shares a pass's work among the ranks at P = B (issue #39,
// "Balance the ranks"): from the data alone, the waiting that the partition implies. An
// iteration ends when its slowest tile ends, so at B ranks a stratum takes its slowest
// tile's work and every other rank waits for the difference. A tile's work is its data times
// a cost per datum plus the rows it touches times a cost per row:
//
// - mf: ratings x c_rating + touched W rows x (K + 1) c_row, bench/cost_model.py's model,
//   by default at its fit to the 16-core device (17.1 ns a rating, 4.8 ns a touched row
//   element, K = 32);
// - lda: tokens x c_token + pieces (documents with a token in the tile) x c_piece, by
//   default 17 ns a token and 80 ns a piece (the 2-core VM: a one-tile pass of the 10M-token
//   corpus, and what a piece adds at 16 and 64 tiles, bench/README.md "Scale-out").
//
//   tile_balance mf RATINGS_FILE [--c-rating S] [--c-row S] [TILES...]
//   tile_balance lda DOCWORD_FILE [--c-token S] [--c-piece S] [--no-split] [TILES...]
//   (default tiles 2 4 8 16 32 64)
//
// lda's columns are carousel's (WordColumns): a word with more than a block's share of the
// tokens is split among several columns; --no-split gives one column per word, as before
// the split was built.
//
// Prints CSV, per B: the largest tile's data and rows against the mean tile's, a pass's
// work at each stratum's slowest tile and at its mean, the share of a rank's time spent
// waiting, and the speed-ups this model leaves at P = B: over one rank at B tiles (the
// balance alone) and over one rank at one tile (the balance and the extra touched rows).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "tile_counts.hpp"

namespace {

constexpr std::uint64_t kSeed = 1;  // carousel's default --seed
constexpr int kRowFloats = 33;      // mf: K = 32 and a bias

int Usage() {
  std::fprintf(stderr,
               "usage: tile_balance mf RATINGS_FILE [--c-rating S] [--c-row S] [TILES...]\n"
               "       tile_balance lda DOCWORD_FILE [--c-token S] [--c-piece S] [--no-split] "
               "[TILES...]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return Usage();
  const std::string model = argv[1];
  if (model != "mf" && model != "lda") return Usage();
  const bool mf = model == "mf";
  double per_datum = mf ? 1.708e-8 : 1.7e-8;
  double per_row = mf ? 4.82e-9 * kRowFloats : 8.0e-8;
  std::vector<int> tiles_list;
  bool split = true;
  for (int a = 3; a < argc; ++a) {
    const std::string arg = argv[a];
    if (arg == "--no-split") {
      split = false;
      continue;
    }
    if ((arg == "--c-rating" || arg == "--c-token") && a + 1 < argc)
      per_datum = std::atof(argv[++a]);
    else if (arg == "--c-row" && a + 1 < argc)
      per_row = std::atof(argv[++a]) * kRowFloats;
    else if (arg == "--c-piece" && a + 1 < argc)
      per_row = std::atof(argv[++a]);
    else
      tiles_list.push_back(std::atoi(argv[a]));
  }
  if (tiles_list.empty()) tiles_list = {2, 4, 8, 16, 32, 64};
  const carousel::bench::GridEntries entries =
      mf ? carousel::bench::ReadRatingsFile(argv[2], "tile_balance")
         : carousel::bench::ReadDocword(argv[2], "tile_balance");
  std::uint64_t data = 0;
  for (std::uint32_t w : entries.weight) data += w;
  const carousel::bench::TileCounts one = carousel::bench::CountTiles(entries, 1, kSeed);
  const double one_tile =
      per_datum * static_cast<double>(data) + per_row * static_cast<double>(one.rows[0].size());
  std::printf("# %s: %llu %s, %u rows, %u columns; %g s a datum, %g s a touched row\n",
              model.c_str(), static_cast<unsigned long long>(data), mf ? "ratings" : "tokens",
              entries.rows, entries.cols, per_datum, per_row);
  std::printf(
      "tiles,largest_tile_data_over_mean,largest_tile_rows_over_mean,pass_seconds_slowest,"
      "pass_seconds_mean,waiting_percent,speedup_over_one_rank,speedup_over_one_tile\n");
  for (const int b : tiles_list) {
    const carousel::bench::TileCounts counts = carousel::bench::CountTiles(
        !mf && split ? carousel::bench::WithSplitWords(entries, b) : entries, b, kSeed);
    const std::size_t n = counts.data.size();
    double data_max = 0, data_sum = 0, rows_max = 0, rows_sum = 0;
    for (std::size_t t = 0; t < n; ++t) {
      const auto d = static_cast<double>(counts.data[t]);
      const auto r = static_cast<double>(counts.rows[t].size());
      data_max = std::max(data_max, d);
      data_sum += d;
      rows_max = std::max(rows_max, r);
      rows_sum += r;
    }
    double slowest = 0, mean = 0;
    for (int s = 0; s < b; ++s) {  // stratum s: tiles (i, (i + s) mod B), one per rank
      double stratum_max = 0, stratum_sum = 0;
      for (int i = 0; i < b; ++i) {
        const std::size_t t = static_cast<std::size_t>(i) * b + (i + s) % b;
        const double work = per_datum * static_cast<double>(counts.data[t]) +
                            per_row * static_cast<double>(counts.rows[t].size());
        stratum_max = std::max(stratum_max, work);
        stratum_sum += work;
      }
      slowest += stratum_max;
      mean += stratum_sum / b;
    }
    std::printf("%d,%.3f,%.3f,%.4f,%.4f,%.1f,%.2f,%.2f\n", b, data_max / (data_sum / n),
                rows_max / (rows_sum / n), slowest, mean, 100.0 * (1.0 - mean / slowest),
                b * mean / slowest, one_tile / slowest);
  }
  return 0;
}
