// The metric BPMF supplies to the Riemannian samplers (SGRLD, SGRHMC): a diagonal
// approximation of the expected Fisher information. For a factor w_ik the Fisher
// information is lambda_w + tau sum_j h_jk^2 over the user's n_i ratings; with
// tau E[h^2] ~ 1 that is about n_i + 1, so
//   G(theta)^-1 = diag(1 / (1 + n_r))      (n_r: ratings of the row's user or item).
// It does not depend on the block's own parameters, so its correction term Gamma is zero
// (recipe paper Eq. 14), and heavily rated rows take proportionally smaller steps.
#pragma once

#include "carousel/sampler/diagonal_metric.hpp"

namespace carousel {

class RatingCountMetric : public DiagonalMetric {
 public:
  std::string name() const override { return "rating-count"; }
  // Needs gradient.row_data_count; throws Error(kInternal) without it.
  void Evaluate(const Matrix& theta, const BlockGradient& gradient, Matrix& g_inv,
                Matrix& d_g_inv) const override;
};

}  // namespace carousel
