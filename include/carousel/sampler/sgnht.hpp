// SGNHT: Ding, Fang, Babbush, Chen, Skeel and Neven (2014), "Bayesian Sampling Using
// Stochastic Gradient Thermostats", as written in the complete recipe (Ma, Chen and Fox
// 2015), Eq. 15:
//   theta <- theta + eps p,
//   p     <- p - eps grad U~(theta) - eps xi p + N(0, eps (2A - eps B^)),
//   xi    <- xi + eps (p^T p / n - 1),
// with n the number of elements of the WHOLE parameter vector (every block of it).
// Recipe terms: z = (theta, p, xi), H = U(theta) + p^T p / 2 + n (xi - A)^2 / 2,
//   D = diag(0, A I, 0),  Q = [[0, -I, 0], [I, 0, p / n], [0, -p^T / n, 0]],
//   Gamma = (0, 0, sum_i dQ_{xi p_i} / dp_i) = (0, 0, -1): the -1 of the xi update.
// (The paper prints (xi - A)^2 / (2n); with Q_{p xi} = p / n the p-row of -(D + Q) grad H is
// -grad U - A p - p (xi - A) = -grad U - xi p only with the factor n / 2, as above.)
// The thermostat xi adapts the friction to the unknown gradient noise, so B^ may be 0.
//
// Order: p first (gradient at theta_t, friction with xi_t), then theta with the new p, then
// xi with the new p, as in Ding et al.'s Alg. 1 (Eq. 15 prints p_t throughout; the
// difference is O(eps^2) per step, the order of the Euler error itself). xi is one scalar
// for the whole vector: PostSums gives each block's {p^T p, element count}, the engine adds
// them over all blocks, and EndIteration moves xi (global_state(), saved in checkpoints).
// xi starts at A; aux[0] = p starts at 0.
#pragma once

#include "carousel/sampler/sampler.hpp"

namespace carousel {

class Sgnht : public Sampler {
 public:
  // diffusion A > 0 (also the initial xi), noise_estimate B^ >= 0; throws SettingError.
  Sgnht(double diffusion, double noise_estimate);

  std::string name() const override { return "sgnht"; }
  int aux_count() const override { return 1; }  // aux[0] = p
  void Step(BlockState& block, const BlockGradient& gradient, double step,
            const NoiseKey& noise) const override;
  void MirrorAtZero(BlockState& block) const override {  // aux[0] = p
    MirrorWithMomentum(block, block.aux[0]);
  }

  int post_sum_count() const override { return 2; }
  void PostSums(const BlockState& block, double* out) const override;  // {p^T p, n}
  void EndIteration(const double* pre_sums, const double* post_sums, double step) override;

  std::vector<double> global_state() const override { return {xi_}; }
  void set_global_state(const std::vector<double>& state) override;

  double thermostat() const { return xi_; }

 private:
  double diffusion_;
  double noise_estimate_;
  double xi_;
};

}  // namespace carousel
