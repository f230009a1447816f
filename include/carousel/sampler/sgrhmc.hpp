// Generalized SGRHMC (gSGRHMC): the complete recipe (Ma, Chen and Fox 2015), Sec. 3.2,
// Eq. 17 and Alg. 1, with a diagonal metric G(theta) (diagonal_metric.hpp), H = U + r^T r / 2,
//   D = [[0, 0], [0, G(theta)^-1]],  Q = [[0, -G(theta)^-1/2], [G(theta)^-1/2, 0]].
// Gamma_i = sum_j d(D + Q)_ij / dz_j: the theta-rows of D + Q depend on theta but are
// differentiated by r (zero), the r-rows give sum_j d(G^-1/2)_ij / dtheta_j (G depends on
// theta only). So Gamma = (0, grad_theta(G^-1/2)), for a diagonal metric
//   Gamma_{r_i} = d(G^-1/2)_ii / dtheta_i = (dG^-1_ii / dtheta_i) / (2 sqrt(G^-1_ii)).
// The update is Alg. 1, an explicit Euler step with every right-hand side at theta_t, r_t:
//   theta_{t+1} <- theta_t + eps G(theta_t)^-1/2 r_t,
//   r_{t+1}     <- r_t - eps G(theta_t)^-1/2 grad U~(theta_t) + eps grad_theta(G(theta_t)^-1/2)
//                      - eps G(theta_t)^-1 r_t + N(0, eps (2 G(theta_t)^-1 - eps B^_t)).
// (Eq. 17 prints r - eps [G^-1/2 grad U~ + grad(G^-1/2) - G^-1 r]: the signs of the last two
// terms inside the bracket are a misprint; Alg. 1 and Eq. 3's f = -(D + Q) grad H + Gamma
// agree on the form above, and with the bracket as printed the friction would be negative.)
// B^_t estimates the covariance of the gradient noise where it enters r,
// G^-1/2 N(0, V) G^-1/2, so for a per-element gradient-noise variance estimate V^
// (noise_estimate) B^_t = G(theta_t)^-1 V^ and the injected variance is
// eps G^-1 (2 - eps V^), which needs eps V^ <= 2.
//
// Without Gamma this is the naive SGRHMC of Eq. 16, which samples exp(-U) / G^-1/2 instead
// of exp(-U) (tests/sampler/recipe_samplers_test.cpp). aux[0] = r, initialised to 0.
// Alg. 1's optional momentum resampling is not done.
#pragma once

#include <memory>

#include "carousel/sampler/diagonal_metric.hpp"
#include "carousel/sampler/sampler.hpp"

namespace carousel {

class Sgrhmc : public Sampler {
 public:
  // metric not null, noise_estimate V^ >= 0; throws SettingError otherwise.
  Sgrhmc(std::shared_ptr<const DiagonalMetric> metric, double noise_estimate);

  std::string name() const override { return "sgrhmc"; }
  int aux_count() const override { return 1; }  // aux[0] = r
  void Step(BlockState& block, const BlockGradient& gradient, double step,
            const NoiseKey& noise) const override;
  void MirrorAtZero(BlockState& block) const override {  // aux[0] = r
    MirrorWithMomentum(block, block.aux[0]);
  }

 private:
  std::shared_ptr<const DiagonalMetric> metric_;
  double noise_estimate_;
};

}  // namespace carousel
