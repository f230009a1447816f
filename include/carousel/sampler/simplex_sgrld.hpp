// Langevin-type samplers for a probability-simplex row in the expanded-mean
// parameterisation of Patterson and Teh (2013), "Stochastic gradient Riemannian Langevin
// dynamics on the probability simplex", NIPS 26: theta_k >= 0, omega_k = theta_k /
// sum_j theta_j, prior theta_k ~ Gamma(alpha_k, 1) (mirrored at 0), so omega has the
// Dirichlet(alpha) prior. With categorical data of counts n_k (n_. = sum_k n_k) the
// log posterior of theta and its gradient are
//   log p(theta | n) = sum_k [(alpha_k + n_k - 1) log theta_k - theta_k] - n_. log theta_.,
//   d/d theta_k      = (alpha_k + n_k - 1) / theta_k - 1 - n_. / theta_.,
// the form of Ma, Chen and Fox (2015, "A complete recipe for stochastic gradient MCMC"),
// Supplement Eq. S.18, with n_k replaced by the minibatch estimate (N/n) * (minibatch
// count). Under this target omega ~ Dirichlet(alpha + n) and theta_. ~ Gamma(sum alpha).
//
// count_hat[k] below is that unbiased estimate of the full-data count n_k (for LDA: N/n
// times the minibatch sum of E[n_dkw]); its total is taken as sum_k count_hat[k].
//
// SimplexSgrldStep: SGRLD, recipe Eq. 14 (Sec. 3.1) with D(theta) = G(theta)^{-1} =
// diag(theta), Q = 0, Gamma_k = sum_j d D_kj / d theta_j = 1. Then
//   D grad log p + Gamma = alpha_k - theta_k + n_k - omega_k n_.,
// and with the step written in Patterson and Teh's convention (their step eps equals
// 2 eps_t of recipe Eq. 14: drift eps/2, noise variance eps * theta_k) the update is
//   theta_k <- | theta_k + (eps/2) (alpha_k - theta_k + count_hat_k - omega_k count_hat_.)
//                + sqrt(eps theta_k) zeta_k |,   zeta_k ~ N(0, 1),
// the absolute value being the mirroring of the mirrored Gamma prior (Patterson and Teh
// Sec. 3; the SCIR paper, Sec. 1.2, "omega_j = |theta_j| / sum |theta_j|"). This is the
// SGRLD that the SCIR paper (Baker et al. 2018, Sec. 1.3 and 2.2) compares against.
// omega in the drift is computed from the theta at the start of the step for every k.
//
// SimplexSgrhmcStep: SGRHMC, recipe Sec. 3.2, Algorithm 1 (gSGRHMC) with H = U + r'r/2
// and G(theta) = diag(theta)^{-1}, the Fisher metric used in recipe Sec. 4.2 for the same
// expanded-mean LDA parameterisation, and B_hat = 0:
//   theta_{t+1} = theta_t + eps G^{-1/2} r_t,
//   r_{t+1}     = r_t - eps G^{-1/2} grad U~(theta_t) + eps grad(G^{-1/2})
//                     - eps G^{-1} r_t + N(0, 2 eps G^{-1}(theta_t)),
// i.e. with s_k = sqrt(theta_k) and (grad G^{-1/2})_k = d s_k / d theta_k = 1 / (2 s_k):
//   theta_k <- theta_k + eps s_k r_k,
//   r_k     <- r_k + eps [(alpha_k - 1/2 + count_hat_k) / s_k - s_k (1 + count_hat_. /
//              theta_.)] - eps theta_k r_k + sqrt(2 eps theta_k) zeta_k,
// both right-hand sides at the old (theta, r). (Recipe Eq. 17 as printed has the signs of
// the correction and friction terms inside the bracket flipped; Algorithm 1 and the
// recipe Eq. 3 derivation, f = -(D + Q) grad H + Gamma with Gamma_r = +grad_theta
// G^{-1/2}, give the signs above.) Positivity is kept by boundary reflection (recipe Sec.
// 4.2): a theta_k that crosses 0 is mirrored and its momentum r_k negated, which leaves
// H (even in r) and the mirrored target unchanged. Because the force has a 1/sqrt(theta)
// term, a theta_k that lands exactly on 0 is set to the smallest positive normal double.
//
// Both are Euler discretisations: unlike SCIR they are biased at any fixed step, most of
// all near the boundary of the simplex (the SCIR paper's Proposition 1.1 and Fig. 1-2).
// Randomness comes from the caller's KeyedStream, one normal per component in order.
#pragma once

#include <cstddef>

#include "carousel/util/keyed_rng.hpp"

namespace carousel {

// One SGRLD step of a simplex row of k components (eps > 0, theta[j] >= 0 with a
// positive sum; alpha[j] > 0; count_hat[j] >= 0). Throws Error(kDiverged) on NaN/inf.
void SimplexSgrldStep(double* theta, const double* alpha, const double* count_hat, std::size_t k,
                      double eps, KeyedStream& rng);

// One SGRHMC step (theta[j] > 0, momentum[j] finite; the rest as above).
void SimplexSgrhmcStep(double* theta, double* momentum, const double* alpha,
                       const double* count_hat, std::size_t k, double eps, KeyedStream& rng);

// One component of each step, for a simplex row spread over several blocks (LDA's
// topic-word rows): the row sums theta_. and count_hat_. are supplied by the caller.
// SgrldComponentStep returns the new theta_k; `pull` is 1 + count_hat_. / theta_..
double SgrldComponentStep(double theta, double alpha, double count_hat, double theta_sum,
                          double count_sum, double eps, KeyedStream& rng);
void SgrhmcComponentStep(double& theta, double& momentum, double alpha, double count_hat,
                         double pull, double eps, KeyedStream& rng);

// omega[j] = theta[j] / sum(theta); omega may alias theta.
void SimplexNormalise(const double* theta, std::size_t k, double* omega);

}  // namespace carousel
