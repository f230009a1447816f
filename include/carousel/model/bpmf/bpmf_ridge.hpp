// An exact move along the scale ridge of BPMF (bpmf_priors.hpp). The likelihood depends on
// the factors only through W H^T, which W -> c W, H -> H / c leaves unchanged for any c > 0,
// and the Gamma hyperpriors pin c only weakly: a chain of small steps wanders along that
// ridge, and lambda_w, lambda_h and lp__ mix slowly (issue #42: R-hat 1.5 after 20,000
// iterations on ml-100k). This move draws c from its exact conditional instead.
//
// It is a generalised Gibbs move (Liu and Sabatti 2000, "Generalized Gibbs sampler and
// multigrid Monte Carlo for Bayesian computation", Biometrika 87(2), Theorem 1; Liu and Wu
// 1999, parameter expansion): for a group acting on the state, drawing g with density
//   pi(g x) |J_g(x)| H(dg)
// (H the group's Haar measure) and moving to g x leaves pi invariant. Here the group is
// the scalings c > 0, with Haar measure dc / c.
//
// With the precisions sampled, g_c acts on (W, H, lambda_w, lambda_h) as
//   W -> c W, H -> H / c, lambda_w -> lambda_w / c^2, lambda_h -> lambda_h c^2,
// which keeps lambda_w |W|^2 and lambda_h |H|^2, and so the priors' exponents, unchanged.
// Its Jacobian c^(K n_w) c^(-K n_h) c^(-2) c^2 cancels the priors' normalisers
// (lambda_w / c^2)^(K n_w / 2) (lambda_h c^2)^(K n_h / 2) exactly, so only the Gamma(a0, b0)
// hyperpriors depend on c, and with their own Jacobian (c^-2 c^2 = 1):
//   p(c) dc / c  ~  exp(-b0 (lambda_w / c^2 + lambda_h c^2)) dc / c,
// that is, u = c^2 ~ GIG(0, 2 b0 lambda_h, 2 b0 lambda_w) (util/gig_variate.hpp).
//
// The move needs only the precisions just drawn by their Gibbs step, and one keyed draw:
// every rank draws the same c and scales the blocks it holds, so the chain stays
// independent of the rank count. The biases are not touched. (With the precisions fixed,
// --hyper fixed, the move would act on W and H alone, with u ~ GIG(K (n_w - n_h) / 2,
// lambda_w |W|^2, lambda_h |H|^2); Carousel does not make it there.)
#pragma once

#include "carousel/model/bpmf/bpmf_priors.hpp"
#include "carousel/util/keyed_rng.hpp"

namespace carousel {

// Draws the move's c given the sampled precisions `hyper` and moves them: lambda_w / c^2,
// lambda_h c^2. Returns c, by which the caller multiplies W and divides H. Requires
// priors.sample_hyper and priors.b0 > 0 (a proper hyperprior).
double MoveAlongScaleRidge(const BpmfPriors& priors, BpmfHyper& hyper, KeyedStream& rng);

}  // namespace carousel
