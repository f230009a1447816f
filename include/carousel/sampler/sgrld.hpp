// SGRLD: Patterson and Teh (2013), in the form of the complete recipe (Ma, Chen and Fox
// 2015), Eq. 14, with a diagonal metric G(theta) (diagonal_metric.hpp):
//   theta <- theta - eps G(theta)^-1 grad U~(theta) + eps Gamma(theta) + N(0, 2 eps G(theta)^-1),
//   Gamma_i(theta) = sum_j d G^-1_ij / d theta_j = d G^-1_ii / d theta_i.
// Recipe terms: z = theta, H = U, D = G(theta)^-1, Q = 0, B^ = 0, all at theta_t.
//
// The sign of Gamma. Eq. 14 (like Eq. 6) prints theta - eps [G^-1 grad U~ + Gamma]; the
// recipe's drift is f = -(D + Q) grad H + Gamma (Eq. 3, and Alg. 1 adds its correction with
// +eps), which is what leaves exp(-U) invariant (Theorem 1): without Gamma, or with it
// subtracted, the chain samples exp(-U) / G^-1 instead. The tests show both.
//
// The "ou" transition keeps the drift and injects N(0, (2 eps - eps^2) G^-1) instead. For a
// Gaussian target whose precision is G (constant metric, Gamma = 0), theta - mean contracts
// by (1 - eps) per step, and this is the exact Ornstein-Uhlenbeck transition over time
// -ln(1 - eps): the chain's stationary variance is G^-1 at any eps < 1, where Euler's is
// G^-1 / (1 - eps / 2) (33% too wide at eps = 0.5). It is the Gaussian counterpart of what
// SCIR does for the CIR process (SCIR paper Sec. 2: an exact transition instead of the Euler
// step), in the spirit of stochastic gradient Fisher scoring (Ahn, Korattikara and Welling
// 2012), which also sets the noise so that a Gaussian is sampled exactly at large steps. As
// eps -> 0 the two transitions agree to first order, so both discretise the same diffusion;
// with the expected-Fisher metric of `carousel mf` the "ou" noise lets the step be six times
// larger without widening the posterior (doc/mf.md, "Step sizes"). Needs eps < 1.
//
// The stochastic gradient adds noise of its own: with scale = N / |minibatch| and F the
// data's information about an element, the minibatch estimate of the gradient has a
// variance of about (scale - 1) F, so a step adds about eps^2 (scale - 1) F / G^2 through
// the drift, and the chain's variance is G^-1 (1 + eps (scale - 1) / (2 - eps)) for a matched
// Gaussian. `carousel mf` therefore shrinks the step like 1 / scale beyond 2 strata
// (mf_defaults.cpp), which keeps that factor between 1.18 (2 strata) and 1.3.
#pragma once

#include <memory>

#include "carousel/sampler/diagonal_metric.hpp"
#include "carousel/sampler/sampler.hpp"

namespace carousel {

class Sgrld : public Sampler {
 public:
  // metric must not be null (throws SettingError).
  // ou: the "ou" transition (above) instead of Euler's.
  explicit Sgrld(std::shared_ptr<const DiagonalMetric> metric, bool ou = false);

  std::string name() const override { return "sgrld"; }
  int aux_count() const override { return 0; }
  void Step(BlockState& block, const BlockGradient& gradient, double step,
            const NoiseKey& noise) const override;
  // With a metric constant in theta (Gamma = 0), a row without data steps
  // theta <- (1 - eps lambda G^-1) theta + N(0, v G^-1), v = 2 eps (Euler) or eps (2 - eps) (ou).
  bool composes_prior_steps() const override { return metric_->constant_in_theta(); }
  void PriorOnlyStep(const BlockGradient& prior, double step, Eigen::Index r, float* a_minus_one,
                     float* variance) const override;
  void StepRows(BlockState& block, const BlockGradient& gradient, double step,
                const NoiseKey& noise, const std::vector<std::uint32_t>& rows) const override;
  // The step of a matched Gaussian contracts by q = 1 - eps with either transition: the
  // noise of k steps, sum_{i<k} q^2i times one step's, is (1 - q^2k) G^-1 with "ou".
  bool defers_noise() const override {
    return metric_->constant_in_theta() && metric_->approximates_precision();
  }
  bool DriftRows(BlockState& block, const BlockGradient& gradient, double step,
                 const std::vector<std::uint32_t>& rows, double* moment_change) const override;
  bool DriftRow(BlockState& block, const BlockGradient& gradient, double step, Eigen::Index r,
                const float* lik, double* moment_change) const override;
  std::optional<RowDriftTerms> MatchedDriftTerms(const BlockGradient& gradient,
                                                 double step) const override;
  void FlushRows(BlockState& block, const BlockGradient& prior, double step, const NoiseKey& key,
                 std::uint64_t now, std::uint64_t noise_steps) const override;

 private:
  float NoiseVariance(double step) const;  // per unit of G^-1
  // DriftRow's terms, after checking the step's bounds (throws as NoiseVariance does).
  RowDriftTerms DriftTerms(const BlockGradient& gradient, double step) const;
  std::shared_ptr<const DiagonalMetric> metric_;
  bool ou_;
  mutable Matrix g_inv_, gamma_;         // scratch, reused across steps (no allocation per step)
  mutable Eigen::VectorXf row_scratch_;  // DriftRow's G^-1 and moment change of one row
};

}  // namespace carousel
