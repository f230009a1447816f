// A dense .npy matrix as an MfProblem and this rank's TileShare (dense_npy_loader.hpp).
#include "carousel/io/dense_npy_loader.hpp"

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>

#include "carousel/comm/collective.hpp"
#include "carousel/io/npy.hpp"
#include "carousel/util/byte_buffer.hpp"
#include "carousel/util/error.hpp"

namespace carousel::io {
namespace {

constexpr std::uint64_t kNone = std::numeric_limits<std::uint64_t>::max();

struct Layout {
  NpyHeader header;
  std::uint32_t rows = 0, cols = 0;
  bool complex = false;
  bool wide = false;  // float64 parts (f8, c16) rather than float32 (f4, c8)
};

Layout ReadLayout(const std::string& path) {
  Layout l;
  l.header = ReadNpyHeader(path);
  const std::string& d = l.header.descr;
  if (d == "<f4" || d == "<f8" || d == "<c8" || d == "<c16") {
    l.complex = d[1] == 'c';
    l.wide = d == "<f8" || d == "<c16";
  } else {
    throw InputError(path,
                     "dense input must be little-endian float32, float64, complex64 or "
                     "complex128 (descr '<f4', '<f8', '<c8', '<c16'), not '" +
                         d + "'");
  }
  if (l.header.fortran_order)
    throw InputError(path, "dense input must be in C order (numpy.ascontiguousarray)");
  if (l.header.shape.size() != 2)
    throw InputError(path, "dense input must be a 2-d array, not " +
                               std::to_string(l.header.shape.size()) + "-d");
  for (std::size_t n : l.header.shape)
    if (n == 0 || n >= std::numeric_limits<std::uint32_t>::max())
      throw InputError(path, "dense input has a dimension of size " + std::to_string(n));
  l.rows = static_cast<std::uint32_t>(l.header.shape[0]);
  l.cols = static_cast<std::uint32_t>(l.header.shape[1]);
  return l;
}

// Element j of a row's bytes as a double (real) or its real and imaginary parts.
double Part(const char* bytes, std::size_t index, bool wide) {
  if (wide) {
    double v;
    std::memcpy(&v, bytes + index * sizeof v, sizeof v);
    return v;
  }
  float v;
  std::memcpy(&v, bytes + index * sizeof v, sizeof v);
  return v;
}

IdMap Range(std::uint32_t n) {
  std::vector<std::int64_t> ids(n);
  for (std::uint32_t i = 0; i < n; ++i) ids[i] = i;
  return IdMap::FromIds(std::move(ids));
}

// The sum over rows, in row order, of every rank's per-row sums (row id, sum).
double RowOrderedSum(Communicator& comm, const std::vector<std::pair<std::uint32_t, double>>& mine,
                     std::uint32_t rows) {
  std::vector<double> by_row(rows, 0.0);
  for (const std::string& part : comm.AllGather(PodBytes(mine))) {
    std::vector<std::pair<std::uint32_t, double>> sums;
    AppendPods(part, sums);
    for (const auto& [row, sum] : sums) by_row[row] = sum;
  }
  double total = 0.0;
  for (double s : by_row) total += s;
  return total;
}

}  // namespace

bool IsNpyFile(const std::string& path) {
  constexpr std::string_view kExt = ".npy";
  if (path.size() >= kExt.size() && path.compare(path.size() - kExt.size(), kExt.size(), kExt) == 0)
    return true;
  std::ifstream in(path, std::ios::binary);
  char magic[6] = {};
  return in.read(magic, sizeof magic) && std::memcmp(magic, "\x93NUMPY", 6) == 0;
}

LoadedDense LoadDenseNpy(Communicator& comm, const std::string& path, int tiles,
                         std::uint64_t seed) {
  const auto start = std::chrono::steady_clock::now();
  LoadedDense out;
  LoadedMf& mf = out.data;
  Layout l;
  RunCollectively(comm, [&] {
    RankLayout(tiles, comm.size());  // refuses a tile count the ranks cannot share
    l = ReadLayout(path);
  });
  out.complex = l.complex;
  const TileGrid grid(l.rows, l.cols, tiles, seed);
  const RankLayout ranks(tiles, comm.size());
  const auto b = static_cast<std::size_t>(grid.blocks());
  const std::size_t parts_per_tile = TileShare::kPartsPerTile;
  TileShare& share = mf.share;
  share.first_row_block = ranks.FirstRowBlock(comm.rank());
  share.parts.resize(static_cast<std::size_t>(ranks.blocks_per_rank()) * b * parts_per_tile);

  // This rank's rows, read one at a time; the first non-finite element's flat index.
  std::uint64_t bad = kNone;
  double bad_value = 0.0;
  std::vector<std::pair<std::uint32_t, double>> row_sums;
  RunCollectively(comm, [&] {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path, "cannot open: " + std::string(std::strerror(errno)));
    const std::size_t row_bytes = static_cast<std::size_t>(l.cols) * l.header.item_size;
    std::string row(row_bytes, '\0');
    for (int k = 0; k < ranks.blocks_per_rank(); ++k) {
      const int block = share.first_row_block + k;
      const auto& members = grid.rows().Members(block);
      const std::size_t n = members.size();
      // Each part's size is known: its rows times the columns of its column block.
      for (std::size_t jb = 0; jb < b; ++jb)
        for (std::size_t p = 0; p < parts_per_tile; ++p) {
          const std::size_t first = p * n / parts_per_tile, last = (p + 1) * n / parts_per_tile;
          share.parts[((k * b) + jb) * parts_per_tile + p].reserve(
              (last - first) * grid.cols().Members(static_cast<int>(jb)).size());
        }
      for (std::uint32_t i : members) {
        in.seekg(static_cast<std::streamoff>(l.header.data_offset + i * row_bytes));
        in.read(&row[0], static_cast<std::streamsize>(row_bytes));
        if (!in) throw InputError(path, "read failed");
        mf.parsed_bytes += row_bytes;
        const std::uint32_t local_row = grid.rows().LocalIndex(i);
        const std::size_t part_of_row = local_row * parts_per_tile / n;
        double sum = 0.0;
        for (std::uint32_t j = 0; j < l.cols; ++j) {
          double x;
          bool finite;
          if (l.complex) {
            const double re = Part(row.data(), 2 * j, l.wide),
                         im = Part(row.data(), 2 * j + 1, l.wide);
            finite = std::isfinite(re) && std::isfinite(im);
            x = finite ? std::hypot(re, im)
                       : (std::isnan(re)   ? re
                          : std::isnan(im) ? im
                                           : HUGE_VAL);
          } else {
            x = Part(row.data(), j, l.wide);
            finite = std::isfinite(x);
          }
          const auto value = static_cast<float>(x);
          if (!finite || !std::isfinite(value)) {
            const std::uint64_t flat = static_cast<std::uint64_t>(i) * l.cols + j;
            if (flat < bad) {
              bad = flat;
              bad_value = x;
            }
            continue;
          }
          sum = AddRating(sum, std::abs(value));
          const int jb = grid.cols().BlockOf(j);
          share.parts[((k * b) + static_cast<std::size_t>(jb)) * parts_per_tile + part_of_row]
              .push_back({local_row, grid.cols().LocalIndex(j), value});
        }
        row_sums.emplace_back(i, sum);
      }
    }
  });
  // The first bad element over all ranks, named by every rank alike.
  std::uint64_t first_bad = kNone;
  double first_value = 0.0;
  for (const std::string& part :
       comm.AllGather(PodBytes(std::vector<std::pair<std::uint64_t, double>>{{bad, bad_value}}))) {
    std::vector<std::pair<std::uint64_t, double>> theirs;
    AppendPods(part, theirs);
    if (theirs[0].first < first_bad) {
      first_bad = theirs[0].first;
      first_value = theirs[0].second;
    }
  }
  RunCollectively(comm, [&] {
    if (first_bad == kNone) return;
    const std::string what = std::isnan(first_value)   ? "NaN"
                             : std::isinf(first_value) ? "infinite"
                                                       : "too large for a float";
    throw InputError(path, "element [" + std::to_string(first_bad / l.cols) + ", " +
                               std::to_string(first_bad % l.cols) + "] is " + what +
                               " (every element must be finite)");
  });
  SortParts(share);

  MfProblem& problem = mf.problem;
  problem.rows = l.rows;
  problem.cols = l.cols;
  const double sum = RowOrderedSum(comm, row_sums, l.rows);
  TrainingCounts counts;
  for (const std::string& part : comm.AllGather(CountsToBytes(CountTraining(share, grid))))
    MergeCounts(counts, CountsFromBytes(part));
  const float mu = TrainingMean(sum, counts.count);
  std::vector<std::pair<std::uint32_t, double>> deviations;
  // Per row, over its tiles in column-block order (the same at any rank count: the grid
  // depends on --tiles and the seed only).
  for (int k = 0; k < ranks.blocks_per_rank(); ++k) {
    const auto& members = grid.rows().Members(share.first_row_block + k);
    std::vector<double> dev(members.size(), 0.0);
    for (std::size_t t = 0; t < b * parts_per_tile; ++t)
      for (const LocalRating& r : share.parts[k * b * parts_per_tile + t])
        dev[r.row] = AddSquaredDeviation(dev[r.row], std::abs(r.value), mu);
    for (std::size_t r = 0; r < members.size(); ++r) deviations.emplace_back(members[r], dev[r]);
  }
  const double squared_deviations = RowOrderedSum(comm, deviations, l.rows);
  SetTrainingSummary(problem, counts, tiles, sum, squared_deviations);
  mf.users = Range(l.rows);
  mf.items = Range(l.cols);
  mf.parse_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace carousel::io
