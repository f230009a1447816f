// The data-dependent defaults of `carousel mf` (mf_defaults.hpp).
#include "carousel/model/bpmf/mf_defaults.hpp"

#include <gtest/gtest.h>

#include <memory>

#include "carousel/model/bpmf/bpmf_metric.hpp"
#include "carousel/sampler/registry.hpp"
#include "carousel/util/error.hpp"

namespace carousel {
namespace {

// n ratings by n users; item 0 gets `top` of them (the largest degree), the rest are spread
// over 1000 other items.
MfProblem Problem(std::uint32_t n, std::uint32_t top) {
  RatingMatrix train{n, 1001, {}};
  for (std::uint32_t i = 0; i < n; ++i)
    train.entries.push_back({i, i < top ? 0u : 1u + i % 1000u, 3.0f});
  TileShare share;
  return WholeMfProblem(train, {}, 1, 1, &share);
}

TEST(MfDefaults, PsgldStepAndFloorArePerRating) {
  SamplerOptions psgld;
  psgld.name = "psgld";
  const MfProblem small = Problem(80000, 500);
  EXPECT_DOUBLE_EQ(DefaultMfStep(psgld, small, 2.0), 0.05 / 80000);
  EXPECT_DOUBLE_EQ(DefaultRmspropLambda(small), 2.0 / 80000);
}

TEST(MfDefaults, PsgldStepShrinksAboveTheValidatedDegree) {
  SamplerOptions psgld;
  psgld.name = "psgld";
  const MfProblem at = Problem(300000, 131072), twice = Problem(300000, 262144);
  EXPECT_DOUBLE_EQ(DefaultMfStep(psgld, at, 2.0), 0.05 / 300000);
  EXPECT_DOUBLE_EQ(DefaultMfStep(psgld, twice, 2.0), 0.5 * 0.05 / 300000);
}

// SGRLD's "ou" step is 0.3 up to 2 strata, then shrinks like 2 / (N / |minibatch|): the same
// drift per pass over the data (sgrld.hpp); Euler's is 0.05.
TEST(MfDefaults, SgrldOuStepShrinksWithTheGradientScale) {
  SamplerOptions sgrld;
  sgrld.name = "sgrld";
  sgrld.metric = std::make_shared<ExpectedFisherMetric>();
  sgrld.transition = "ou";
  const MfProblem p = Problem(80000, 500);
  EXPECT_DOUBLE_EQ(DefaultMfStep(sgrld, p, 1.0), 0.3);
  EXPECT_DOUBLE_EQ(DefaultMfStep(sgrld, p, 2.0), 0.3);
  EXPECT_DOUBLE_EQ(DefaultMfStep(sgrld, p, 4.0), 0.15);
  EXPECT_DOUBLE_EQ(DefaultMfStep(sgrld, p, 16.0), 0.3 / 8.0);
  sgrld.transition = "euler";
  EXPECT_DOUBLE_EQ(DefaultMfStep(sgrld, p, 16.0), 0.05);
  EXPECT_EQ(DefaultMfStepWarmup(sgrld), 30u);
}

// The burn-in is 30 passes over the data (an iteration is 1/B of a pass with B tiles per
// side), at most half of the iterations; at one tile it ends with SGRLD's 30-iteration
// warm-up.
// Every factor sampler of the registry has mf's defaults; a name without them is an internal
// error, not SGLD's step in disguise.
TEST(MfDefaults, EveryFactorSamplerHasARowAndNoOtherName) {
  const MfProblem problem = Problem(80000, 500);
  for (const std::string& name : SamplerNames(BlockKind::kFactor)) {
    SamplerOptions options;
    options.name = name;
    EXPECT_GT(DefaultMfStep(options, problem, 2.0), 0.0) << name;
    EXPECT_GE(DefaultMfHyperEvery(options, 4), 4u) << name;
  }
  SamplerOptions unknown;
  unknown.name = "sgd";
  EXPECT_THROW(DefaultMfStep(unknown, problem, 2.0), Error);
  EXPECT_THROW(DefaultMfStepWarmup(unknown), Error);
}

// mf's own sampler and the metric each sampler uses when --metric is not given: the
// expected Fisher metric for SGRLD, the rating-count metric for the others.
TEST(MfDefaults, GibbsIsMfsOwnSamplerAndSgrldTakesTheFisherMetric) {
  EXPECT_EQ(MfOwnSamplers(), std::vector<std::string>{"gibbs"});
  EXPECT_TRUE(IsMfGibbsReference("gibbs"));
  for (const std::string& name : SamplerNames(BlockKind::kFactor)) {
    EXPECT_FALSE(IsMfGibbsReference(name)) << name;
    EXPECT_EQ(DefaultMfMetric(name), name == "sgrld" ? "fisher" : "rating-count") << name;
  }
  EXPECT_FALSE(IsMfGibbsReference(""));
  EXPECT_THROW(DefaultMfMetric("sgd"), Error);
}

// The deferred noise's span: k eps <= 0.3, at least 1 (DESIGN.md section 9).
TEST(MfDefaults, DeferredNoiseSpanIsAThirdOfTimeOverTheStep) {
  EXPECT_EQ(DeferredNoiseSpan(0.3), 1u);   // 1 and 2 tiles: every iteration
  EXPECT_EQ(DeferredNoiseSpan(0.15), 2u);  // 4 tiles: 0.6 / 4
  EXPECT_EQ(DeferredNoiseSpan(0.6 / 16), 8u);
  EXPECT_EQ(DeferredNoiseSpan(0.6 / 64), 32u);
  EXPECT_EQ(DeferredNoiseSpan(0.5), 1u);
}

// The draws in the factors' moments: every ceil(6 parameters / ratings)-th kept draw, 1 to 10,
// from the whole problem's sizes.
TEST(MfDefaults, MomentsEveryFollowsParametersPerRating) {
  MfProblem p;
  p.rows = 480189;  // the 25M Netflix-shaped ratings at K = 32 with biases: 0.66 a rating
  p.cols = 17770;
  p.train_count = 24749541;
  EXPECT_EQ(DefaultMomentsEvery(p, 33), 4u);
  p.train_count = 100480507;  // Netflix: 0.164 a rating
  EXPECT_EQ(DefaultMomentsEvery(p, 33), 1u);
  p.rows = 943;  // ml-100k's u1.base at K = 10: 0.36 a rating
  p.cols = 1650;
  p.train_count = 80000;
  EXPECT_EQ(DefaultMomentsEvery(p, 11), 3u);
  p.train_count = 100;  // far more parameters than ratings: at most every 10th
  EXPECT_EQ(DefaultMomentsEvery(p, 11), 10u);
  p.train_count = 0;
  EXPECT_EQ(DefaultMomentsEvery(p, 11), 10u);
  p.rows = p.cols = 1;  // few parameters: every draw
  p.train_count = 1000000;
  EXPECT_EQ(DefaultMomentsEvery(p, 11), 1u);
}

TEST(MfDefaults, BurnInIsThirtyPassesAtMostHalfTheIterations) {
  EXPECT_EQ(DefaultMfBurnIn(1, 1000), 30u);
  EXPECT_EQ(DefaultMfBurnIn(2, 1000), 60u);
  EXPECT_EQ(DefaultMfBurnIn(8, 1000), 240u);
  EXPECT_EQ(DefaultMfBurnIn(8, 300), 150u);
  EXPECT_EQ(DefaultMfBurnIn(1, 40), 20u);
  EXPECT_EQ(DefaultMfBurnIn(1, 1), 0u);
  SamplerOptions sgrld;
  sgrld.name = "sgrld";
  EXPECT_EQ(DefaultMfBurnIn(1, 1000), DefaultMfStepWarmup(sgrld));
}

}  // namespace
}  // namespace carousel
