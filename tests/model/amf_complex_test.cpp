// The complex likelihood of alpha-stable MF (HAMCMC Eq. 15 with N_c, the paper's form for
// complex STFT data; amf_pieces.hpp), checked as the real pieces are in amf_pieces_test.cpp,
// each with a negative control:
//   1. the Phi Metropolis step on one entry with W, H fixed against the exact conditional
//      p(Phi | |x|) ∝ p(Phi) Phi^-1 exp(-|x|^2 / (Phi s^2)): closed form at alpha = 1,
//      quadrature of Kanter's representation at alpha = 1.5 (itself checked against the
//      closed form at alpha = 1); negative controls: the real likelihood's step on the same
//      |x|, and the inverted ratio;
//   2. the complex log density and its v-gradient against the formula and central
//      differences; the real one must differ;
//   3. alpha = 2: Phi steps and mirrored SGLD on h together against h's closed-form
//      inverse-gamma conditional for complex data; negative control: the real likelihood's
//      gradient on the same data.
// Thresholds: |z| < 4 from the chain's own batch-means standard errors.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <functional>
#include <iostream>
#include <vector>

#include "../sampler/mc_stats.hpp"
#include "amf_phi_quadrature.hpp"
#include "carousel/model/amf/amf_pieces.hpp"
#include "carousel/util/keyed_rng.hpp"

namespace carousel {
namespace {

constexpr double kZ = 4.0;
constexpr double kPi = 3.14159265358979323846;
constexpr double kEulerGamma = 0.57721566490153286;
constexpr AmfLikelihood kComplex = AmfLikelihood::kComplex;
constexpr AmfLikelihood kReal = AmfLikelihood::kReal;

struct PhiStats {
  double inv = 0.0;  // E[1 / Phi | x]
  double log = 0.0;  // E[log Phi | x]
};

// alpha = 1: Phi = 2 A with A Levy, so tau = 1/Phi ~ Gamma(1/2, rate 1/2) a priori; the complex
// likelihood Phi^-1 exp(-c / Phi), c = |x|^2 / s^2, is tau exp(-c tau), so tau | x ~
// Gamma(3/2, rate r), r = 1/2 + c: E[1/Phi] = 3 / (2 r), E[log Phi] = log r - digamma(3/2),
// digamma(3/2) = 2 - gamma_E - 2 log 2.
PhiStats ComplexLevyExact(double x, double v) {
  const double r = 0.5 + x * x / (v * v);
  return {1.5 / r, std::log(r) - (2.0 - kEulerGamma - 2.0 * std::log(2.0))};
}

PhiStats QuadratureExact(double x, double v, double alpha, double p) {
  const amf_test::PhiMoments q = amf_test::PhiConditionalByQuadrature(x, v, alpha, p);
  return {q.inv, q.log};
}

struct ChainResult {
  mc::Estimate inv, log;
  double tau = 0.0;
};

ChainResult RunPhiChain(double x, double v, double alpha, AmfLikelihood likelihood, PhiFault fault,
                        std::uint64_t seed, long steps) {
  std::vector<double> inv(static_cast<std::size_t>(steps)), lg(static_cast<std::size_t>(steps));
  double phi = 2.0;
  const long burn = steps / 10;
  for (long m = -burn; m < steps; ++m) {
    KeyedStream rng(seed, Purpose::kStable, 0, static_cast<std::uint64_t>(m + burn));
    phi = AmfPhiMetropolisStep(phi, x, v, alpha, rng, fault, nullptr, likelihood);
    if (m < 0) continue;
    inv[static_cast<std::size_t>(m)] = 1.0 / phi;
    lg[static_cast<std::size_t>(m)] = std::log(phi);
  }
  ChainResult r;
  r.inv = mc::BatchMeans(inv);
  r.log = mc::BatchMeans(lg);
  r.tau = std::max(mc::IntegratedAutocorrTime(inv), mc::IntegratedAutocorrTime(lg));
  return r;
}

TEST(AmfComplexPhi, QuadratureMatchesClosedFormAtAlphaOne) {
  for (double x : {0.2, 1.0, 4.0}) {
    const PhiStats q = QuadratureExact(x, 1.3, 1.0, 1.0), e = ComplexLevyExact(x, 1.3);
    std::cout << "  x " << x << ": E[1/Phi] " << q.inv << " vs " << e.inv << ", E[log Phi] "
              << q.log << " vs " << e.log << "\n";
    EXPECT_NEAR(q.inv, e.inv, 2e-5 * e.inv);  // far below the chain test's standard errors
    EXPECT_NEAR(q.log, e.log, 2e-5);
  }
}

// One entry (v = 1.3), |x| small and large, alpha = 1 (closed form) and 1.5 (quadrature):
// E[1/Phi] and E[log Phi] within 4 batch-means standard errors; the real likelihood's step and
// the inverted ratio on the same |x| must each give some |z| > 4.
TEST(AmfComplexPhi, StationaryLawMatchesExactConditional) {
  const auto start = std::chrono::steady_clock::now();
  const double v = 1.3;
  const long steps = 300000;
  std::uint64_t seed = 700;
  for (double alpha : {1.0, 1.5}) {
    for (double x : {0.2, 4.0}) {
      const PhiStats exact =
          alpha == 1.0 ? ComplexLevyExact(x, v) : QuadratureExact(x, v, alpha, 1.0);
      auto z_of = [&](const ChainResult& r) {
        return std::max(std::abs(r.inv.mean - exact.inv) / r.inv.se,
                        std::abs(r.log.mean - exact.log) / r.log.se);
      };
      const ChainResult good = RunPhiChain(x, v, alpha, kComplex, PhiFault::kNone, seed++, steps);
      std::cout << "  alpha " << alpha << " |x| " << x << ": E[1/Phi] " << good.inv.mean << " +- "
                << good.inv.se << " vs " << exact.inv << ", E[log Phi] " << good.log.mean << " +- "
                << good.log.se << " vs " << exact.log << "; max|z| " << z_of(good) << "\n";
      EXPECT_LT(z_of(good), kZ) << "alpha " << alpha << " x " << x;
      EXPECT_GT(static_cast<double>(good.inv.batch_size), 10.0 * good.tau);
      const ChainResult real = RunPhiChain(x, v, alpha, kReal, PhiFault::kNone, seed++, steps);
      std::cout << "    broken, real likelihood on complex data: max|z| " << z_of(real) << "\n";
      EXPECT_GT(z_of(real), kZ) << "alpha " << alpha << " x " << x;
      const ChainResult inv =
          RunPhiChain(x, v, alpha, kComplex, PhiFault::kInvertedRatio, seed++, steps);
      std::cout << "    broken, inverted ratio: max|z| " << z_of(inv) << "\n";
      EXPECT_GT(z_of(inv), kZ) << "alpha " << alpha << " x " << x;
    }
  }
  std::cout << "  ["
            << std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()
            << " s]\n";
}

TEST(AmfComplexLikelihood, DensityAndGradient) {
  for (double alpha : {0.6, 1.0, 1.7, 2.0})
    for (double x : {0.0, 0.1, 3.0})
      for (double v : {0.3, 1.0, 4.0})
        for (double phi : {0.2, 2.0, 30.0}) {
          const double s = phi * std::pow(v, 2.0 / alpha);
          EXPECT_NEAR(AmfEntryLogLikelihood(x, v, phi, alpha, kComplex),
                      -std::log(kPi * s) - x * x / s, 1e-12 * (1.0 + x * x / s));
          const double h = 1e-6 * v;
          const double numeric = (AmfEntryLogLikelihood(x, v + h, phi, alpha, kComplex) -
                                  AmfEntryLogLikelihood(x, v - h, phi, alpha, kComplex)) /
                                 (2 * h);
          const double analytic = AmfEntryLogLikelihoodDv(x, v, phi, alpha, kComplex);
          EXPECT_NEAR(analytic, numeric, 1e-6 * (1.0 + std::abs(numeric)));
          // The real density is another function of the same |x| (negative control).
          EXPECT_GT(std::abs(AmfEntryLogLikelihood(x, v, phi, alpha, kReal) -
                             AmfEntryLogLikelihood(x, v, phi, alpha, kComplex)),
                    1e-3);
        }
}

// alpha = 2, complex data: Phi = 2 surely and |X_i|^2 ~ 2 w_i h Exp(1) (N_c(0, 2 w_i h)).
// With h ~ InvGamma(a0, b0) the conditional is conjugate: the likelihood (2 w_i h)^-1
// exp(-|x_i|^2 / (2 w_i h)) gives h | X, W ~ InvGamma(a0 + I, b0 + sum_i |x_i|^2 / (2 w_i)).
// The chain alternates Phi steps (every 10th iteration; all accepted at alpha = 2) and a
// mirrored SGLD step of h with the gradient of log p(h) + sum_i w_i dlogl/dv. Step 2.5e-4 as
// in amf_pieces_test.cpp (the target's variance here, 0.03, is as large, so the Euler bias
// is again about 0.5% of the variance, below the standard error at 4e6 steps).
struct AlphaTwoResult {
  mc::Moments est;
  double mean = 0.0, var = 0.0;
};

AlphaTwoResult RunComplexAlphaTwoChain(AmfLikelihood gradient_likelihood, long steps) {
  const int rows = 20;
  const double a0 = 2.0, b0 = 1.0, alpha = 2.0, h_true = 0.8;
  std::vector<double> w(rows), x(rows);
  double ss = 0.0;
  for (int i = 0; i < rows; ++i) {
    KeyedStream rng(800, Purpose::kTest, static_cast<std::uint64_t>(i), 0);
    w[i] = 0.5 + rng.uniform();
    x[i] = AmfDrawComplexModulus(w[i] * h_true, alpha, rng);
    ss += x[i] * x[i] / (2.0 * w[i]);
  }
  AlphaTwoResult r;
  const double a_post = a0 + rows, b_post = b0 + ss;
  r.mean = b_post / (a_post - 1.0);
  r.var = r.mean * r.mean / (a_post - 2.0);
  const double step = 2.5e-4;
  const long burn = 100000;
  std::vector<double> phi(rows, 2.0);
  Eigen::MatrixXd draws(steps, 1);
  double h = 1.0;
  KeyedStream noise(802, Purpose::kTest, 0, 0);
  for (long m = -burn; m < steps; ++m) {
    const auto it = static_cast<std::uint64_t>(m + burn);
    if (it % 10 == 0)
      for (int i = 0; i < rows; ++i) {
        KeyedStream rng(801, Purpose::kStable, static_cast<std::uint64_t>(i), it);
        phi[i] = AmfPhiMetropolisStep(phi[i], x[i], w[i] * h, alpha, rng, PhiFault::kNone, nullptr,
                                      kComplex);
      }
    if (it % 4096 == 0) noise = KeyedStream(802, Purpose::kTest, 0, it / 4096);
    double grad = (-a0 - 1.0) / h + b0 / (h * h);
    for (int i = 0; i < rows; ++i)
      grad += w[i] * AmfEntryLogLikelihoodDv(x[i], w[i] * h, phi[i], alpha, gradient_likelihood);
    h = MirroredLangevinStep(h, grad, step, noise.normal());
    if (m >= 0) draws(m, 0) = h;
  }
  r.est = mc::EstimateMoments(draws, 10000);
  return r;
}

TEST(AmfComplexAlphaTwo, MirroredSgldOnHMatchesInverseGammaPosterior) {
  const AlphaTwoResult good = RunComplexAlphaTwoChain(kComplex, 4000000);
  const Eigen::VectorXd m_exact = Eigen::VectorXd::Constant(1, good.mean);
  const Eigen::MatrixXd v_exact = Eigen::MatrixXd::Constant(1, 1, good.var);
  std::cout << "  E[h] " << good.est.mean(0) << " +- " << good.est.mean_se(0) << " vs " << good.mean
            << ", Var[h] " << good.est.cov(0, 0) << " +- " << good.est.cov_se(0, 0) << " vs "
            << good.var << "; tau " << good.est.max_tau << "; max|z| "
            << mc::MaxAbsZ(good.est, m_exact, v_exact) << "\n";
  for (const std::string& f : mc::CompareMoments(good.est, m_exact, v_exact, kZ, "complex"))
    ADD_FAILURE() << f;
  EXPECT_GT(static_cast<double>(good.est.batch_size), 10.0 * good.est.max_tau);
  // Negative control: the real likelihood's gradient on the same complex data targets
  // InvGamma(a0 + I/2, b0 + sum |x|^2 / (4 w)), half the information.
  const AlphaTwoResult bad = RunComplexAlphaTwoChain(kReal, 1000000);
  const double z_bad = mc::MaxAbsZ(bad.est, m_exact, v_exact);
  std::cout << "    broken, real likelihood: E[h] " << bad.est.mean(0) << ", Var[h] "
            << bad.est.cov(0, 0) << "; max|z| " << z_bad << "\n";
  EXPECT_GT(z_bad, kZ);
}

}  // namespace
}  // namespace carousel
