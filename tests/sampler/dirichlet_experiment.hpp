// The sparse/dense Dirichlet-posterior experiment of Baker, Fearnhead, Fox and Nemeth
// (2018, "Large-scale stochastic sampling from the probability simplex"), Sec. 1.3 (the
// "running experiment") and Sec. 2.2 (Fig. 1 and 2), as reusable functions for the tests
// and the benchmarks.
//
// Data: N categorical observations in d = 10 categories with counts n_k; prior
// Dirichlet(alpha, ..., alpha), alpha = 0.1; posterior Dirichlet(alpha + n).
//   sparse: n = (800, 100, 100, 0, ..., 0), N = 1000 (Sec. 1.3);
//   dense:  "allocates 1000 datapoints equally to each component" (Sec. 2.2): N = 1000
//           split equally, n_k = 100 for every k (same N as the sparse case); the other
//           reading, 1000 per component, is DenseProblemWithCounts(1000).
// Each iteration draws a minibatch of n observations uniformly with replacement (so the
// minibatch counts are Multinomial(n, n_k / N) and independent across iterations) and
// gives the samplers count_hat_k = (N / n) * (minibatch count of k), the unbiased
// estimate of n_k; SCIR uses shape_hat_k = alpha + count_hat_k (Algorithm 1).
// The statistic is the two-sample Kolmogorov-Smirnov distance between the chain's draws
// of one component of omega and independent exact draws (Gamma normalisation, Sec. 1.2).
//
// Randomness: Purpose::kTest streams keyed by (seed, stream id, index): the minibatch of
// iteration t from id kMinibatchStream, the sampler noise of iteration t from id
// kNoiseStream, exact draw i from id kExactStream.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "carousel/sampler/scir.hpp"
#include "carousel/sampler/simplex_sgrld.hpp"
#include "carousel/util/keyed_rng.hpp"

namespace carousel {
namespace dirichlet {

struct Problem {
  std::vector<double> counts;  // full-data counts n_k (whole numbers)
  double alpha = 0.1;
  std::size_t minibatch = 10;

  double total() const {
    double s = 0.0;
    for (double c : counts) s += c;
    return s;
  }
};

inline Problem SparseProblem() {
  Problem p;
  p.counts = {800, 100, 100, 0, 0, 0, 0, 0, 0, 0};
  return p;
}

inline Problem DenseProblemWithCounts(double per_component) {
  Problem p;
  p.counts.assign(10, per_component);
  return p;
}

inline Problem DenseProblem() {
  return DenseProblemWithCounts(100);
}

enum class Method { kScir, kSgrld, kSgrhmc };

inline const char* MethodName(Method m) {
  switch (m) {
    case Method::kScir:
      return "SCIR";
    case Method::kSgrld:
      return "SGRLD";
    case Method::kSgrhmc:
      return "SGRHMC";
  }
  return "?";
}

struct ChainConfig {
  Method method = Method::kScir;
  double step = 0.5;           // SCIR: h; SGRLD: Patterson-Teh eps; SGRHMC: recipe eps
  std::size_t burn_in = 1000;  // iterations discarded
  std::size_t samples = 1000;  // draws kept
  std::size_t thin = 1;        // iterations per kept draw
  std::uint64_t seed = 1;
  std::size_t component = 4;  // 0-based: the paper's "fifth component"
};

constexpr std::uint64_t kMinibatchStream = 0;
constexpr std::uint64_t kNoiseStream = 1;
constexpr std::uint64_t kExactStream = 2;

// count_hat = (N / n) * counts of a with-replacement minibatch of size n.
inline void MinibatchCountHat(const Problem& problem, const std::vector<double>& cumulative,
                              KeyedStream& rng, std::vector<double>* count_hat) {
  const double total = cumulative.back();
  const double scale = total / static_cast<double>(problem.minibatch);
  std::fill(count_hat->begin(), count_hat->end(), 0.0);
  for (std::size_t i = 0; i < problem.minibatch; ++i) {
    const double index = static_cast<double>(rng.below(static_cast<std::uint64_t>(total)));
    const std::size_t category = static_cast<std::size_t>(
        std::upper_bound(cumulative.begin(), cumulative.end(), index) - cumulative.begin());
    (*count_hat)[category] += scale;
  }
}

// Runs one chain and returns `samples` draws of omega[component], one every `thin`
// iterations after `burn_in`. Every chain starts from theta_k = 1 (momentum 0).
inline std::vector<double> RunChain(const Problem& problem, const ChainConfig& config) {
  const std::size_t d = problem.counts.size();
  if (config.component >= d || config.thin == 0) throw std::invalid_argument("RunChain");
  std::vector<double> cumulative(d);
  double running = 0.0;
  for (std::size_t k = 0; k < d; ++k) cumulative[k] = (running += problem.counts[k]);
  const std::vector<double> alpha(d, problem.alpha);
  std::vector<double> theta(d, 1.0), momentum(d, 0.0), count_hat(d), shape_hat(d), omega(d);
  std::vector<double> out;
  out.reserve(config.samples);
  const std::size_t iterations = config.burn_in + config.samples * config.thin;
  for (std::size_t t = 0; t < iterations; ++t) {
    KeyedStream batch(config.seed, Purpose::kTest, kMinibatchStream, t);
    KeyedStream noise(config.seed, Purpose::kTest, kNoiseStream, t);
    MinibatchCountHat(problem, cumulative, batch, &count_hat);
    switch (config.method) {
      case Method::kScir:
        for (std::size_t k = 0; k < d; ++k) shape_hat[k] = alpha[k] + count_hat[k];
        ScirSimplexStep(theta.data(), shape_hat.data(), d, config.step, noise);
        break;
      case Method::kSgrld:
        SimplexSgrldStep(theta.data(), alpha.data(), count_hat.data(), d, config.step, noise);
        break;
      case Method::kSgrhmc:
        SimplexSgrhmcStep(theta.data(), momentum.data(), alpha.data(), count_hat.data(), d,
                          config.step, noise);
        break;
    }
    if (t >= config.burn_in && (t + 1 - config.burn_in) % config.thin == 0) {
      SimplexNormalise(theta.data(), d, omega.data());
      out.push_back(omega[config.component]);
    }
  }
  return out;
}

// n independent draws of omega[component] from the exact posterior Dirichlet(alpha + n_k),
// by normalising Gamma(alpha + n_k, 1) variates in log space (no underflow for tiny
// components).
inline std::vector<double> ExactSamples(const Problem& problem, std::size_t n, std::uint64_t seed,
                                        std::size_t component) {
  const std::size_t d = problem.counts.size();
  std::vector<double> out(n), log_g(d);
  for (std::size_t i = 0; i < n; ++i) {
    KeyedStream rng(seed, Purpose::kTest, kExactStream, i);
    double max_log = -HUGE_VAL;
    for (std::size_t k = 0; k < d; ++k) {
      log_g[k] = rng.log_gamma_variate(problem.alpha + problem.counts[k]);
      max_log = std::max(max_log, log_g[k]);
    }
    double sum = 0.0;
    for (std::size_t k = 0; k < d; ++k) sum += std::exp(log_g[k] - max_log);
    out[i] = std::exp(log_g[component] - max_log - std::log(sum));
  }
  return out;
}

// Two-sample Kolmogorov-Smirnov distance sup_x |F_a(x) - F_b(x)|.
inline double KsDistance(std::vector<double> a, std::vector<double> b) {
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  const double na = static_cast<double>(a.size()), nb = static_cast<double>(b.size());
  std::size_t i = 0, j = 0;
  double d = 0.0;
  while (i < a.size() && j < b.size()) {
    const double x = std::min(a[i], b[j]);
    while (i < a.size() && a[i] == x) ++i;
    while (j < b.size() && b[j] == x) ++j;
    d = std::max(d, std::abs(static_cast<double>(i) / na - static_cast<double>(j) / nb));
  }
  return d;
}

// Survival function of the Kolmogorov distribution, Q(x) = P(K > x)
// = 2 sum_{j>=1} (-1)^{j-1} exp(-2 j^2 x^2); for small x the complementary
// theta-function series P(K <= x) = sqrt(2 pi) / x sum_j exp(-(2j-1)^2 pi^2 / (8 x^2)).
inline double KolmogorovSurvival(double x) {
  if (x <= 0.0) return 1.0;
  const double pi = 3.14159265358979323846;
  if (x < 1.18) {
    double s = 0.0;
    for (int j = 1; j <= 6; ++j) {
      const double m = 2.0 * j - 1.0;
      s += std::exp(-m * m * pi * pi / (8.0 * x * x));
    }
    return 1.0 - std::sqrt(2.0 * pi) / x * s;
  }
  double s = 0.0;
  for (int j = 1; j <= 100; ++j) {
    const double term = std::exp(-2.0 * j * j * x * x);
    s += (j % 2 == 1 ? term : -term);
    if (term < 1e-17) break;
  }
  return 2.0 * s;
}

// Stephens' (1970) finite-sample factor for the two-sample KS distance of sizes n and m.
inline double KsScale(double n, double m) {
  const double ne = n * m / (n + m);
  return std::sqrt(ne) + 0.12 + 0.11 / std::sqrt(ne);
}

// P(D >= d) for the two-sample KS distance of independent samples of sizes n and m from
// one continuous distribution: Q(KsScale(n, m) d).
inline double KsPValue(double d, double n, double m) {
  return KolmogorovSurvival(KsScale(n, m) * d);
}

// The p-quantile of the two-sample KS distance for independent samples of sizes n and m
// under equal distributions, from the Kolmogorov limit with Stephens' (1970) finite-sample
// factor: P(D > d) ~ Q((sqrt(ne) + 0.12 + 0.11 / sqrt(ne)) d), ne = n m / (n + m).
// For n = m = 1000 and p = 0.999 it is about 1.95 * sqrt(2 / 1000) = 0.087.
inline double KsTwoSampleQuantile(double p, double n, double m) {
  const double factor = KsScale(n, m);
  double lo = 0.0, hi = 10.0;  // bisection on x with Q(x) = 1 - p
  for (int it = 0; it < 200; ++it) {
    const double mid = 0.5 * (lo + hi);
    if (KolmogorovSurvival(mid) > 1.0 - p) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return 0.5 * (lo + hi) / factor;
}

}  // namespace dirichlet
}  // namespace carousel
