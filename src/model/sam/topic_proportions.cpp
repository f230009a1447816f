// MALA for a document's topic proportions in SAM (see topic_proportions.hpp).
#include "carousel/model/sam/topic_proportions.hpp"

#include <cmath>

#include "carousel/util/keyed_rng.hpp"

namespace carousel {

double ProportionsLogDensity(const ProportionsTarget& target, const Eigen::VectorXd& eta,
                             Eigen::VectorXd* gradient) {
  const Eigen::Index k = eta.size();
  const Eigen::VectorXd gamma = eta.array().exp().matrix();
  const Eigen::Map<const Eigen::VectorXd> s(target.s, k);
  const Eigen::VectorXd g_gamma = (*target.gram) * gamma;
  const double nn = gamma.dot(g_gamma);  // |beta' gamma|^2
  const double n = std::sqrt(nn);
  const double sg = s.dot(gamma);
  const double log_prior = target.alpha * eta.sum() - gamma.sum();
  if (gradient) {
    // d/d gamma of s' gamma / n: s / n - (s' gamma) G gamma / n^3; times d gamma / d eta.
    const Eigen::VectorXd d_gamma = s / n - (sg / (nn * n)) * g_gamma;
    *gradient =
        (target.alpha - gamma.array() + target.kappa1 * gamma.array() * d_gamma.array()).matrix();
  }
  return log_prior + target.kappa1 * sg / n;
}

Eigen::VectorXd ProportionsOf(const Eigen::VectorXd& eta) {
  const Eigen::VectorXd e = (eta.array() - eta.maxCoeff()).exp().matrix();
  return e / e.sum();
}

ProportionsMoments SampleProportions(const ProportionsTarget& target, Eigen::VectorXd& eta,
                                     int steps, double epsilon, std::uint64_t seed,
                                     std::uint64_t document, std::uint64_t iteration,
                                     ProportionsFault fault) {
  const Eigen::Index k = eta.size();
  const Eigen::Map<const Eigen::VectorXd> s(target.s, k);
  KeyedStream rng(seed, Purpose::kTopicProportions, document, iteration);
  ProportionsMoments m;
  m.theta = Eigen::VectorXd::Zero(k);
  m.theta_over_n = Eigen::VectorXd::Zero(k);
  m.c_theta_theta = Eigen::MatrixXd::Zero(k, k);
  const double half_eps2 = 0.5 * epsilon * epsilon;
  Eigen::VectorXd grad(k), grad_new(k), proposal(k);
  double log_p = ProportionsLogDensity(target, eta, &grad);
  int kept = 0;
  for (int step = 0; step < steps; ++step) {
    for (Eigen::Index i = 0; i < k; ++i)
      proposal(i) = eta(i) + half_eps2 * grad(i) + epsilon * rng.normal();
    const double log_p_new = ProportionsLogDensity(target, proposal, &grad_new);
    // log q(eta | proposal) - log q(proposal | eta), Gaussian proposals of variance eps^2.
    const double back = (eta - proposal - half_eps2 * grad_new).squaredNorm();
    const double forth = (proposal - eta - half_eps2 * grad).squaredNorm();
    const double correction = fault == ProportionsFault::kNoProposalCorrection
                                  ? 0.0
                                  : (back - forth) / (2.0 * epsilon * epsilon);
    const double log_ratio = log_p_new - log_p - correction;
    ++m.proposed;
    if (std::isfinite(log_ratio) && std::log(rng.uniform()) < log_ratio) {
      eta = proposal;
      grad = grad_new;
      log_p = log_p_new;
      ++m.accepted;
    }
    if (step < steps / 2) continue;
    const Eigen::VectorXd theta = ProportionsOf(eta);
    const double n = std::sqrt(theta.dot((*target.gram) * theta));
    m.theta += theta;
    m.theta_over_n += theta / n;
    m.c_theta_theta += (s.dot(theta) / (n * n * n)) * theta * theta.transpose();
    ++kept;
  }
  if (kept > 0) {
    m.theta /= kept;
    m.theta_over_n /= kept;
    m.c_theta_theta /= kept;
  }
  return m;
}

}  // namespace carousel
