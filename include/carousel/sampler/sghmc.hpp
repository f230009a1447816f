// SGHMC: Chen, Fox and Guestrin (2014), "Stochastic Gradient Hamiltonian Monte Carlo", as
// written in the complete recipe (Ma, Chen and Fox 2015), Eq. 12:
//   theta <- theta + eps M^-1 r,
//   r     <- r - eps grad U~(theta) - eps C M^-1 r + N(0, eps (2C - eps B^)).
// Recipe terms: z = (theta, r), H = U(theta) + r^T M^-1 r / 2,
//   D = [[0, 0], [0, C]],  Q = [[0, -I], [I, 0]],  Gamma = 0,
// B^ the estimated variance of the stochastic gradient's noise (Eq. 8, 9). C, B^ and the
// mass M are scalars (the same diagonal value for every element).
//
// Order of the two updates. Eq. 12 prints every right-hand side at time t (explicit
// Euler). Here the momentum is updated first, with the gradient at theta_t, and theta moves
// with the new momentum: that is Chen et al.'s own order (position with the old momentum,
// then momentum with the gradient at the new position, seen half a step later), also a
// first-order discretisation of the same SDE, with a far smaller stationary bias (trial
// runs on the double well of tests/sampler/recipe_samplers_test.cpp, eps = 0.01, C = M = 1:
// KS distance 0.0066 from the target with Eq. 12's order, 0.001 with this one). aux[0] = r,
// initialised to 0.
#pragma once

#include <cmath>

#include "carousel/sampler/sampler.hpp"

namespace carousel {

// Pieces shared by the second-order samplers (SGHMC, SGNHT, SGRHMC). For one element,
// z = (theta_i, r_i) and the recipe's D = diag(0, d), Q = [[0, -q], [q, 0]],
// Gamma = (0, gamma); the r-row of Eq. 9 is
//   r <- r + eps (-q dU~/dtheta_i - f r + gamma) + N(0, eps (2 d - eps B^_t)),
// with the friction f r = d dH/dr (SGHMC: C M^-1 r; SGRHMC: G^-1 r) or, for SGNHT,
// xi r (its Q_{r xi} = r / n turns A r into xi r). The theta-row, theta += eps q dH/dr,
// is left to each sampler: which r it uses is the discretisation's order.
namespace momentum {

struct Terms {
  float coupling;    // q: the curl between theta_i and r_i
  float friction;    // f
  float correction;  // gamma = Gamma_{r_i} = sum_j dQ_{r_i theta_j} / dtheta_j
  float noise_sd;    // sqrt(eps (2 d - eps B^_t))
};

// The new r; `neg_grad` = -dU~/dtheta_i (BlockGradient::LogPosterior). One normal from
// `stream` per call.
inline float Kick(float r, float neg_grad, const Terms& t, float eps, KeyedStream& stream) {
  return r + eps * (t.coupling * neg_grad - t.friction * r + t.correction) +
         t.noise_sd * static_cast<float>(stream.normal());
}

// eps (2 d - eps b): the variance Eq. 9 injects for diffusion d and noise estimate b. Eq. 9
// needs 2 D - eps B^ >= 0; throws SettingError for `sampler` when eps b > 2 d.
double InjectedVariance(const char* sampler, double eps, double diffusion, double b_hat);

// Throws SettingError unless value is finite and >= 0 (or > 0 when `positive`).
void CheckParameter(const char* setting, double value, bool positive);

}  // namespace momentum

class Sghmc : public Sampler {
 public:
  // friction C > 0, noise_estimate B^ >= 0, mass M > 0; throws SettingError otherwise.
  Sghmc(double friction, double noise_estimate, double mass);

  std::string name() const override { return "sghmc"; }
  int aux_count() const override { return 1; }  // aux[0] = r, zero at the start
  void Step(BlockState& block, const BlockGradient& gradient, double step,
            const NoiseKey& noise) const override;
  void MirrorAtZero(BlockState& block) const override {  // aux[0] = r
    MirrorWithMomentum(block, block.aux[0]);
  }

 private:
  double friction_;
  double noise_estimate_;
  double mass_;
};

}  // namespace carousel
