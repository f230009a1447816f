// Diagonal Riemannian metrics G(theta) for SGRLD (Ma, Chen and Fox 2015, "A Complete Recipe
// for Stochastic Gradient MCMC", Eq. 14) and generalized SGRHMC (same paper, Eq. 17 and
// Alg. 1).
//
// A metric reports two numbers for every element i of a block (row r, column c):
//   g_inv(r, c)   = G(theta)^-1_ii,
//   d_g_inv(r, c) = d G(theta)^-1_ii / d theta_i.
// That is all the recipe needs from a diagonal metric. Its correction term
// Gamma_i = sum_j d D_ij / d theta_j reduces, for a diagonal D, to d D_ii / d theta_i, whatever
// else D_ii depends on:
//   SGRLD,  D = G^-1:                       Gamma_i = d_g_inv;
//   SGRHMC, Q_{r theta} = G^-1/2 (diagonal): Gamma_{r_i} = d (G^-1/2)_ii / d theta_i
//                                                    = d_g_inv / (2 sqrt(g_inv)).
// The metric also sees the block's stochastic gradient: a metric defined through U~ (as in
// supplement F.1) differentiates U~, and -grad U~ is what the sampler has at hand.
#pragma once

#include <Eigen/Core>
#include <functional>
#include <string>

#include "carousel/sampler/block.hpp"

namespace carousel {

class DiagonalMetric {
 public:
  virtual ~DiagonalMetric() = default;
  virtual std::string name() const = 0;

  // Fills g_inv and d_g_inv (resized to theta's shape) at the point theta, where the
  // stochastic gradient is `gradient`. Every g_inv must be > 0 where the sampler moves.
  virtual void Evaluate(const Matrix& theta, const BlockGradient& gradient, Matrix& g_inv,
                        Matrix& d_g_inv) const = 0;

  // Whether Evaluate reads gradient.information_per_datum (the caller then supplies it).
  virtual bool needs_information_per_datum() const { return false; }

  // Whether G does not depend on theta (then Gamma = 0), and G^-1 of one row at a time is
  // available from InverseOfRow: what a sampler needs to step some rows only and to compose
  // the prior-only steps of the others (DESIGN.md section 9). The default: no.
  virtual bool constant_in_theta() const { return false; }
  // G^-1 of row r into out[0 .. columns); Evaluate's g_inv row r, bit for bit. Only for a
  // metric constant in theta (the default throws Error(kInternal)).
  virtual void InverseOfRow(const BlockGradient& gradient, Eigen::Index r, float* out) const;
  // Whether G is built to approximate each element's posterior precision (the prior's plus
  // the likelihood's expected Fisher information), so that a step of eps G^-1 contracts an
  // element by about 1 - eps: what deferring the noise of several steps relies on
  // (Sampler::defers_noise). The default: no.
  virtual bool approximates_precision() const { return false; }
  // Whether G of row r is prior + n_r information, element by element (n_r =
  // row_data_count[r], information = information_per_datum), G^-1 being
  // row_drift.hpp's MatchedPrecisionInverse: then a drift needs no call to the metric. The
  // default: no.
  virtual bool precision_is_prior_plus_count_information() const { return false; }
};

// G^-1 = diag(v_c): one value per column (as prior_precision is), Gamma = 0. With all ones,
// SGRLD is SGLD (Eq. 13 with D = I) and SGRHMC is SGHMC with C = M = 1 (Eq. 12).
class ConstantDiagonalMetric : public DiagonalMetric {
 public:
  // All entries must be finite and > 0; throws SettingError("metric", ...) otherwise.
  explicit ConstantDiagonalMetric(Eigen::VectorXf inverse_metric);
  // The same value v > 0 for every column.
  static ConstantDiagonalMetric Uniform(Eigen::Index columns, float v);

  std::string name() const override { return "constant"; }
  void Evaluate(const Matrix& theta, const BlockGradient& gradient, Matrix& g_inv,
                Matrix& d_g_inv) const override;
  bool constant_in_theta() const override { return true; }
  void InverseOfRow(const BlockGradient& gradient, Eigen::Index r, float* out) const override;

 private:
  Eigen::VectorXf inverse_metric_;
};

// Supplement F.1 of the recipe paper (its 1-D experiments, Fig. 2 left and Fig. S.5):
//   G(theta)^-1 = D sqrt(|U~(theta) + C|),
//   d G^-1_ii / d theta_i = D sign(U~ + C) (dU~/d theta_i) / (2 sqrt(|U~ + C|)),
// with the paper's D = 1.5, C = 0.5. G^-1 grows with the potential, so the curl
// Q_{r theta} = G^-1/2 grows with the level sets (supplement E). It vanishes where
// U~ = -C, and Gamma is singular there; choose C > -min U (the double well needs C > 1).
//
// Samplers see gradients only, so the potential comes from a callback that fills u (the
// shape of theta) with the potential each element's metric is a function of: for a block
// that is one parameter vector, the same U~(theta) in every element; for a block whose rows
// are independent replicate chains of one target (the tests), U~(theta_r) in row r.
// dU~/d theta_i is the stochastic gradient the sampler is given (-gradient.LogPosterior):
// G is a function of U~, and the paper defines it through U~ to avoid full-data work.
class PotentialMetric : public DiagonalMetric {
 public:
  using Potential = std::function<void(const Matrix& theta, Matrix& u)>;

  // scale D > 0, offset C finite; throws SettingError("metric", ...) otherwise.
  PotentialMetric(double scale, double offset, Potential potential);

  std::string name() const override { return "potential"; }
  void Evaluate(const Matrix& theta, const BlockGradient& gradient, Matrix& g_inv,
                Matrix& d_g_inv) const override;

 private:
  double scale_;
  double offset_;
  Potential potential_;
};

}  // namespace carousel
