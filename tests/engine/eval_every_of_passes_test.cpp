// The default evaluation cadence of models that count it in passes over the data
// (model/tile_model.hpp, EvalEveryOfPasses).
#include <gtest/gtest.h>

#include "carousel/model/amf/amf_spec.hpp"
#include "carousel/model/dpmix/dpmix_spec.hpp"
#include "carousel/model/sam/sam_spec.hpp"
#include "carousel/model/tile_model.hpp"

namespace carousel {
namespace {

TEST(EvalEveryOfPasses, IsWholePassesThatMakeAtLeastTheIterations) {
  // At least 10 iterations: 10 at one and two tiles (the cadence amf and dpmix had at every
  // tile count), then whole passes: 12 at 3 and 4 tiles, 16 at 8 and 16, one pass beyond.
  EXPECT_EQ(EvalEveryOfPasses(1, 1, 10), 10u);
  EXPECT_EQ(EvalEveryOfPasses(1, 2, 10), 10u);
  EXPECT_EQ(EvalEveryOfPasses(1, 3, 10), 12u);
  EXPECT_EQ(EvalEveryOfPasses(1, 4, 10), 12u);
  EXPECT_EQ(EvalEveryOfPasses(1, 8, 10), 16u);
  EXPECT_EQ(EvalEveryOfPasses(1, 10, 10), 10u);
  EXPECT_EQ(EvalEveryOfPasses(1, 16, 10), 16u);
  EXPECT_EQ(EvalEveryOfPasses(1, 64, 10), 64u);
  // Without a floor in iterations: `passes` passes (mf's 1, lda's 5).
  EXPECT_EQ(EvalEveryOfPasses(1, 16), 16u);
  EXPECT_EQ(EvalEveryOfPasses(5, 4), 20u);
  EXPECT_EQ(EvalEveryOfPasses(5, 4, 10), 20u);  // the floor is below 5 passes
  EXPECT_EQ(EvalEveryOfPasses(1, 0, 10), 10u);  // tiles 0 (not yet resolved) count as one
}

TEST(EvalEveryOfPasses, AmfDpmixAndSamEvaluateAtMostOnceAPass) {
  for (const PassDefaults& p : {AmfSpec::kPasses, DpmixSpec::kPasses, SamSpec::kPasses}) {
    EXPECT_EQ(p.burn_in_passes, 0u);  // their burn-in stays in iterations
    for (int tiles : {1, 2, 4, 16, 64, 256}) {
      const std::uint64_t every =
          EvalEveryOfPasses(p.eval_every_passes, tiles, p.eval_every_at_least);
      EXPECT_EQ(every % static_cast<std::uint64_t>(tiles), 0u) << tiles;
      EXPECT_GE(every, p.eval_every_at_least) << tiles;
      EXPECT_LT(every, p.eval_every_at_least + static_cast<std::uint64_t>(tiles)) << tiles;
    }
  }
  EXPECT_EQ(AmfSpec::kPasses.eval_every_at_least, 10u);
  EXPECT_EQ(DpmixSpec::kPasses.eval_every_at_least, 10u);
  EXPECT_EQ(SamSpec::kPasses.eval_every_at_least, 50u);
}

}  // namespace
}  // namespace carousel
