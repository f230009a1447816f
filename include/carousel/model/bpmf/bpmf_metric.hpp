// Metrics BPMF supplies to the Riemannian samplers (SGRLD, SGRHMC).
//
// RatingCountMetric: a diagonal
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
  bool constant_in_theta() const override { return true; }
  void InverseOfRow(const BlockGradient& gradient, Eigen::Index r, float* out) const override;
};

// ExpectedFisherMetric, the default of SGRLD: the diagonal of the posterior's expected
// Fisher information (the Gauss-Newton diagonal) with the sum over a row's ratings replaced
// by its count times the rating-weighted mean,
//   G_rc = lambda_c + n_r tau m_c,  m_c = sum_j n_j h_jc^2 / sum_j n_j   (for w_rc),
// and m = 1 for the bias column (the information a rating gives about a bias is tau), with
// W and H swapped for the columns. Unlike 1 + n_r it follows the scale of the factors
// (E[h^2] grows from the initial 0.01 to about 0.2 on ml-100k) and of the noise, so
// eps G^-1 times the curvature is about eps for every row, from ml-100k to Netflix size: the
// step is a plain number.
// Gamma is zero: G_rc of w_rc depends on H, tau and lambda but not on w_rc itself (the
// information about a factor comes from its partners), and for a diagonal D the recipe's
// Gamma_i is d D_ii / d theta_i (recipe paper Eq. 14 with Gamma_i = sum_j dD_ij/dtheta_j).
// The engine supplies tau m_c as gradient.information_per_datum and lambda as the prior
// precision.
class ExpectedFisherMetric : public DiagonalMetric {
 public:
  std::string name() const override { return "fisher"; }
  bool needs_information_per_datum() const override { return true; }
  // Needs gradient.row_data_count and gradient.information_per_datum; throws
  // Error(kInternal) without them.
  void Evaluate(const Matrix& theta, const BlockGradient& gradient, Matrix& g_inv,
                Matrix& d_g_inv) const override;
  bool constant_in_theta() const override { return true; }
  void InverseOfRow(const BlockGradient& gradient, Eigen::Index r, float* out) const override;
  bool approximates_precision() const override { return true; }
  bool precision_is_prior_plus_count_information() const override { return true; }
};

}  // namespace carousel
