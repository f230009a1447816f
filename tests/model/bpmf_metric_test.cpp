// The metrics BPMF gives SGRLD and SGRHMC (bpmf_metric.hpp).
#include "carousel/model/bpmf/bpmf_metric.hpp"

#include <gtest/gtest.h>

#include "carousel/util/error.hpp"

namespace carousel {
namespace {

TEST(ExpectedFisherMetric, InverseOfPriorPlusCountTimesInformation) {
  Matrix theta = Matrix::Random(3, 3);  // two factors and a bias: G must not depend on it
  const Matrix lik = Matrix::Zero(3, 3);
  Eigen::VectorXf prior(3), count(3), information(3);
  prior << 4.0f, 4.0f, 2.0f;
  count << 0.0f, 1.0f, 250.0f;
  information << 0.5f, 0.25f, 1.5f;  // tau m_c for the factors, tau for the bias
  const BlockGradient gradient{lik, 1.0, 1.0, prior, &count, nullptr, &information};
  const ExpectedFisherMetric metric;
  EXPECT_TRUE(metric.needs_information_per_datum());
  Matrix g_inv, gamma;
  metric.Evaluate(theta, gradient, g_inv, gamma);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) {
      EXPECT_FLOAT_EQ(g_inv(r, c), 1.0f / (prior[c] + count[r] * information[c]));
      EXPECT_EQ(gamma(r, c), 0.0f) << "G of a row depends on its partners only";
    }
  Matrix g_inv_elsewhere, unused;
  theta *= 7.0f;
  metric.Evaluate(theta, gradient, g_inv_elsewhere, unused);
  EXPECT_EQ(g_inv, g_inv_elsewhere);
}

TEST(ExpectedFisherMetric, RefusesToGuessWithoutInformation) {
  const Matrix theta = Matrix::Zero(2, 2), lik = Matrix::Zero(2, 2);
  const Eigen::VectorXf prior = Eigen::VectorXf::Ones(2), count = Eigen::VectorXf::Ones(2);
  Matrix g_inv, gamma;
  EXPECT_THROW(ExpectedFisherMetric().Evaluate(theta, BlockGradient{lik, 1.0, 1.0, prior, &count},
                                               g_inv, gamma),
               Error);
}

TEST(RatingCountMetric, NeedsNoInformation) {
  EXPECT_FALSE(RatingCountMetric().needs_information_per_datum());
}

}  // namespace
}  // namespace carousel
