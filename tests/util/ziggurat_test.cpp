// Goodness of fit of the ziggurat normals and exponentials (util/ziggurat.hpp) and of
// GammaVariate (util/gamma_variate.hpp) against their exact laws, each with a negative
// control that the same test rejects.
//
// Tests and thresholds. Draws are independent (one keyed stream, Purpose::kTest, fixed
// seeds), so:
// - Kolmogorov-Smirnov: reject when D_n exceeds the 1 - 1e-4 quantile of the Kolmogorov
//   distribution for n draws (tests/sampler/ks.hpp, Stephens' finite-n form). KS is
//   invariant under monotone maps, so the Gamma CDF is used directly even for tiny shapes.
// - Chi-square on bins that include both tails (KS barely sees the 2.6e-4 of the normal's
//   mass beyond r): reject above the 1 - 1e-4 quantile of chi^2(bins - 1)
//   (Wilson-Hilferty). The bins' expected counts come from erfc and are all >= 30.
// A correct generator fails one check with probability 1e-4; the seeds are fixed, so the
// outcome is reproducible.
#include "carousel/util/ziggurat.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <boost/math/special_functions/gamma.hpp>
#include <cmath>
#include <functional>
#include <iostream>
#include <vector>

#include "../sampler/ks.hpp"
#include "carousel/util/gamma_variate.hpp"
#include "carousel/util/keyed_rng.hpp"

namespace carousel {
namespace {

constexpr double kAlpha = 1e-4;
constexpr double kZ9999 = 3.719;  // upper 1e-4 quantile of N(0, 1)

double ChiSquareQuantile(double z_p, double df) {  // Wilson-Hilferty (1931)
  const double c = 2.0 / (9.0 * df);
  const double t = 1.0 - c + z_p * std::sqrt(c);
  return df * t * t * t;
}

double NormalCdf(double x) {
  return 0.5 * std::erfc(-x / std::sqrt(2.0));
}

std::vector<double> Draw(int n, std::uint64_t seed, const std::function<double(KeyedStream&)>& f) {
  KeyedStream rng(seed, Purpose::kTest, 0, 0);
  std::vector<double> x(n);
  for (double& v : x) v = f(rng);
  return x;
}

double KsDistance(const std::vector<double>& x, const std::function<double(double)>& cdf) {
  return ks::Distance(x, cdf);
}

// Pearson's chi-square of the normal draws on bins with edges -4, -3.9, ..., 4 and the two
// outer tails (expected count of each tail at n = 2e6: 63), normalised as statistic / quantile
// (reject above 1).
double NormalChiSquareRatio(const std::vector<double>& x) {
  std::vector<double> edges;
  for (int i = -40; i <= 40; ++i) edges.push_back(0.1 * i);
  std::vector<double> observed(edges.size() + 1, 0.0);
  for (double v : x)
    observed[std::upper_bound(edges.begin(), edges.end(), v) - edges.begin()] += 1.0;
  double chi2 = 0.0;
  const double n = static_cast<double>(x.size());
  for (std::size_t b = 0; b < observed.size(); ++b) {
    const double lo = b == 0 ? -HUGE_VAL : edges[b - 1];
    const double hi = b == edges.size() ? HUGE_VAL : edges[b];
    const double p =
        (b == observed.size() - 1 ? 1.0 : NormalCdf(hi)) - (b == 0 ? 0.0 : NormalCdf(lo));
    const double e = n * p;
    chi2 += (observed[b] - e) * (observed[b] - e) / e;
  }
  return chi2 / ChiSquareQuantile(kZ9999, static_cast<double>(observed.size() - 1));
}

TEST(Ziggurat, LayersHaveEqualAreas) {
  for (const ZigguratTable* z : {&kNormalZiggurat, &kExponentialZiggurat}) {
    // Layers 1..254 have area v by construction; the top one is closed by f(0) = 1 and
    // matches only if r is consistent with 256 layers.
    const double top = z->x[255] * (1.0 - z->f[255]);
    EXPECT_NEAR(top / z->v, 1.0, 1e-9) << "r = " << z->r;
    for (int i = 1; i < 256; ++i) ASSERT_GT(z->x[i], z->x[i + 1]);
  }
}

TEST(Ziggurat, NormalMatchesPhiAndBadVariantsFail) {
  const int n = 2000000;
  const double threshold = ks::Threshold(n, kAlpha);
  const auto good = Draw(n, 1, [](KeyedStream& r) { return ZigguratNormal(r); });
  const double d = KsDistance(good, NormalCdf), chi = NormalChiSquareRatio(good);
  std::cout << "  ziggurat normal: KS " << d << " (threshold " << threshold << "), chi2 / quantile "
            << chi << "\n";
  EXPECT_LT(d, threshold);
  EXPECT_LT(chi, 1.0);

  // Negative controls: a slightly wrong scale, no wedge test, no tail.
  const auto wide = Draw(n, 2, [](KeyedStream& r) { return 1.01 * ZigguratNormal(r); });
  const auto no_wedge =
      Draw(n, 3, [](KeyedStream& r) { return ZigguratNormal<ZigguratFault::kNoWedgeTest>(r); });
  const auto no_tail =
      Draw(n, 4, [](KeyedStream& r) { return ZigguratNormal<ZigguratFault::kNoTail>(r); });
  std::cout << "  sd 1.01: KS " << KsDistance(wide, NormalCdf) << ", chi2 / quantile "
            << NormalChiSquareRatio(wide) << "; no wedge test: KS "
            << KsDistance(no_wedge, NormalCdf) << ", chi2 / quantile "
            << NormalChiSquareRatio(no_wedge) << "; no tail: KS " << KsDistance(no_tail, NormalCdf)
            << ", chi2 / quantile " << NormalChiSquareRatio(no_tail) << "\n";
  EXPECT_GT(KsDistance(wide, NormalCdf), threshold);
  EXPECT_GT(NormalChiSquareRatio(no_wedge), 1.0);
  EXPECT_GT(NormalChiSquareRatio(no_tail), 1.0);
}

TEST(Ziggurat, ExponentialMatchesAndWrongRateFails) {
  const int n = 2000000;
  const double threshold = ks::Threshold(n, kAlpha);
  auto cdf = [](double x) { return x <= 0 ? 0.0 : -std::expm1(-x); };
  const auto good = Draw(n, 5, [](KeyedStream& r) { return ZigguratExponential(r); });
  const auto bad = Draw(n, 6, [](KeyedStream& r) { return 1.01 * ZigguratExponential(r); });
  // The tail beyond r = 7.7 (mass 4.5e-4): its count is binomial.
  const double p_tail = std::exp(-kExponentialZiggurat.r);
  const double tail = static_cast<double>(
      std::count_if(good.begin(), good.end(), [](double x) { return x > kExponentialZiggurat.r; }));
  const double z_tail = (tail - n * p_tail) / std::sqrt(n * p_tail * (1 - p_tail));
  std::cout << "  ziggurat exponential: KS " << KsDistance(good, cdf) << " (threshold " << threshold
            << "), tail z " << z_tail << "; rate 1/1.01: KS " << KsDistance(bad, cdf) << "\n";
  EXPECT_LT(KsDistance(good, cdf), threshold);
  EXPECT_LT(std::abs(z_tail), kZ9999);
  EXPECT_GT(KsDistance(bad, cdf), threshold);
}

TEST(GammaVariate, MatchesGammaLawAndWrongShapeFails) {
  // Both branches (boost below 1, Marsaglia-Tsang from 1), around the switch and at
  // LDA's beta = 0.1 and beta + N. The boost's U^(1/shape) is a binary power for 1/shape in
  // {2, 10, 64} (0.5, 0.1, 1/64) and exp(-E/shape) for 0.01 and 0.999.
  const int n = 400000;
  const double threshold = ks::Threshold(n, kAlpha);
  std::uint64_t seed = 10;
  for (double shape : {0.01, 0.015625, 0.1, 0.5, 0.999, 1.0, 1.1, 3.0, 50.1, 1e4}) {
    auto cdf = [shape](double x) { return x <= 0 ? 0.0 : boost::math::gamma_p(shape, x); };
    const GammaVariate good(shape), bad(shape * 1.02);
    const auto ok = Draw(n, seed++, [&](KeyedStream& r) { return good(r); });
    const auto wrong = Draw(n, seed++, [&](KeyedStream& r) { return bad(r); });
    const double d_ok = KsDistance(ok, cdf), d_wrong = KsDistance(wrong, cdf);
    std::cout << "  shape " << shape << ": KS " << d_ok << ", shape x 1.02: KS " << d_wrong
              << " (threshold " << threshold << ")\n";
    EXPECT_LT(d_ok, threshold) << "shape " << shape;
    EXPECT_GT(d_wrong, threshold) << "shape " << shape;
  }
}

}  // namespace
}  // namespace carousel
