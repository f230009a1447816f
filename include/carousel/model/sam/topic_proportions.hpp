// A document's topic proportions theta_d in the spherical admixture model (Liu, Zhu and
// Song 2016, main paper Sec. 4): their conditional given the topics beta (K x V, unit rows)
// and the document's tf-idf unit vector v_d,
//
//   pi(theta_d | v_d, beta)  ∝  Dir(theta_d | alpha) exp(kappa1 v_d' vbar(beta, theta_d)),
//   vbar(beta, theta) = beta' theta / |beta' theta|,
//
// depends on beta only through s_d = beta v_d (K numbers) and the Gram matrix G = beta beta'
// (K x K): v_d' vbar = s_d' theta / sqrt(theta' G theta). The paper draws from it with GMC
// (supplement F.3); here it is sampled by MALA in unconstrained coordinates, a sampler that is
// exact in the limit of its steps, as GMC is, but needs no simplex-boundary reflections:
//
//   theta = gamma / sum(gamma), gamma_k = exp(eta_k), gamma_k ~ Gamma(alpha, 1) a priori,
//
// so theta ~ Dir(alpha) exactly, and vbar is invariant to the scale of gamma, so the target
// of eta is  log p(eta) = sum_k (alpha eta_k - exp(eta_k)) + kappa1 s' gamma / |beta' gamma|
// (the Jacobian d gamma / d eta = gamma is the "+1" in alpha eta_k). eta is the state a
// document keeps between its visits. MALA (Roberts and Tweedie 1996): a Langevin proposal of
// step size epsilon followed by the Metropolis-Hastings test, so every step leaves the
// conditional invariant whatever epsilon is; the model adapts epsilon during burn-in only.
#pragma once

#include <Eigen/Core>
#include <cstdint>

namespace carousel {

struct ProportionsTarget {
  const double* s = nullptr;              // s_d = beta v_d, K
  const Eigen::MatrixXd* gram = nullptr;  // G = beta beta', K x K
  double alpha = 10.0;
  double kappa1 = 3e4;
};

// Log density of eta (up to a constant) and its gradient, into `gradient` (K).
double ProportionsLogDensity(const ProportionsTarget& target, const Eigen::VectorXd& eta,
                             Eigen::VectorXd* gradient);

// What the SAM gradient (main Eq. 10) needs of the draws of theta_d: averages over the kept
// draws of theta / n and of c theta theta', n = sqrt(theta' G theta), c = s' theta / n^3
// (sam_model.hpp derives them).
struct ProportionsMoments {
  Eigen::VectorXd theta;          // K: the mean of theta itself (for inference of new documents)
  Eigen::VectorXd theta_over_n;   // K
  Eigen::MatrixXd c_theta_theta;  // K x K
  int accepted = 0, proposed = 0;
};

// A deliberately broken variant, for the negative control of the tests only: the
// Metropolis-Hastings ratio without the proposal densities (as if Langevin proposals were
// symmetric).
enum class ProportionsFault { kNone, kNoProposalCorrection };

// Runs `steps` MALA steps from `eta` (updated in place) with noise keyed by (seed, document,
// iteration); the moments average the draws after the first steps / 2.
ProportionsMoments SampleProportions(const ProportionsTarget& target, Eigen::VectorXd& eta,
                                     int steps, double epsilon, std::uint64_t seed,
                                     std::uint64_t document, std::uint64_t iteration,
                                     ProportionsFault fault = ProportionsFault::kNone);

// theta = softmax(eta).
Eigen::VectorXd ProportionsOf(const Eigen::VectorXd& eta);

}  // namespace carousel
