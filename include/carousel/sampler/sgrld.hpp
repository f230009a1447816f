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
#pragma once

#include <memory>

#include "carousel/sampler/diagonal_metric.hpp"
#include "carousel/sampler/sampler.hpp"

namespace carousel {

class Sgrld : public Sampler {
 public:
  // metric must not be null (throws UsageError).
  explicit Sgrld(std::shared_ptr<const DiagonalMetric> metric);

  std::string name() const override { return "sgrld"; }
  int aux_count() const override { return 0; }
  void Step(BlockState& block, const BlockGradient& gradient, double step,
            const NoiseKey& noise) const override;

 private:
  std::shared_ptr<const DiagonalMetric> metric_;
};

}  // namespace carousel
