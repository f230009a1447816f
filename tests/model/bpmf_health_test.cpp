// The checks that stop a chain which left the posterior without producing NaN.
#include "carousel/model/bpmf/bpmf_health.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace carousel {
namespace {

// A healthy K = 10 chain on 1..5 ratings (ml-100k-like numbers from a default run).
BpmfChainSnapshot Healthy() {
  BpmfChainSnapshot s;
  s.rmse_train = 0.80;
  s.sd_train = 1.126;
  s.clipped_share = 0.03;
  s.rating_range = 4.0;
  s.rank = 10;
  s.hyper = BpmfHyper{1.4, 8.0, 5.0, 6.0, 9.0};
  return s;
}

TEST(BpmfHealth, HealthyChainPasses) {
  EXPECT_FALSE(DiagnoseBpmfChain(Healthy()));
  BpmfChainSnapshot start = Healthy();  // the first evaluation: factors near zero
  start.rmse_train = 1.13;
  start.hyper = BpmfHyper{0.79, 100.0, 100.0, 50.0, 50.0};
  EXPECT_FALSE(DiagnoseBpmfChain(start));
  BpmfChainSnapshot no_test = Healthy();
  no_test.clipped_share = std::nan("");
  EXPECT_FALSE(DiagnoseBpmfChain(no_test));
}

TEST(BpmfHealth, TrainingRmseAboveMeanPredictor) {
  BpmfChainSnapshot s = Healthy();
  s.rmse_train = 1.5;
  const auto message = DiagnoseBpmfChain(s);
  ASSERT_TRUE(message);
  EXPECT_NE(message->find("training RMSE is 1.5"), std::string::npos) << *message;
}

// With fewer ratings than parameters the posterior is mostly the prior: a sample may fit
// the ratings worse than their mean, and spread its predictions past a narrow range. Those
// two checks then stay silent, and the precisions may take values their Gamma(1, 1) prior
// allows (0.024 and 0.16, drawn by a 3-rating run with 4 tiles); a collapse far outside the
// prior is still reported.
TEST(BpmfHealth, FewRatingsSilenceTheFitChecksAndWidenThePrecisionBounds) {
  BpmfChainSnapshot s = Healthy();
  s.informative = false;
  s.rmse_train = 1.5;
  s.clipped_share = 1.0;
  s.hyper.lambda_w = 0.024;
  s.hyper.lambda_h = 0.16;
  EXPECT_FALSE(DiagnoseBpmfChain(s));
  s.informative = true;
  s.rmse_train = Healthy().rmse_train;
  s.clipped_share = Healthy().clipped_share;
  ASSERT_TRUE(DiagnoseBpmfChain(s));  // the same precisions on informative data
  EXPECT_NE(DiagnoseBpmfChain(s)->find("lambda_w = 0.024"), std::string::npos);
  s = Healthy();
  s.informative = false;
  s.hyper.tau = 1e-13;
  const auto message = DiagnoseBpmfChain(s);
  ASSERT_TRUE(message);
  EXPECT_NE(message->find("tau collapsed"), std::string::npos) << *message;
}

// The collapse seen on 25M ratings with --step 2e-6: tau 1e-13, precisions 1e-7.
TEST(BpmfHealth, CollapsedPrecisions) {
  BpmfChainSnapshot s = Healthy();
  s.hyper.tau = 1e-13;
  auto message = DiagnoseBpmfChain(s);
  ASSERT_TRUE(message);
  EXPECT_NE(message->find("tau collapsed to 1e-13"), std::string::npos) << *message;

  s = Healthy();
  s.hyper.lambda_w = s.hyper.lambda_h = 1e-7;
  message = DiagnoseBpmfChain(s);
  ASSERT_TRUE(message);
  EXPECT_NE(message->find("lambda_w = 1e-07"), std::string::npos) << *message;

  s = Healthy();
  s.hyper.lambda_c = 1e-7;
  message = DiagnoseBpmfChain(s);
  ASSERT_TRUE(message);
  EXPECT_NE(message->find("bias precisions"), std::string::npos) << *message;
  s.bias = false;
  EXPECT_FALSE(DiagnoseBpmfChain(s)) << "a model without biases has no bias precisions";
}

TEST(BpmfHealth, FixedPrecisionsAreNotChecked) {
  BpmfChainSnapshot s = Healthy();
  s.hyper_sampled = false;
  s.hyper.tau = 1e-13;
  EXPECT_FALSE(DiagnoseBpmfChain(s));
}

TEST(BpmfHealth, PinnedPredictions) {
  BpmfChainSnapshot s = Healthy();
  s.clipped_share = 0.9;
  const auto message = DiagnoseBpmfChain(s);
  ASSERT_TRUE(message);
  EXPECT_NE(message->find("90.0% of the test predictions"), std::string::npos) << *message;
}

TEST(BpmfHealth, ConstantRatingsGiveNoScale) {
  BpmfChainSnapshot s = Healthy();
  s.sd_train = 0.0;
  s.rating_range = 0.0;
  s.rmse_train = 0.01;
  EXPECT_FALSE(DiagnoseBpmfChain(s));
}

}  // namespace
}  // namespace carousel
