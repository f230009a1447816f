// The users' posterior reaches rank 0 a slice at a time (BpmfModel::ForEachUserSlice): any
// slice size gives the same rows, and the slices cover every user once, in order.
#include <gtest/gtest.h>

#include "short_sgld_run.hpp"

namespace carousel {
namespace {

TEST(BpmfUserSlices, AnySliceSizeGivesTheSameRowsInOrder) {
  MfGeneratorOptions g;
  g.users = 120;
  g.items = 40;
  g.ratings = 2000;
  g.rank = 3;
  g.seed = 4;
  ShortSgldRun run(g, 4);
  const MfConfig& c = run.config;
  const MfProblem& problem = run.problem;
  BpmfModel& model = run.model;

  auto collect = [&](std::uint32_t rows) {
    UserSlice all;
    all.mean.resize(problem.rows, c.shape.width());
    all.var.resize(problem.rows, c.shape.width());
    all.last.resize(problem.rows, c.shape.width());
    std::uint32_t next = 0, slices = 0;
    model.ForEachUserSlice(
        [&](const UserSlice& s) {
          EXPECT_EQ(s.first, next);
          EXPECT_LE(s.mean.rows(), rows > 0 ? rows : problem.rows);
          ++slices;
          const auto m = s.mean.rows();
          all.mean.middleRows(s.first, m) = s.mean;
          all.var.middleRows(s.first, m) = s.var;
          all.last.middleRows(s.first, m) = s.last;
          next += static_cast<std::uint32_t>(m);
        },
        rows);
    EXPECT_EQ(next, problem.rows);
    EXPECT_EQ(slices, rows > 0 ? (problem.rows + rows - 1) / rows : 1u);
    return all;
  };
  const UserSlice whole = collect(0), sevens = collect(7), ones = collect(1);
  EXPECT_TRUE(whole.mean == sevens.mean && whole.mean == ones.mean);
  EXPECT_TRUE(whole.var == sevens.var && whole.var == ones.var);
  EXPECT_TRUE(whole.last == sevens.last && whole.last == ones.last);
  EXPECT_GT(whole.var.maxCoeff(), 0.0);  // moments were collected: the check compares numbers
}

}  // namespace
}  // namespace carousel
