// BpmfModel keeps its posterior moment sums row-major (one contiguous pass per evaluation)
// but its checkpoints hold them column-major, as every earlier build wrote them, so that
// older checkpoints still resume. The saved sums are read back here in column-major order
// and checked against the posterior means the model reports (mean = sum / n, the same
// division, so equal bit for bit); the negative control reads the same bytes row-major and
// must disagree. A save / restore / save round trip must give the same bytes.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "carousel/util/byte_buffer.hpp"
#include "short_sgld_run.hpp"

namespace carousel {
namespace {

enum class Order { kColumnMajor, kRowMajorFault };

// Element (r, c) of a rows x cols matrix stored in `data` in `order`.
double At(const std::vector<double>& data, Eigen::Index rows, Eigen::Index cols, Eigen::Index r,
          Eigen::Index c, Order order) {
  return order == Order::kColumnMajor ? data[static_cast<std::size_t>(c * rows + r)]
                                      : data[static_cast<std::size_t>(r * cols + c)];
}

// How many elements of sum / n differ from mean(id(r), c).
template <typename Mean>
int MeanMismatches(const std::vector<double>& sum, Eigen::Index rows, Eigen::Index cols, double n,
                   const Mean& mean, const std::function<Eigen::Index(Eigen::Index)>& id,
                   Order order) {
  int bad = 0;
  for (Eigen::Index r = 0; r < rows; ++r)
    for (Eigen::Index c = 0; c < cols; ++c)
      if (At(sum, rows, cols, r, c, order) / n != mean(id(r), c)) ++bad;
  return bad;
}

TEST(BpmfCheckpointLayout, MomentSumsAreSavedColumnMajor) {
  MfGeneratorOptions g;
  g.users = 90;
  g.items = 40;
  g.ratings = 1500;
  g.rank = 3;
  g.seed = 6;
  ShortSgldRun run(g, 2);  // rank 3: width 4 with the bias, so the two orders differ
  const MfConfig& c = run.config;
  const MfProblem& problem = run.problem;
  BpmfModel& model = run.model;
  const TileEngine& engine = run.engine;
  const double n = static_cast<double>(model.trace().back().samples);
  ASSERT_GT(n, 1.0);
  const Eigen::Index width = c.shape.width();

  UserSlice users;
  model.ForEachUserSlice([&](const UserSlice& s) { users = s; }, 0);
  ASSERT_EQ(users.mean.rows(), static_cast<Eigen::Index>(problem.rows));
  ASSERT_GT(users.var.maxCoeff(), 0.0);  // samples differ: the sums are not all alike

  // Row blocks: encoded block state, then sum and sum_sq (rows x width, column-major).
  for (int b = 0; b < c.chain.tiles; ++b) {
    const std::vector<std::uint32_t>& members = engine.grid().rows().Members(b);
    const auto rows = static_cast<Eigen::Index>(members.size());
    const std::string bytes = model.SaveRowBlock(b);
    ByteReader in(bytes);
    in.GetBytes();
    const std::vector<double> sum = in.GetVector<double>();
    const std::vector<double> sum_sq = in.GetVector<double>();
    ASSERT_EQ(sum.size(), static_cast<std::size_t>(rows * width));
    ASSERT_EQ(sum_sq.size(), sum.size());
    const auto global = [&](Eigen::Index r) { return static_cast<Eigen::Index>(members[r]); };
    const auto mean = [&](Eigen::Index i, Eigen::Index k) { return users.mean(i, k); };
    EXPECT_EQ(MeanMismatches(sum, rows, width, n, mean, global, Order::kColumnMajor), 0)
        << "row block " << b;
    EXPECT_GT(MeanMismatches(sum, rows, width, n, mean, global, Order::kRowMajorFault), 0)
        << "row block " << b << ": the negative control cannot tell the orders apart";
    // sum_sq: var = sum_sq / n - mean^2 (clamped at 0); to rounding, as MeanVar may fuse.
    for (Eigen::Index r = 0; r < rows; ++r)
      for (Eigen::Index k = 0; k < width; ++k) {
        const double m = users.mean(global(r), k);
        const double second = At(sum_sq, rows, width, r, k, Order::kColumnMajor) / n;
        EXPECT_NEAR(std::max(0.0, second - m * m), users.var(global(r), k),
                    1e-12 * std::max(1.0, second));
      }
    model.RestoreRowBlock(b, bytes);
    EXPECT_EQ(model.SaveRowBlock(b), bytes) << "row block " << b << " does not round-trip";
  }

  // Global state: hyperparameters, the sampler's state, the sample count, then the sums
  // of H (items x width, column-major) and of its squares.
  const MfPosterior post = model.Posterior();
  const std::string global = model.SaveGlobal();
  ByteReader in(global);
  in.GetVector<double>();
  in.GetVector<double>();
  EXPECT_EQ(in.Get<std::uint64_t>(), static_cast<std::uint64_t>(n));
  const std::vector<double> h_sum = in.GetVector<double>();
  const auto items = static_cast<Eigen::Index>(problem.cols);
  ASSERT_EQ(h_sum.size(), static_cast<std::size_t>(items * width));
  const auto same = [](Eigen::Index j) { return j; };
  const auto h_mean = [&](Eigen::Index j, Eigen::Index k) { return post.h_mean(j, k); };
  EXPECT_EQ(MeanMismatches(h_sum, items, width, n, h_mean, same, Order::kColumnMajor), 0);
  EXPECT_GT(MeanMismatches(h_sum, items, width, n, h_mean, same, Order::kRowMajorFault), 0);
  model.RestoreGlobal(global);
  EXPECT_EQ(model.SaveGlobal(), global) << "the global state does not round-trip";
}

}  // namespace
}  // namespace carousel
