// The move along the scale ridge (model/bpmf/bpmf_ridge.hpp) leaves the BPMF target
// invariant. With no ratings the target is the prior, which is drawn exactly: start from an
// exact draw of (W, H, lambda_w, lambda_h), make one move, and the result must again follow
// the prior: log lambda_w and log lambda_h ~ log Gamma(a0, b0), lambda |W|^2 ~ chi^2(K n).
// (The likelihood depends on W H^T alone, which the move keeps, so a move that keeps the
// prior keeps every posterior.) First and second moments are checked within 4 Monte Carlo
// standard errors; the same check rejects two broken moves: c drawn without the Haar
// measure dc / c, and the factors moved without the precisions.
#include "carousel/model/bpmf/bpmf_ridge.hpp"

#include <gtest/gtest.h>

#include <boost/math/special_functions/digamma.hpp>
#include <boost/math/special_functions/trigamma.hpp>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "carousel/util/gig_variate.hpp"

namespace carousel {
namespace {

struct Setting {
  double a0, b0;
  int n_w, n_h, k;
};

// One replicate after the move: log lambda_w, log lambda_h, log(lambda_w |W|^2),
// log(lambda_h |H|^2).
using Statistics = std::array<double, 4>;

// A move: changes `hyper` and returns the factors' c (W -> c W, H -> H / c).
using Move = std::function<double(const BpmfPriors&, BpmfHyper&, KeyedStream&)>;

// `replicates` exact prior draws, each moved once by `move`.
std::vector<Statistics> MovedPriorDraws(const Setting& s, const Move& move, int replicates) {
  BpmfPriors priors;
  priors.a0 = s.a0;
  priors.b0 = s.b0;
  std::vector<Statistics> out;
  for (int r = 0; r < replicates; ++r) {
    KeyedStream rng(3, Purpose::kTest, static_cast<std::uint64_t>(r), 0);
    BpmfHyper hyper;
    hyper.lambda_w = rng.gamma(s.a0) / s.b0;
    hyper.lambda_h = rng.gamma(s.a0) / s.b0;
    double w2 = 0.0, h2 = 0.0;
    for (int i = 0; i < s.n_w * s.k; ++i) w2 += std::pow(rng.normal(), 2) / hyper.lambda_w;
    for (int i = 0; i < s.n_h * s.k; ++i) h2 += std::pow(rng.normal(), 2) / hyper.lambda_h;
    const double c = move(priors, hyper, rng);
    w2 *= c * c;
    h2 /= c * c;
    out.push_back({std::log(hyper.lambda_w), std::log(hyper.lambda_h),
                   std::log(hyper.lambda_w * w2), std::log(hyper.lambda_h * h2)});
  }
  return out;
}

// The largest |z| over the statistics' means and second moments against the prior's.
double LargestZ(const Setting& s, const std::vector<Statistics>& draws) {
  using boost::math::digamma;
  using boost::math::trigamma;
  const double log_lambda_mean = digamma(s.a0) - std::log(s.b0);
  const double log_lambda_var = trigamma(s.a0);
  const auto chi2 = [](double dof) {  // mean and variance of log chi^2(dof)
    return std::pair<double, double>{digamma(dof / 2) + std::log(2.0), trigamma(dof / 2)};
  };
  const std::pair<double, double> exact[4] = {{log_lambda_mean, log_lambda_var},
                                              {log_lambda_mean, log_lambda_var},
                                              chi2(s.n_w * s.k),
                                              chi2(s.n_h * s.k)};
  const double n = static_cast<double>(draws.size());
  double largest = 0.0;
  for (int j = 0; j < 4; ++j) {
    double s1 = 0.0, s2 = 0.0, s4 = 0.0;
    for (const Statistics& d : draws) {
      s1 += d[j];
      s2 += d[j] * d[j];
      s4 += std::pow(d[j], 4);
    }
    const auto [mean, var] = exact[j];
    const double second = var + mean * mean;
    const double second_var = s4 / n - std::pow(s2 / n, 2);
    largest = std::max({largest, std::abs(s1 / n - mean) / std::sqrt(var / n),
                        std::abs(s2 / n - second) / std::sqrt(second_var / n)});
  }
  return largest;
}

// The defaults' Gamma(1, 1) hyperpriors, and another shape and rate; more users than items,
// and fewer, so that a Jacobian left out would show.
const Setting kSettings[] = {{1.0, 1.0, 3, 5, 2}, {2.0, 0.5, 6, 2, 3}};
constexpr int kReplicates = 40000;

TEST(ScaleRidgeMove, KeepsThePriorExactly) {
  for (const Setting& s : kSettings)
    EXPECT_LT(LargestZ(s, MovedPriorDraws(s, MoveAlongScaleRidge, kReplicates)), 4.0)
        << "a0 " << s.a0 << ", b0 " << s.b0;
}

// A move that actually moves: c is not 1, and lambda_w lambda_h is kept.
TEST(ScaleRidgeMove, MovesAlongTheRidgeOnly) {
  BpmfPriors priors;
  BpmfHyper hyper;
  hyper.lambda_w = 17.9;
  hyper.lambda_h = 2.6;
  KeyedStream rng(5, Purpose::kTest, 0, 0);
  const double c = MoveAlongScaleRidge(priors, hyper, rng);
  EXPECT_NE(c, 1.0);
  EXPECT_NEAR(hyper.lambda_w * hyper.lambda_h, 17.9 * 2.6, 1e-9);
  EXPECT_NEAR(hyper.lambda_w, 17.9 / (c * c), 1e-9);
}

// Negative controls. (a) c^2 from the conditional without the Haar measure dc / c, i.e.
// the density read as one in c^2 alone: GIG(1, ...) instead of GIG(0, ...).
// (b) The factors moved by the right c, the precisions left where they were.
TEST(ScaleRidgeMove, TheCheckRejectsBrokenMoves) {
  const Move without_haar = [](const BpmfPriors& p, BpmfHyper& h, KeyedStream& rng) {
    const double u = GigVariate(1.0, 2.0 * p.b0 * h.lambda_h, 2.0 * p.b0 * h.lambda_w, rng);
    h.lambda_w /= u;
    h.lambda_h *= u;
    return std::sqrt(u);
  };
  const Move factors_only = [](const BpmfPriors& p, BpmfHyper& h, KeyedStream& rng) {
    BpmfHyper moved = h;
    return MoveAlongScaleRidge(p, moved, rng);
  };
  for (const Setting& s : kSettings) {
    EXPECT_GT(LargestZ(s, MovedPriorDraws(s, without_haar, kReplicates)), 4.0) << s.a0;
    EXPECT_GT(LargestZ(s, MovedPriorDraws(s, factors_only, kReplicates)), 4.0) << s.a0;
  }
}

}  // namespace
}  // namespace carousel
