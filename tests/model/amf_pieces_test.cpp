// The pieces of alpha-stable MF checked exactly, each with a negative control (issue #16,
// part 3; amf_pieces.hpp, positive_stable.hpp; HAMCMC Sec. 4.2, Eq. 14-15):
//   1. the positive alpha/2-stable prior of Phi against its Laplace transform
//      E[exp(-s Phi)] = exp(-(2 s)^(alpha/2)) at several s and alpha (z-tests with the Monte
//      Carlo standard error), and Eq. 14 through Eq. 15 against the SaS characteristic
//      function; negative controls: Kanter's formula with a wrong exponent, and the prior
//      without the paper's factor 2;
//   2. the Metropolis step of Phi_ij with W, H fixed against the exact conditional (closed
//      form at alpha = 1, quadrature of Kanter's representation at alpha = 0.6, 1.5, itself checked
//      against the closed-form Laplace transform and the alpha = 1 conditional); negative
//      controls: always accept, inverted ratio;
//   3. mirrored SGLD on non-negative 1-D targets (exponential, truncated Gaussian) by a KS
//      test of the thinned chain; negative control: clipping at 0;
//   4. the likelihood gradient against central differences;
//   5. alpha = 2 (Gaussian variance model): Phi steps and mirrored SGLD on H together against
//      H's closed-form inverse-gamma conditional (K = 1, W fixed).
// Every threshold is |z| < 4 or a KS level of 0.001, from the run's own Monte Carlo error.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "../sampler/ks.hpp"
#include "../sampler/mc_stats.hpp"
#include "amf_phi_quadrature.hpp"
#include "carousel/model/amf/amf_pieces.hpp"
#include "carousel/util/error.hpp"
#include "carousel/util/keyed_rng.hpp"
#include "carousel/util/positive_stable.hpp"

namespace carousel {
namespace {

constexpr double kZ = 4.0;
constexpr double kPi = 3.14159265358979323846;
constexpr double kEulerGamma = 0.57721566490153286;

double Seconds(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// ---------------------------------------------------------------------------------------
// 1. The prior of Phi

using PhiSampler = std::function<double(double alpha, KeyedStream& rng)>;

// Largest |z| over s of mean(exp(-s Phi)) against exp(-(2 s)^(alpha/2)), n independent
// draws; s is chosen so that (2 s)^(alpha/2) runs over {0.1, 0.5, 1, 2, 4}, i.e. the
// transform from 0.90 down to 0.018, which probes the body and both tails.
double LaplaceWorstZ(const PhiSampler& sample, double alpha, std::uint64_t seed, long n,
                     std::string* report) {
  const std::vector<double> exponents = {0.1, 0.5, 1.0, 2.0, 4.0};
  std::vector<double> s(exponents.size());
  for (std::size_t i = 0; i < s.size(); ++i) s[i] = 0.5 * std::pow(exponents[i], 2.0 / alpha);
  std::vector<double> sum(s.size(), 0.0), sum2(s.size(), 0.0);
  for (long m = 0; m < n; ++m) {
    KeyedStream rng(seed, Purpose::kTest, static_cast<std::uint64_t>(m), 0);
    const double phi = sample(alpha, rng);
    for (std::size_t i = 0; i < s.size(); ++i) {
      const double y = std::exp(-s[i] * phi);
      sum[i] += y;
      sum2[i] += y * y;
    }
  }
  double worst = 0.0;
  std::string line;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const double mean = sum[i] / n;
    const double se = std::sqrt((sum2[i] / n - mean * mean) / (n - 1));
    const double exact = std::exp(AmfPhiLogLaplace(alpha, s[i]));
    const double z = (mean - exact) / se;
    worst = std::max(worst, std::abs(z));
    std::ostringstream entry;
    entry << " z(s=" << s[i] << ")=" << z;
    line += entry.str();
  }
  *report = line;
  return worst;
}

// Kanter's formula with the exponent of sin(U) taken as 1/(1 - a) instead of 1/a (the
// exponent of Zolotarev's function, a plausible slip); identical at a = 1/2 (alpha = 1).
double WrongExponentPrior(double alpha, KeyedStream& rng) {
  const double a = 0.5 * alpha;
  const double u = kPi * rng.uniform();
  const double e = -std::log(rng.uniform());
  return 2.0 * std::exp(std::log(std::sin(a * u)) - std::log(std::sin(u)) / (1.0 - a) +
                        (1.0 - a) / a * (std::log(std::sin((1.0 - a) * u)) - std::log(e)));
}

// S_{alpha/2}(cos(pi alpha/4)^(2/alpha), 1, 0) of Samorodnitsky and Taqqu Prop. 1.3.1,
// without the paper's factor 2 (right for X = A^(1/2) G with G ~ N(0, 2 sigma^2), wrong for
// Eq. 15's N(0, Phi v^(2/alpha))).
double NoFactorTwoPrior(double alpha, KeyedStream& rng) {
  return PositiveStable(0.5 * alpha, rng);
}

TEST(StablePositive, LaplaceTransformMatchesAndWrongVariantsAreRejected) {
  const auto start = std::chrono::steady_clock::now();
  const long n = 400000;
  std::uint64_t seed = 100;
  for (double alpha : {0.2, 0.5, 0.8, 1.0, 1.2, 1.5, 1.89}) {
    std::string report;
    const double good = LaplaceWorstZ(AmfPhiPrior, alpha, seed++, n, &report);
    std::cout << "  alpha " << alpha << " Kanter: max|z| " << good << " [" << report << "]\n";
    EXPECT_LT(good, kZ) << "alpha " << alpha;
    const double no_two = LaplaceWorstZ(NoFactorTwoPrior, alpha, seed++, n, &report);
    std::cout << "    broken, no factor 2: max|z| " << no_two << "\n";
    EXPECT_GT(no_two, kZ) << "alpha " << alpha;
    if (alpha != 1.0) {
      const double wrong = LaplaceWorstZ(WrongExponentPrior, alpha, seed++, n, &report);
      std::cout << "    broken, sin(U)^(1/(1-a)): max|z| " << wrong << "\n";
      EXPECT_GT(wrong, kZ) << "alpha " << alpha;
    }
  }
  std::cout << "  [" << Seconds(start) << " s]\n";
}

TEST(StablePositive, EdgeCasesAndKeying) {
  KeyedStream rng(7, Purpose::kTest, 0, 0);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(AmfPhiPrior(2.0, rng), 2.0);  // Phi = 2 at alpha = 2
  for (int i = 0; i < 1000; ++i) {
    const double log_a = LogPositiveStable(0.02, rng);  // far tail: A overflows, log A not
    ASSERT_TRUE(std::isfinite(log_a));
  }
  KeyedStream a(9, Purpose::kStable, 3, 4), b(9, Purpose::kStable, 3, 4);
  EXPECT_EQ(AmfPhiPrior(1.3, a), AmfPhiPrior(1.3, b));
  EXPECT_THROW(LogPositiveStable(0.0, rng), Error);
  EXPECT_THROW(LogPositiveStable(1.5, rng), Error);
  EXPECT_THROW(AmfPhiPrior(2.5, rng), Error);
}

// Eq. 14 by way of Eq. 15: X = sqrt(Phi) v^(1/alpha) N(0, 1) must have the characteristic
// function E[cos(t X)] = exp(-v |t|^alpha) (the imaginary part is 0 by symmetry). This is the
// statement that Phi's scale is the one Eq. 14 needs.
TEST(StablePositive, ProductPropertyGivesSymmetricStableEntries) {
  const long n = 400000;
  const double v = 0.7;
  std::uint64_t seed = 200;
  for (double alpha : {0.7, 1.0, 1.5, 2.0}) {
    const std::vector<double> ts = {0.3, 1.0, 2.0};
    std::vector<double> sum(ts.size()), sum2(ts.size());
    for (long m = 0; m < n; ++m) {
      KeyedStream rng(seed, Purpose::kTest, static_cast<std::uint64_t>(m), 0);
      const double x = AmfDrawEntry(v, alpha, rng);
      for (std::size_t i = 0; i < ts.size(); ++i) {
        const double c = std::cos(ts[i] * x);
        sum[i] += c;
        sum2[i] += c * c;
      }
    }
    ++seed;
    for (std::size_t i = 0; i < ts.size(); ++i) {
      const double mean = sum[i] / n, se = std::sqrt((sum2[i] / n - mean * mean) / (n - 1));
      const double exact = std::exp(-v * std::pow(ts[i], alpha));
      const double z = (mean - exact) / se;
      std::cout << "  alpha " << alpha << " t " << ts[i] << ": E cos(tX) " << mean << " vs "
                << exact << " (z " << z << ")\n";
      EXPECT_LT(std::abs(z), kZ);
    }
  }
}

// ---------------------------------------------------------------------------------------
// 2. The Metropolis step of Phi_ij

struct PhiStats {
  double inv = 0.0;  // E[1 / Phi | x]
  double log = 0.0;  // E[log Phi | x]
};

// The exact conditional's moments at alpha = 1: Phi = 2 A with A Levy, so 1/Phi ~ chi^2_1 =
// Gamma(1/2, rate 1/2) a priori; the likelihood Phi^(-1/2) exp(-x^2 / (2 Phi s^2)) is
// tau^(1/2) exp(-tau x^2 / (2 s^2)) in tau = 1/Phi, so tau | x ~ Gamma(1, rate r),
// r = (1 + x^2/s^2) / 2: E[1/Phi] = 1/r, E[log Phi] = -E[log tau] = gamma_E + log r.
PhiStats LevyExact(double x, double v) {
  const double r = 0.5 * (1.0 + x * x / (v * v));
  return {1.0 / r, kEulerGamma + std::log(r)};
}

// The exact conditional's moments at any alpha < 2 by quadrature of Kanter's representation
// (amf_phi_quadrature.hpp), checked against LevyExact at alpha = 1.
PhiStats QuadratureExact(double x, double v, double alpha) {
  const amf_test::PhiMoments q = amf_test::PhiConditionalByQuadrature(x, v, alpha, 0.5);
  return {q.inv, q.log};
}

// E[exp(-s Phi)] by the same quadrature: checks LogZolotarev (the quadrature's only input)
// against the closed-form Laplace transform at any alpha.
double QuadratureLaplace(double alpha, double s) {
  const double a = 0.5 * alpha;
  const int nu = 1500, nt = 3000;
  const double t_lo = -45.0, t_hi = 4.0, ht = (t_hi - t_lo) / nt;
  double sum = 0.0;
  for (int i = 0; i < nu; ++i) {
    const double log_z = LogZolotarev(a, kPi * (i + 0.5) / nu);
    for (int j = 0; j < nt; ++j) {
      const double t = t_lo + (j + 0.5) * ht;
      const double phi = 2.0 * std::exp((1.0 - a) / a * (log_z - t));
      sum += std::exp(t - std::exp(t) - s * phi);
    }
  }
  return sum * ht / nu;
}

struct ChainResult {
  mc::Estimate inv, log;
  double acceptance = 0.0, tau = 0.0;
};

ChainResult RunPhiChain(double x, double v, double alpha, PhiFault fault, std::uint64_t seed,
                        long steps) {
  std::vector<double> inv(static_cast<std::size_t>(steps)), lg(static_cast<std::size_t>(steps));
  double phi = 2.0;  // any start: the first tenth is discarded
  long accepted = 0;
  const long burn = steps / 10;
  for (long m = -burn; m < steps; ++m) {
    KeyedStream rng(seed, Purpose::kStable, 0, static_cast<std::uint64_t>(m + burn));
    bool acc = false;
    phi = AmfPhiMetropolisStep(phi, x, v, alpha, rng, fault, &acc);
    if (m < 0) continue;
    accepted += acc;
    inv[static_cast<std::size_t>(m)] = 1.0 / phi;
    lg[static_cast<std::size_t>(m)] = std::log(phi);
  }
  ChainResult r;
  r.inv = mc::BatchMeans(inv);
  r.log = mc::BatchMeans(lg);
  r.acceptance = static_cast<double>(accepted) / steps;
  r.tau = std::max(mc::IntegratedAutocorrTime(inv), mc::IntegratedAutocorrTime(lg));
  return r;
}

TEST(AmfPhiMetropolis, QuadratureMatchesClosedForms) {
  for (double alpha : {0.6, 1.5})
    for (double s : {0.05, 0.5, 3.0}) {
      const double q = QuadratureLaplace(alpha, s), e = std::exp(AmfPhiLogLaplace(alpha, s));
      std::cout << "  alpha " << alpha << " s " << s << ": E[exp(-s Phi)] " << q << " vs " << e
                << "\n";
      EXPECT_NEAR(q, e, 2e-5);
    }
  for (double x : {0.2, 1.0, 4.0}) {
    const PhiStats q = QuadratureExact(x, 1.3, 1.0), e = LevyExact(x, 1.3);
    std::cout << "  x " << x << ": E[1/Phi] " << q.inv << " vs " << e.inv << ", E[log Phi] "
              << q.log << " vs " << e.log << "\n";
    // Far below the smallest Monte Carlo standard error of the chain test below (4e-4), so
    // quadrature error cannot decide it.
    EXPECT_NEAR(q.inv, e.inv, 2e-5 * e.inv);
    EXPECT_NEAR(q.log, e.log, 2e-5);
  }
}

// The chain on one entry (v = 1.3) against the exact conditional at alpha = 1 (closed form)
// and alpha = 0.6, 1.5 (quadrature), for a small and a large |x|: E[1/Phi] and E[log Phi] within
// 4 batch-means standard errors (batches of sqrt(n) = 775 steps, checked to be over 10
// autocorrelation times). Both broken variants must be rejected (some |z| > 4) in every case.
TEST(AmfPhiMetropolis, StationaryLawMatchesExactConditional) {
  const auto start = std::chrono::steady_clock::now();
  const double v = 1.3;
  const long steps = 600000;
  std::uint64_t seed = 300;
  for (double alpha : {0.6, 1.0, 1.5}) {
    for (double x : {0.2, 4.0}) {
      const PhiStats exact = alpha == 1.0 ? LevyExact(x, v) : QuadratureExact(x, v, alpha);
      auto z_of = [&](const ChainResult& r) {
        return std::max(std::abs(r.inv.mean - exact.inv) / r.inv.se,
                        std::abs(r.log.mean - exact.log) / r.log.se);
      };
      const ChainResult good = RunPhiChain(x, v, alpha, PhiFault::kNone, seed++, steps);
      std::cout << "  alpha " << alpha << " x " << x << ": E[1/Phi] " << good.inv.mean << " +- "
                << good.inv.se << " vs " << exact.inv << ", E[log Phi] " << good.log.mean << " +- "
                << good.log.se << " vs " << exact.log << "; acceptance " << good.acceptance
                << ", tau " << good.tau << "; max|z| " << z_of(good) << "\n";
      EXPECT_LT(z_of(good), kZ) << "alpha " << alpha << " x " << x;
      EXPECT_GT(static_cast<double>(good.inv.batch_size), 10.0 * good.tau);
      for (PhiFault fault : {PhiFault::kAlwaysAccept, PhiFault::kInvertedRatio}) {
        const ChainResult bad = RunPhiChain(x, v, alpha, fault, seed++, steps);
        const char* name = fault == PhiFault::kAlwaysAccept ? "always accept" : "inverted ratio";
        std::cout << "    broken, " << name << ": E[1/Phi] " << bad.inv.mean << ", E[log Phi] "
                  << bad.log.mean << "; max|z| " << z_of(bad) << "\n";
        EXPECT_GT(z_of(bad), kZ) << name << " alpha " << alpha << " x " << x;
      }
    }
  }
  std::cout << "  [" << Seconds(start) << " s]\n";
}

TEST(AmfPhiMetropolis, RejectsInvalidInputsWithTheRightCode) {
  KeyedStream rng(350, Purpose::kStable, 0, 0);
  auto code = [&](double phi, double x, double v) {
    try {
      AmfPhiMetropolisStep(phi, x, v, 1.2, rng);
    } catch (const Error& e) {
      return e.code();
    }
    return ExitCode::kOk;
  };
  EXPECT_EQ(code(1.0, NAN, 1.0), ExitCode::kDiverged);
  EXPECT_EQ(code(1.0, 1.0, HUGE_VAL), ExitCode::kDiverged);
  EXPECT_EQ(code(HUGE_VAL, 1.0, 1.0), ExitCode::kDiverged);
  EXPECT_EQ(code(1.0, 1.0, 0.0), ExitCode::kInternal);
  EXPECT_EQ(code(0.0, 1.0, 1.0), ExitCode::kInternal);
  EXPECT_EQ(code(1.0, 0.0, 1.0), ExitCode::kOk);  // x = 0 is a valid datum
  // Same key, same step (rank-count invariance relies on this).
  KeyedStream a(351, Purpose::kStable, 5, 9), b(351, Purpose::kStable, 5, 9);
  EXPECT_EQ(AmfPhiMetropolisStep(1.0, 0.7, 1.1, 1.4, a),
            AmfPhiMetropolisStep(1.0, 0.7, 1.1, 1.4, b));
}

// ---------------------------------------------------------------------------------------
// 3. Mirrored SGLD on non-negative targets

struct Target1d {
  std::string name;
  std::function<double(double)> log_density, gradient;
  double hi;  // the CDF table's upper end (mass above it < 1e-12)
};

// Autocorrelation time (ks.hpp) of x and of the indicators at the target's quartiles.
double TauOf(const std::vector<double>& x, const ks::TabulatedCdf& cdf) {
  double tau = ks::PooledAutocorrTime({x});
  for (double p : {0.25, 0.5, 0.75}) {
    const double q = cdf.Quantile(p);
    std::vector<double> ind(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) ind[i] = x[i] <= q;
    tau = std::max(tau, ks::PooledAutocorrTime({ind}));
  }
  return tau;
}

// Every `thin`-th state of a mirrored (or, broken, clipped) SGLD chain after a burn-in of
// steps / 20, and the fraction of all steps that ended at exactly 0.
std::vector<double> RunMirroredChain(const Target1d& target, double step, long steps, long thin,
                                     MirrorFault fault, std::uint64_t seed, double* at_zero) {
  std::vector<double> kept;
  double theta = 1.0;
  long zeros = 0;
  const long burn = steps / 20;
  // One keyed stream per block of 4096 steps (both values of each Box-Muller pair used).
  KeyedStream rng(seed, Purpose::kTest, 0, 0);
  for (long m = -burn; m < steps; ++m) {
    if ((m + burn) % 4096 == 0)
      rng = KeyedStream(seed, Purpose::kTest, 0, static_cast<std::uint64_t>((m + burn) / 4096));
    theta = MirroredLangevinStep(theta, target.gradient(theta), step, rng.normal(), fault);
    if (m < 0) continue;
    zeros += theta == 0.0;
    if (m % thin == 0) kept.push_back(theta);
  }
  if (at_zero) *at_zero = static_cast<double>(zeros) / steps;
  return kept;
}

struct KsResult {
  double distance = 0.0, threshold = 0.0, tau = 0.0, at_zero = 0.0;
  std::size_t kept = 0;
};

// The chain thinned by its autocorrelation time, measured on a pilot run of 2^19 steps (the
// same chain's start; tau is some hundreds of steps, so the pilot spans hundreds of them),
// its KS distance to `cdf`, and the 0.001-level threshold at the effective size of the thinned
// draws (their remaining autocorrelation time charged, ks.hpp).
KsResult KsOfChain(const Target1d& target, const ks::TabulatedCdf& cdf, double step, long steps,
                   MirrorFault fault, std::uint64_t seed) {
  KsResult r;
  r.tau = TauOf(RunMirroredChain(target, step, 1L << 19, 1, fault, seed, nullptr), cdf);
  const std::vector<double> kept = RunMirroredChain(
      target, step, steps, static_cast<long>(std::ceil(r.tau)), fault, seed, &r.at_zero);
  const double tau_thin = std::max(1.0, TauOf(kept, cdf));
  r.kept = kept.size();
  r.distance = ks::Distance(kept, std::cref(cdf));
  r.threshold = ks::Threshold(static_cast<double>(kept.size()) / tau_thin, 0.001);
  return r;
}

// Two targets with positive density at 0 (where mirroring and clipping differ): Gamma(1, 1.5)
// (exponential, constant gradient -1.5) and N(0.3, 1) truncated to [0, inf). Step h = 0.002.
// Mirroring is the symmetrised Euler scheme of a reflected diffusion (Bossy, Gobet and Talay
// 2004), whose bias is O(h): measured apart from this test with 2e8 steps on the exponential
// target, the KS distance of the stationary law is about 0.007 at h = 0.005, 0.004 at 0.0025
// and 0.002 at 0.001 (each with ~0.003 of sampling noise), against a resolution here of 0.010 to
// 0.014. Clipping puts an atom at 0 of mass O(sqrt(h)) (the chance that a step from the boundary
// layer crosses 0, about p(0) sqrt(2h) / sqrt(2 pi) per step), several times that resolution.
// 2.4e7 steps (48000 time units, ~3e4 to 5e4 thinned draws) per chain.
TEST(AmfMirror, MirroredSgldMatchesNonNegativeTargetsClippingDoesNot) {
  const auto start = std::chrono::steady_clock::now();
  const std::vector<Target1d> targets = {
      {"Gamma(1, 1.5)", [](double x) { return -1.5 * x; }, [](double) { return -1.5; }, 25.0},
      {"N(0.3, 1) on [0, inf)", [](double x) { return -0.5 * (x - 0.3) * (x - 0.3); },
       [](double x) { return -(x - 0.3); }, 9.0},
  };
  const double step = 0.002;
  const long steps = 24000000;
  std::uint64_t seed = 400;
  for (const Target1d& t : targets) {
    const ks::TabulatedCdf cdf(t.log_density, 0.0, t.hi);
    const KsResult good = KsOfChain(t, cdf, step, steps, MirrorFault::kNone, seed++);
    std::cout << "  " << t.name << ", mirrored, h " << step << ": KS " << good.distance
              << " (0.001 threshold " << good.threshold << "; tau " << good.tau << ", " << good.kept
              << " draws kept)\n";
    EXPECT_LT(good.distance, good.threshold) << t.name;
    const KsResult bad = KsOfChain(t, cdf, step, steps, MirrorFault::kClipAtZero, seed++);
    std::cout << "    broken, clipped at 0: KS " << bad.distance << " (threshold " << bad.threshold
              << "; " << bad.at_zero << " of the steps at exactly 0)\n";
    EXPECT_GT(bad.distance, bad.threshold) << t.name;
  }
  std::cout << "  [" << Seconds(start) << " s]\n";
}

// ---------------------------------------------------------------------------------------
// 4. The likelihood gradient

TEST(AmfLikelihood, DvMatchesCentralDifferences) {
  for (double alpha : {0.6, 1.0, 1.7, 2.0})
    for (double x : {-2.0, 0.1, 3.0})
      for (double v : {0.3, 1.0, 4.0})
        for (double phi : {0.2, 2.0, 30.0}) {
          const double h = 1e-6 * v;
          const double numeric = (AmfEntryLogLikelihood(x, v + h, phi, alpha) -
                                  AmfEntryLogLikelihood(x, v - h, phi, alpha)) /
                                 (2 * h);
          const double analytic = AmfEntryLogLikelihoodDv(x, v, phi, alpha);
          EXPECT_NEAR(analytic, numeric, 1e-6 * (1.0 + std::abs(numeric)))
              << alpha << " " << x << " " << v << " " << phi;
        }
}

// ---------------------------------------------------------------------------------------
// 5. alpha = 2: the Gaussian variance model, H given W in closed form

// One column of H (K = 1, one entry h) and I = 20 rows of a fixed W: at alpha = 2 Phi = 2
// surely (Laplace transform exp(-2 s)) and Eq. 15 is X_i ~ N(0, 2 w_i h). With the prior
// h ~ InvGamma(a0, b0) (the generalized gamma GG(., ., -2/alpha) of Eq. 14 at alpha = 2 is of
// this inverse-gamma form, p(h) ∝ h^(-a0-1) exp(-b0/h)) the conditional is conjugate:
//   h | X, W ~ InvGamma(a0 + I/2, b0 + sum_i x_i^2 / (4 w_i)).
// The chain alternates the Phi_i Metropolis steps (all accepted: proposal = 2 = current) and
// a mirrored SGLD step of h with the gradient d log p(h)/dh + sum_i w_i dlogl/dv(x_i, w_i h),
// i.e. the production pieces together; its E[h] and Var[h] within 4 batch-means standard
// errors of the inverse-gamma ones. Step 2.5e-4: the Euler chain's bias is O(step) (its
// variance is off by about a factor 1 + step / (2 s2) for a target of variance s2 = 0.026, i.e.
// 0.5%; at step 5e-4 the mean came out 0.5% high, some 2 standard errors, in two runs), a
// fraction of the standard error at 4e6 steps; the autocorrelation time ~ 2 s2 / step ~ 200 to
// 500 steps is far below the batch size of 10^4 (400 batches).
using DvFunction = std::function<double(double x, double v, double phi, double alpha)>;

struct AlphaTwoResult {
  mc::Moments est;
  double mean = 0.0, var = 0.0;  // the exact conditional's
};

// The chain of the comment above with the entry gradient `dv` (the production one, or a broken
// one). The Phi sweep runs every 10th iteration (a fixed scan of kernels that each leave the
// joint invariant; at alpha = 2 the sweep is a no-op and costs most of the time).
AlphaTwoResult RunAlphaTwoChain(const DvFunction& dv, long steps) {
  const int rows = 20;
  const double a0 = 2.0, b0 = 1.0, alpha = 2.0, h_true = 0.8;
  std::vector<double> w(rows), x(rows);
  double ss = 0.0;
  for (int i = 0; i < rows; ++i) {
    KeyedStream rng(600, Purpose::kTest, static_cast<std::uint64_t>(i), 0);
    w[i] = 0.5 + rng.uniform();
    x[i] = AmfDrawEntry(w[i] * h_true, alpha, rng);
    ss += x[i] * x[i] / (4.0 * w[i]);
  }
  AlphaTwoResult r;
  const double a_post = a0 + 0.5 * rows, b_post = b0 + ss;
  r.mean = b_post / (a_post - 1.0);
  r.var = r.mean * r.mean / (a_post - 2.0);
  const double step = 2.5e-4;
  const long burn = 100000;
  std::vector<double> phi(rows, 2.0);
  Eigen::MatrixXd draws(steps, 1);
  double h = 1.0;
  KeyedStream noise(602, Purpose::kTest, 0, 0);
  for (long m = -burn; m < steps; ++m) {
    const auto it = static_cast<std::uint64_t>(m + burn);
    if (it % 10 == 0) {
      for (int i = 0; i < rows; ++i) {
        KeyedStream rng(601, Purpose::kStable, static_cast<std::uint64_t>(i), it);
        phi[i] = AmfPhiMetropolisStep(phi[i], x[i], w[i] * h, alpha, rng);
        EXPECT_EQ(phi[i], 2.0);
      }
    }
    if (it % 4096 == 0) noise = KeyedStream(602, Purpose::kTest, 0, it / 4096);
    double grad = (-a0 - 1.0) / h + b0 / (h * h);
    for (int i = 0; i < rows; ++i) grad += w[i] * dv(x[i], w[i] * h, phi[i], alpha);
    h = MirroredLangevinStep(h, grad, step, noise.normal());
    if (m >= 0) draws(m, 0) = h;
  }
  r.est = mc::EstimateMoments(draws, 10000);
  return r;
}

TEST(AmfAlphaTwo, MirroredSgldOnHMatchesInverseGammaPosterior) {
  const auto start = std::chrono::steady_clock::now();
  const AlphaTwoResult good =
      RunAlphaTwoChain([](double x, double v, double phi,
                          double alpha) { return AmfEntryLogLikelihoodDv(x, v, phi, alpha); },
                       4000000);
  const Eigen::VectorXd m_exact = Eigen::VectorXd::Constant(1, good.mean);
  const Eigen::MatrixXd v_exact = Eigen::MatrixXd::Constant(1, 1, good.var);
  const mc::Moments& est = good.est;
  std::cout << "  E[h] " << est.mean(0) << " +- " << est.mean_se(0) << " vs " << good.mean
            << ", Var[h] " << est.cov(0, 0) << " +- " << est.cov_se(0, 0) << " vs " << good.var
            << "; tau " << est.max_tau << ", batches of " << est.batch_size << "; max|z| "
            << mc::MaxAbsZ(est, m_exact, v_exact) << "  [" << Seconds(start) << " s]\n";
  for (const std::string& f : mc::CompareMoments(est, m_exact, v_exact, kZ, "alpha = 2"))
    ADD_FAILURE() << f;
  EXPECT_GT(static_cast<double>(est.batch_size), 10.0 * est.max_tau);

  // Negative control: the gradient without the normaliser's -1/(alpha v) (the log-determinant
  // of the Gaussian, a plausible slip) targets InvGamma(a0, b0 + sum x^2/(4w)) instead.
  const AlphaTwoResult bad = RunAlphaTwoChain(
      [](double x, double v, double phi, double alpha) {
        return x * x * std::pow(v, -2.0 / alpha - 1.0) / (phi * alpha);
      },
      1000000);
  const double z_bad = mc::MaxAbsZ(bad.est, m_exact, v_exact);
  std::cout << "    broken, no -1/(alpha v) term: E[h] " << bad.est.mean(0) << " +- "
            << bad.est.mean_se(0) << ", Var[h] " << bad.est.cov(0, 0) << "; max|z| " << z_bad
            << "  [" << Seconds(start) << " s]\n";
  EXPECT_GT(z_bad, kZ);
}

}  // namespace
}  // namespace carousel
