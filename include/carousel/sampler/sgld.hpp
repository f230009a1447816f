// SGLD: Welling and Teh (2011); recipe paper (Ma et al. 2015) Eq. 13 with D = I:
//   theta <- theta - eps grad U~(theta) + N(0, 2 eps).
#pragma once

#include "carousel/sampler/sampler.hpp"

namespace carousel {

class Sgld : public Sampler {
 public:
  std::string name() const override { return "sgld"; }
  int aux_count() const override { return 0; }
  void Step(BlockState& block, const BlockGradient& gradient, double step,
            const NoiseKey& noise) const override;
  bool composes_prior_steps() const override { return true; }
  void PriorOnlyStep(const BlockGradient& prior, double step, Eigen::Index r, float* a_minus_one,
                     float* variance) const override;
  void StepRows(BlockState& block, const BlockGradient& gradient, double step,
                const NoiseKey& noise, const std::vector<std::uint32_t>& rows) const override;
};

}  // namespace carousel
