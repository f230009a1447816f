#include "carousel/data/mf_problem.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "carousel/util/byte_buffer.hpp"
#include "carousel/util/crc64.hpp"
#include "carousel/util/mix64.hpp"

namespace carousel {
namespace {

std::uint64_t RatingHash(const Rating& r) {
  std::uint32_t bits = 0;
  std::memcpy(&bits, &r.value, sizeof bits);
  return SplitMix64((static_cast<std::uint64_t>(r.row) << 32 | r.col) ^ SplitMix64(bits));
}

}  // namespace

TrainingCounts CountTraining(const TileShare& share, const TileGrid& grid) {
  const int b = grid.blocks();
  TrainingCounts counts;
  counts.count = share.size();
  counts.col_degree.assign(grid.cols().size(), 0);
  counts.stratum_sizes.assign(static_cast<std::size_t>(b), 0);
  std::vector<std::uint32_t> row_degree(grid.rows().size(), 0);
  for (std::size_t part = 0; part < share.parts.size(); ++part)
    for (const LocalRating& local : share.parts[part]) {
      const Rating r = share.Global(grid, part, local);
      counts.max_row_degree = std::max<std::uint64_t>(counts.max_row_degree, ++row_degree[r.row]);
      counts.col_degree[r.col]++;
      const int i = grid.rows().BlockOf(r.row), j = grid.cols().BlockOf(r.col);
      counts.stratum_sizes[static_cast<std::size_t>(((j - i) % b + b) % b)]++;
      counts.checksum += RatingHash(r);
      counts.lo = std::min(counts.lo, r.value);
      counts.hi = std::max(counts.hi, r.value);
    }
  return counts;
}

void MergeCounts(TrainingCounts& total, const TrainingCounts& part) {
  if (total.col_degree.empty()) {
    total = part;
    return;
  }
  total.count += part.count;
  total.max_row_degree = std::max(total.max_row_degree, part.max_row_degree);
  for (std::size_t c = 0; c < total.col_degree.size(); ++c)
    total.col_degree[c] += part.col_degree[c];
  for (std::size_t s = 0; s < total.stratum_sizes.size(); ++s)
    total.stratum_sizes[s] += part.stratum_sizes[s];
  total.checksum += part.checksum;
  total.lo = std::min(total.lo, part.lo);
  total.hi = std::max(total.hi, part.hi);
}

std::string CountsToBytes(const TrainingCounts& counts) {
  ByteWriter out;
  out.Put(counts.count);
  out.Put(counts.max_row_degree);
  out.PutVector(counts.col_degree);
  out.PutVector(counts.stratum_sizes);
  out.Put(counts.checksum);
  out.Put(counts.lo);
  out.Put(counts.hi);
  return out.Take();
}

TrainingCounts CountsFromBytes(const std::string& bytes) {
  ByteReader in(bytes);
  TrainingCounts counts;
  counts.count = in.Get<std::uint64_t>();
  counts.max_row_degree = in.Get<std::uint64_t>();
  counts.col_degree = in.GetVector<std::uint32_t>();
  counts.stratum_sizes = in.GetVector<std::uint64_t>();
  counts.checksum = in.Get<std::uint64_t>();
  counts.lo = in.Get<float>();
  counts.hi = in.Get<float>();
  return counts;
}

void SortParts(TileShare& share) {
  std::vector<LocalRating> sorted;
  std::vector<std::uint64_t> start;
  for (std::vector<LocalRating>& part : share.parts) {
    if (part.size() < 2 || std::is_sorted(part.begin(), part.end(), LocalOrder)) continue;
    std::uint32_t lo = part.front().row, hi = lo;
    for (const LocalRating& r : part) {
      lo = std::min(lo, r.row);
      hi = std::max(hi, r.row);
    }
    start.assign(static_cast<std::size_t>(hi - lo) + 2, 0);
    for (const LocalRating& r : part) start[r.row - lo + 1]++;
    for (std::size_t i = 1; i < start.size(); ++i) start[i] += start[i - 1];
    sorted.resize(part.size());
    std::vector<std::uint64_t> next(start.begin(), start.end() - 1);
    for (const LocalRating& r : part) sorted[next[r.row - lo]++] = r;
    for (std::size_t i = 0; i + 1 < start.size(); ++i)
      std::sort(sorted.begin() + static_cast<std::ptrdiff_t>(start[i]),
                sorted.begin() + static_cast<std::ptrdiff_t>(start[i + 1]), LocalOrder);
    part.swap(sorted);
  }
}

std::uint64_t TileShare::size() const {
  std::uint64_t n = 0;
  for (const auto& part : parts) n += part.size();
  return n;
}

Rating TileShare::Global(const TileGrid& grid, std::size_t part, const LocalRating& r) const {
  const auto b = static_cast<std::size_t>(grid.blocks());
  const std::size_t tile = part / kPartsPerTile;
  const int row_block = first_row_block + static_cast<int>(tile / b);
  const int col_block = static_cast<int>(tile % b);
  return {grid.rows().Members(row_block)[r.row], grid.cols().Members(col_block)[r.col], r.value};
}

std::size_t TileShare::TileOf(const TileGrid& grid, std::uint32_t row, std::uint32_t col) const {
  return static_cast<std::size_t>(grid.rows().BlockOf(row) - first_row_block) *
             static_cast<std::size_t>(grid.blocks()) +
         static_cast<std::size_t>(grid.cols().BlockOf(col));
}

std::size_t TileShare::PartOf(const TileGrid& grid, std::uint32_t row, std::uint32_t col) const {
  const auto rows =
      static_cast<std::uint64_t>(grid.rows().Members(grid.rows().BlockOf(row)).size());
  return TileOf(grid, row, col) * kPartsPerTile +
         static_cast<std::size_t>(grid.rows().LocalIndex(row) * kPartsPerTile / rows);
}

LocalRating TileShare::Local(const TileGrid& grid, const Rating& r) const {
  return {grid.rows().LocalIndex(r.row), grid.cols().LocalIndex(r.col), r.value};
}

void SetTrainingSummary(MfProblem& problem, const TrainingCounts& counts, int tiles, double sum,
                        double squared_deviations) {
  problem.train_count = counts.count;
  const double n = static_cast<double>(counts.count);
  problem.mu = TrainingMean(sum, counts.count);
  problem.lo = counts.lo;
  problem.hi = counts.hi;
  problem.sd_train = counts.count ? std::sqrt(squared_deviations / n) : 0.0;
  std::uint64_t max_degree = counts.max_row_degree;
  for (std::uint32_t d : counts.col_degree) max_degree = std::max<std::uint64_t>(max_degree, d);
  problem.max_degree = max_degree;
  problem.col_degree = counts.col_degree;
  problem.tiles = tiles;
  problem.stratum_sizes = counts.stratum_sizes;
  problem.train_checksum = counts.checksum;
}

TileGrid MfGrid(const MfProblem& problem, int tiles, std::uint64_t seed) {
  return TileGrid(problem.rows, problem.cols, tiles, seed, problem.col_weights);
}

namespace {

// The whole test set's count and checksum, which every rank records whatever part it keeps.
void DescribeWholeTestSet(MfProblem& problem) {
  problem.test_count = problem.test.size();
  problem.test_checksum = Crc64Of(problem.test);
}

}  // namespace

void PartitionTestSet(MfProblem& problem, const TileGrid& grid, const RankLayout& layout, int rank,
                      const std::function<void(const std::vector<bool>&)>& keep_also) {
  DescribeWholeTestSet(problem);
  std::vector<bool> keep(problem.test.size());
  std::vector<TestRating> mine;
  problem.test_index.clear();
  for (std::size_t k = 0; k < problem.test.size(); ++k) {
    const TestRating& t = problem.test[k];
    const int block = t.row == kUnknownId ? 0 : grid.rows().BlockOf(t.row);
    keep[k] = layout.RankOfRowBlock(block) == rank;
    if (!keep[k]) continue;
    mine.push_back(t);
    problem.test_index.push_back(k);
  }
  problem.test = std::move(mine);
  if (keep_also) keep_also(keep);
}

MfProblem WholeMfProblem(const RatingMatrix& train, std::vector<TestRating> test, int tiles,
                         std::uint64_t seed, TileShare* share) {
  MfProblem problem;
  problem.rows = train.rows;
  problem.cols = train.cols;
  problem.test = std::move(test);
  DescribeWholeTestSet(problem);  // one process keeps it all
  for (std::size_t k = 0; k < problem.test.size(); ++k) problem.test_index.push_back(k);
  problem.col_weights.assign(train.cols, 0);
  for (const Rating& r : train.entries) problem.col_weights[r.col]++;
  const TileGrid grid = MfGrid(problem, tiles, seed);
  double sum = 0.0, squared_deviations = 0.0;
  for (const Rating& r : train.entries) sum = AddRating(sum, r.value);
  const float mu = TrainingMean(sum, train.entries.size());
  for (const Rating& r : train.entries)
    squared_deviations = AddSquaredDeviation(squared_deviations, r.value, mu);
  share->first_row_block = 0;  // one process runs every row block
  share->parts.assign(
      static_cast<std::size_t>(tiles) * static_cast<std::size_t>(tiles) * TileShare::kPartsPerTile,
      {});
  for (const Rating& r : train.entries)
    share->parts[share->PartOf(grid, r.row, r.col)].push_back(share->Local(grid, r));
  SortParts(*share);
  SetTrainingSummary(problem, CountTraining(*share, grid), tiles, sum, squared_deviations);
  return problem;
}

}  // namespace carousel
