// What the tests of LDA's per-document kernels (lda_gibbs_test.cpp, lda_mh_test.cpp) share:
// a view from theta, Pearson's chi-square against exact cell probabilities, and a tiny
// document whose exact collapsed posterior over all its topic assignments is enumerated.
#pragma once

#include <gtest/gtest.h>

#include <boost/math/distributions/chi_squared.hpp>
#include <cmath>
#include <cstdint>
#include <vector>

#include "carousel/model/lda/lda_gibbs.hpp"

namespace carousel {
namespace lda_check {

inline constexpr double kRejectP = 1e-4;  // chi-square tests reject below this p-value

// A view over `words` words from theta (word-major) with per-topic totals over them.
inline TopicWordView MakeView(const std::vector<double>& theta, std::size_t words, int topics,
                              double alpha) {
  std::vector<double> inverse(static_cast<std::size_t>(topics), 0.0);
  for (std::size_t w = 0; w < words; ++w)
    for (int k = 0; k < topics; ++k) inverse[k] += theta[w * topics + k];
  for (double& v : inverse) v = 1.0 / v;
  TopicWordView view;
  view.Assign(theta.data(), words, topics, inverse.data(), alpha);
  return view;
}

struct ChiSquare {
  double statistic = 0.0;
  double df = 0.0;
  double p = 1.0;
};

inline ChiSquare Pearson(const std::vector<double>& observed,
                         const std::vector<double>& probability, double n) {
  ChiSquare c;
  int cells = 0;
  for (std::size_t s = 0; s < observed.size(); ++s) {
    if (probability[s] == 0.0) {
      EXPECT_EQ(observed[s], 0.0) << "cell " << s << " has probability 0";
      continue;
    }
    const double e = n * probability[s];
    c.statistic += (observed[s] - e) * (observed[s] - e) / e;
    cells++;
  }
  c.df = cells - 1;
  c.p = boost::math::cdf(boost::math::complement(boost::math::chi_squared(c.df), c.statistic));
  return c;
}

// One token swept with the other five fixed: two words, word 1 (the swept token's) with
// phi = 0 in topic 5; the others' topics 0, 0, 0, 2, 5 (topics 1, 3, 4 absent), the swept
// token last. `p` is its exact conditional (alpha + n_dk^{-i}) phi_kw, normalised. The view
// points into `theta`, so the problem is not copied.
struct SingleTokenProblem {
  static constexpr int K = 6;
  double alpha = 0.2;
  std::vector<double> theta;
  TopicWordView view;
  std::vector<std::uint32_t> words{0, 0, 1, 0, 0, 1};
  std::vector<std::uint16_t> others{0, 0, 0, 2, 5};
  std::vector<double> p;

  SingleTokenProblem() : theta(2 * K), p(K) {
    for (int k = 0; k < K; ++k) {
      theta[k] = 1.0 + k;                           // word 0
      theta[K + k] = k == 5 ? 0.0 : 0.5 + 0.7 * k;  // word 1
    }
    view = MakeView(theta, 2, K, alpha);
    double total = 0.0;
    for (int k = 0; k < K; ++k) {
      double n = 0;
      for (auto z : others) n += z == k;
      p[k] = (alpha + n) * view.Row(1)[k];
      total += p[k];
    }
    for (double& v : p) v /= total;
  }
  SingleTokenProblem(const SingleTokenProblem&) = delete;
  SingleTokenProblem& operator=(const SingleTokenProblem&) = delete;
};

// The 4-token document of the joint test and its exact posterior over the 3^4 states.
struct JointProblem {
  static constexpr int K = 3;
  static constexpr std::size_t n = 4;
  double alpha = 0.3;
  std::vector<std::uint32_t> words{0, 2, 2, 1};
  // theta over 3 words, word-major: each topic prefers another word, none is zero.
  std::vector<double> theta{5.0, 0.5, 1.0,   // word 0
                            1.0, 4.0, 0.2,   // word 1
                            0.3, 1.5, 3.0};  // word 2
  TopicWordView view = MakeView(theta, 3, K, alpha);
  std::vector<double> p;  // state s = sum_i z_i 3^i

  JointProblem() {
    const int states = 81;
    p.assign(states, 0.0);
    double total = 0.0;
    for (int s = 0; s < states; ++s) {
      std::vector<int> counts(K, 0);
      double w = 1.0;
      int rest = s;
      for (std::size_t i = 0; i < n; ++i, rest /= K) {
        const int z = rest % K;
        counts[z]++;
        w *= view.Row(words[i])[z];
      }
      for (int k = 0; k < K; ++k) w *= std::tgamma(alpha + counts[k]) / std::tgamma(alpha);
      p[s] = w;
      total += w;
    }
    for (double& v : p) v /= total;
  }

  // An exact draw of the state from p, by inversion.
  std::size_t Draw(double u) const {
    std::size_t s = 0;
    while (s + 1 < p.size() && u >= p[s]) u -= p[s++];
    return s;
  }
  // State s as topics z[0..n) (token i's is digit i in base K) and their counts.
  static void Decode(std::size_t s, std::uint16_t* z, std::uint32_t* counts) {
    for (int k = 0; k < K; ++k) counts[k] = 0;
    for (std::size_t i = 0; i < n; ++i, s /= K) {
      z[i] = static_cast<std::uint16_t>(s % K);
      counts[z[i]]++;
    }
  }
  static std::size_t Encode(const std::uint16_t* z) {
    std::size_t s = 0;
    for (std::size_t i = n; i-- > 0;) s = s * K + z[i];
    return s;
  }
};

}  // namespace lda_check
}  // namespace carousel
