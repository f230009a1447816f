// RunCoupledStep (model/coupled_step.hpp): the Sampler coupling protocol run in the order
// sampler.hpp documents, with a recording sampler: sums before the steps, every step (and
// the hook after it) before any gradient after the step, each group's AfterSteps right after
// its gradients, the sums after the steps, and EndIteration with both totals.
#include "carousel/model/coupled_step.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "carousel/comm/communicator.hpp"
#include "carousel/sampler/hamcmc.hpp"
#include "carousel/util/error.hpp"

namespace carousel {
namespace {

// theta is 1 x 1. PreSums: {theta}; StepWithSums: theta += total of the PreSums;
// PostSums: {theta}; AfterStep records the point it sees and the gradient it is given.
class RecordingSampler : public Sampler {
 public:
  explicit RecordingSampler(std::vector<std::string>& log) : log_(log) {}
  std::string name() const override { return "recording"; }
  int aux_count() const override { return 0; }
  void Step(BlockState&, const BlockGradient&, double, const NoiseKey&) const override {
    log_.push_back("Step");  // never called by the protocol
  }
  int pre_sum_count() const override { return 1; }
  void PreSums(const BlockState& block, const BlockGradient&, const NoiseKey&,
               double* out) const override {
    out[0] = block.theta(0, 0);
    log_.push_back("pre " + V(block.theta(0, 0)));
  }
  void StepWithSums(BlockState& block, const BlockGradient& gradient, double step,
                    const NoiseKey& noise, const double* pre) const override {
    log_.push_back("step " + V(block.theta(0, 0)) + " g " + V(gradient.lik_sum(0, 0)) + " eps " +
                   V(step) + " t " + std::to_string(noise.iteration));
    block.theta(0, 0) += static_cast<float>(pre[0]);
  }
  bool needs_gradient_after_step() const override { return true; }
  void AfterStep(BlockState& block, const BlockGradient& at_new) const override {
    log_.push_back("after " + V(block.theta(0, 0)) + " g " + V(at_new.lik_sum(0, 0)));
  }
  void AfterStep(BlockState& block, const BlockGradient& at_new,
                 const BlockGradient& at_old) const override {
    log_.push_back("after " + V(block.theta(0, 0)) + " g " + V(at_new.lik_sum(0, 0)) + " old " +
                   V(at_old.lik_sum(0, 0)));
  }
  int post_sum_count() const override { return 1; }
  void PostSums(const BlockState& block, double* out) const override { out[0] = block.theta(0, 0); }
  void EndIteration(const double* pre, const double* post, double) override {
    log_.push_back("end " + V(pre[0]) + " " + V(post[0]));
  }

 private:
  static std::string V(double v) { return std::to_string(static_cast<long long>(v)); }
  std::vector<std::string>& log_;
};

struct Fixture {
  std::vector<BlockState> states;
  std::vector<Matrix> gradients;
  Eigen::VectorXf prior = Eigen::VectorXf::Zero(1);
  std::vector<std::uint32_t> ids{0};
  std::vector<CoupledBlock> blocks;

  explicit Fixture(const std::vector<int>& keys) {
    states.resize(keys.size());
    gradients.resize(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) {
      states[i].theta = Matrix::Constant(1, 1, static_cast<float>(i + 1));
      gradients[i] = Matrix::Constant(1, 1, static_cast<float>(10 * (i + 1)));
    }
    for (std::size_t i = 0; i < keys.size(); ++i)
      blocks.push_back({keys[i], &states[i], BlockGradient{gradients[i], 1.0, 1.0, prior},
                        NoiseKey{1, Purpose::kNoiseRow, 7, &ids}});
  }
};

TEST(CoupledStep, RunsTheProtocolInOrder) {
  std::vector<std::string> log;
  RecordingSampler sampler(log);
  auto comm = MakeSerialCommunicator();
  Fixture f({3, 1, 2, 0});
  Matrix new_point(1, 1);
  CoupledStepHooks hooks;
  hooks.after_move = [&](BlockState& b) {
    b.theta = -b.theta;  // visible to AfterStep and PostSums only if run before them
    log.push_back("move");
  };
  hooks.gradients_after_step = [&](std::size_t g, GradientsAfterStep& out) {
    log.push_back("gradients " + std::to_string(g));
    new_point(0, 0) = static_cast<float>(100 * (g + 1));  // one buffer, reused per group
    for (int i = 0; i < 2; ++i)
      out.at_new_point.push_back(BlockGradient{new_point, 1.0, 1.0, f.prior});
  };
  RunCoupledStep(sampler, *comm, f.blocks, 2, 2.0, hooks);
  // Pre total 1 + 2 + 3 + 4 = 10; new points -(1 + 10) .. -(4 + 10); post total -50.
  const std::vector<std::string> expected = {"pre 1",
                                             "pre 2",
                                             "pre 3",
                                             "pre 4",
                                             "step 1 g 10 eps 2 t 7",
                                             "move",
                                             "step 2 g 20 eps 2 t 7",
                                             "move",
                                             "step 3 g 30 eps 2 t 7",
                                             "move",
                                             "step 4 g 40 eps 2 t 7",
                                             "move",
                                             "gradients 0",
                                             "after -11 g 100",
                                             "after -12 g 100",
                                             "gradients 1",
                                             "after -13 g 200",
                                             "after -14 g 200",
                                             "end 10 -50"};
  EXPECT_EQ(log, expected);
}

TEST(CoupledStep, PassesTheCurvaturePair) {
  std::vector<std::string> log;
  RecordingSampler sampler(log);
  auto comm = MakeSerialCommunicator();
  Fixture f({0, 1});
  Matrix at_new = Matrix::Constant(1, 1, 5), at_old = Matrix::Constant(1, 1, 6);
  CoupledStepHooks hooks;
  hooks.gradients_after_step = [&](std::size_t, GradientsAfterStep& out) {
    for (int i = 0; i < 2; ++i) {
      out.at_new_point.push_back(BlockGradient{at_new, 1.0, 1.0, f.prior});
      out.at_gradient_point.push_back(BlockGradient{at_old, 1.0, 1.0, f.prior});
    }
  };
  RunCoupledStep(sampler, *comm, f.blocks, 2, 0.5, hooks);
  EXPECT_EQ(log[4], "after 4 g 5 old 6");  // 1 + (1 + 2), no after_move
  EXPECT_EQ(log[5], "after 5 g 5 old 6");
}

// Negative controls of the checks: blocks not in whole groups, a missing gradient callback
// and a callback giving the wrong number of gradients are bugs of the caller.
TEST(CoupledStep, RefusesMalformedCalls) {
  std::vector<std::string> log;
  RecordingSampler sampler(log);
  auto comm = MakeSerialCommunicator();
  Fixture f({0, 1, 2});
  EXPECT_THROW(RunCoupledStep(sampler, *comm, f.blocks, 2, 0.5, {}), Error);
  Fixture g({0, 1});
  EXPECT_THROW(RunCoupledStep(sampler, *comm, g.blocks, 2, 0.5, {}), Error);
  CoupledStepHooks hooks;
  Matrix m = Matrix::Zero(1, 1);
  hooks.gradients_after_step = [&](std::size_t, GradientsAfterStep& out) {
    out.at_new_point.push_back(BlockGradient{m, 1.0, 1.0, g.prior});
  };
  EXPECT_THROW(RunCoupledStep(sampler, *comm, g.blocks, 2, 0.5, hooks), Error);
}

// Mirroring inside the protocol (amf's CoupledStep): HAMCMC's newest pair must be formed
// from the mirrored sample, s_t = |theta_t| - theta_{t-M} (hamcmc.hpp documents the slots:
// with M = 3 the newest s is aux[3]). Target N(0, 1) per element, started near 0 with a
// large step so that elements cross 0 and are reflected. The negative control mirrors theta
// alone (what Sampler::MirrorAtZero does for samplers without memory): the stored s_t then
// still points at the unreflected proposal. The same for columns held fixed after the move
// (amf's --fix-rows, Sampler::HoldLeadingColumns): s_t must be held value - theta_{t-M}.
enum class AfterMove { kMirror, kMirrorThetaOnly, kHold, kHoldThetaOnly };

double WorstPairError(AfterMove constraint, int* reflected) {
  Hamcmc sampler(3, 1.0, 1.0);
  auto comm = MakeSerialCommunicator();
  const Eigen::VectorXf prior = Eigen::VectorXf::Zero(4);
  std::vector<std::uint32_t> ids(8);
  for (std::uint32_t i = 0; i < 8; ++i) ids[i] = i;
  BlockState block;
  block.theta = Matrix::Constant(8, 4, 0.05f);
  sampler.InitAux(block);
  Matrix lik, lik_new;
  double worst = 0.0;
  *reflected = 0;
  for (std::uint64_t t = 1; t <= 40; ++t) {
    const Matrix before = sampler.GradientPoint(block);  // theta_{t-M}
    lik = -before;
    const std::vector<CoupledBlock> blocks = {
        {0, &block, BlockGradient{lik, 1.0, 1.0, prior}, NoiseKey{3, Purpose::kNoiseRow, t, &ids}}};
    CoupledStepHooks hooks;
    const Matrix held = Matrix::Constant(8, 2, 0.3f);
    hooks.after_move = [&](BlockState& b) {
      switch (constraint) {
        case AfterMove::kMirror:
        case AfterMove::kMirrorThetaOnly:
          *reflected += static_cast<int>((b.theta.array() < 0.0f).count());
          if (constraint == AfterMove::kMirror)
            sampler.MirrorAtZero(b);
          else
            b.theta = b.theta.cwiseAbs();
          break;
        case AfterMove::kHold:
        case AfterMove::kHoldThetaOnly:
          *reflected += static_cast<int>((b.theta.leftCols(2).array() != 0.3f).count());
          if (constraint == AfterMove::kHold)
            sampler.HoldLeadingColumns(b, held);
          else
            b.theta.leftCols(2) = held;
          break;
      }
    };
    hooks.gradients_after_step = [&](std::size_t, GradientsAfterStep& out) {
      lik_new = -block.theta;
      out.at_new_point.push_back(BlockGradient{lik_new, 1.0, 1.0, prior});
    };
    RunCoupledStep(sampler, *comm, blocks, 1, 0.5, hooks);
    if (constraint == AfterMove::kMirror || constraint == AfterMove::kMirrorThetaOnly)
      EXPECT_GE(block.theta.minCoeff(), 0.0f);
    else
      EXPECT_TRUE((block.theta.leftCols(2).array() == 0.3f).all());
    const Matrix expected = block.theta - before;
    worst = std::max(worst, static_cast<double>((block.aux[3] - expected).cwiseAbs().maxCoeff()));
  }
  return worst;
}

TEST(CoupledStep, HamcmcPairSeesTheMirroredSample) {
  int reflected = 0;
  const double error = WorstPairError(AfterMove::kMirror, &reflected);
  ASSERT_GT(reflected, 20);  // the test would be empty without reflections
  EXPECT_LT(error, 1e-5);    // float rounding of s + 2|theta| against |theta| - theta_{t-M}
  int reflected_control = 0;
  const double control = WorstPairError(AfterMove::kMirrorThetaOnly, &reflected_control);
  ASSERT_GT(reflected_control, 20);
  EXPECT_GT(control, 0.01);
  std::printf(
      "s_t after mirroring: worst error %.2g (theta alone mirrored: %.2g), %d reflections\n", error,
      control, reflected);
}

TEST(CoupledStep, HamcmcPairSeesTheHeldColumns) {
  int moved = 0;
  const double error = WorstPairError(AfterMove::kHold, &moved);
  ASSERT_GT(moved, 20);   // the held columns did move in the step
  EXPECT_LT(error, 1e-5);  // float rounding, as above
  int moved_control = 0;
  const double control = WorstPairError(AfterMove::kHoldThetaOnly, &moved_control);
  EXPECT_GT(control, 0.01);
  std::printf("s_t after holding: worst error %.2g (theta alone held: %.2g), %d moves undone\n",
              error, control, moved);
}

}  // namespace
}  // namespace carousel
