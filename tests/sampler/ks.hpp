// Kolmogorov-Smirnov tools for the exact-target tests (DESIGN.md section 5, tier 2): the
// distance between samples and a 1-D target's CDF, the CDF itself tabulated from the
// density, the Kolmogorov distribution for the threshold, and the autocorrelation time that
// decides how far a chain is thinned and how many independent samples it is worth.
//
// The threshold. For n independent draws from a continuous F, sqrt(n) D_n -> K, where
// K = sup_t |B(t)| for a Brownian bridge B (Kolmogorov 1933), with
//   P(K <= x) = 1 - 2 sum_{k>=1} (-1)^(k-1) exp(-2 k^2 x^2)
//             = sqrt(2 pi) / x sum_{k>=1} exp(-(2k - 1)^2 pi^2 / (8 x^2)).
// The test rejects when D_n > k_{1-alpha} / (sqrt(n) + 0.12 + 0.11 / sqrt(n)), Stephens'
// (1970) finite-n form of the same quantile (exact to a few 1e-3 in alpha for n >= 5).
//
// Dependent draws. A chain's draws are not independent. For a stationary mixing sequence
// sqrt(n) (F_n - F) converges to a Gaussian process whose variance at x is
// F(x)(1 - F(x)) tau_x, tau_x the integrated autocorrelation time of 1{X <= x} (Billingsley
// 1968, Thm. 22.1); with tau = max_x tau_x the pointwise variances are at most those of the
// Brownian bridge for n / tau draws. So the chain is (1) thinned by at least its measured
// tau (max over X itself and the indicators at the target's deciles and quartiles), which
// leaves a nearly independent sequence and makes the cross-lag part small, and (2) the
// remaining autocorrelation time of the thinned draws, tau_thin >= 1 (measured the same
// way), is charged as an effective sample size n_eff = n / tau_thin in the threshold above.
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstddef>
#include <functional>
#include <limits>
#include <unsupported/Eigen/FFT>
#include <vector>

namespace carousel {
namespace ks {

// P(K <= x) for the Kolmogorov distribution.
inline double KolmogorovCdf(double x) {
  if (x <= 0.0) return 0.0;
  const double pi = 3.14159265358979323846;
  if (x < 1.0) {
    double sum = 0.0;
    for (int k = 1; k <= 20; ++k) {
      const double m = 2.0 * k - 1.0;
      sum += std::exp(-m * m * pi * pi / (8.0 * x * x));
    }
    return std::sqrt(2.0 * pi) / x * sum;
  }
  double sum = 0.0;
  for (int k = 1; k <= 100; ++k) sum += (k % 2 == 1 ? 1.0 : -1.0) * std::exp(-2.0 * k * k * x * x);
  return 1.0 - 2.0 * sum;
}

// The x with P(K <= x) = p, by bisection (p in (0, 1)).
inline double KolmogorovQuantile(double p) {
  double lo = 0.05, hi = 10.0;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    (KolmogorovCdf(mid) < p ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

// Largest KS distance accepted at level alpha for n_eff independent draws.
inline double Threshold(double n_eff, double alpha) {
  const double root = std::sqrt(n_eff);
  return KolmogorovQuantile(1.0 - alpha) / (root + 0.12 + 0.11 / root);
}

// The CDF of the density proportional to exp(log_density(x)) on [lo, hi], tabulated by the
// trapezoid rule on `points` nodes and interpolated linearly (error O(h^2); with h = 1e-4
// and smooth densities far below the KS resolution). Mass outside [lo, hi] is taken as 0.
class TabulatedCdf {
 public:
  TabulatedCdf(const std::function<double(double)>& log_density, double lo, double hi,
               int points = 200001)
      : lo_(lo), h_((hi - lo) / (points - 1)), cdf_(static_cast<std::size_t>(points)) {
    std::vector<double> logp(static_cast<std::size_t>(points));
    double max_logp = -std::numeric_limits<double>::infinity();
    for (int i = 0; i < points; ++i) {
      logp[static_cast<std::size_t>(i)] = log_density(lo + i * h_);
      max_logp = std::max(max_logp, logp[static_cast<std::size_t>(i)]);
    }
    double sum = 0.0, previous = 0.0;
    for (std::size_t i = 0; i < cdf_.size(); ++i) {
      const double p = std::exp(logp[i] - max_logp);
      if (i > 0) sum += 0.5 * (p + previous) * h_;
      cdf_[i] = sum;
      previous = p;
    }
    for (double& c : cdf_) c /= sum;
  }

  double operator()(double x) const {
    if (!(x > lo_)) return 0.0;  // also -inf
    const double pos = (x - lo_) / h_;
    if (!(pos < static_cast<double>(cdf_.size() - 1))) return 1.0;  // also +inf
    const auto i = static_cast<std::size_t>(pos);
    const double f = pos - static_cast<double>(i);
    return cdf_[i] * (1.0 - f) + cdf_[i + 1] * f;
  }

  // The x with F(x) = p (p in (0, 1)), by bisection on the table.
  double Quantile(double p) const {
    const auto it = std::lower_bound(cdf_.begin(), cdf_.end(), p);
    const auto i = static_cast<std::size_t>(std::max<std::ptrdiff_t>(1, it - cdf_.begin()));
    if (i >= cdf_.size()) return lo_ + h_ * static_cast<double>(cdf_.size() - 1);
    const double span = cdf_[i] - cdf_[i - 1];
    const double f = span > 0.0 ? (p - cdf_[i - 1]) / span : 0.0;
    return lo_ + h_ * (static_cast<double>(i - 1) + f);
  }

 private:
  double lo_, h_;
  std::vector<double> cdf_;
};

// sup_x |F_n(x) - F(x)|. A non-finite draw (a diverged chain) counts as +inf: outside any
// finite support, so it adds to the distance as it should.
inline double Distance(std::vector<double> draws, const std::function<double(double)>& cdf) {
  for (double& x : draws)
    if (!std::isfinite(x) && !(x == -std::numeric_limits<double>::infinity()))
      x = std::numeric_limits<double>::infinity();
  std::sort(draws.begin(), draws.end());
  const double n = static_cast<double>(draws.size());
  double d = 0.0;
  for (std::size_t i = 0; i < draws.size(); ++i) {
    const double f = cdf(draws[i]);
    d = std::max({d, f - static_cast<double>(i) / n, static_cast<double>(i + 1) / n - f});
  }
  return d;
}

// Integrated autocorrelation time tau = 1 + 2 sum_{k>=1} rho(k) of a stationary process
// observed as several independent series of equal length (replicate chains; one series is
// fine), with rho pooled over the series (one mean and variance for all) and Sokal's
// self-consistent window (sum up to the first lag M >= 5 tau(M)). Autocovariances by FFT.
// Returns 1 for a constant series.
inline double PooledAutocorrTime(const std::vector<std::vector<double>>& series) {
  if (series.empty() || series[0].size() < 4) return 1.0;
  const std::size_t n = series[0].size();
  double mean = 0.0, count = 0.0;
  for (const auto& s : series)
    for (double v : s) mean += v, count += 1.0;
  mean /= count;
  std::size_t padded = 1;
  while (padded < 2 * n) padded <<= 1;
  Eigen::FFT<double> fft;
  std::vector<double> acov(n, 0.0);  // summed over the series, per lag
  std::vector<double> buffer(padded), back;
  std::vector<std::complex<double>> spectrum;
  for (const auto& s : series) {
    std::fill(buffer.begin(), buffer.end(), 0.0);
    for (std::size_t t = 0; t < n; ++t) buffer[t] = s[t] - mean;
    fft.fwd(spectrum, buffer);
    for (auto& z : spectrum) z = std::norm(z);
    fft.inv(back, spectrum);
    for (std::size_t k = 0; k < n; ++k) acov[k] += back[k];
  }
  if (!(acov[0] > 0.0)) return 1.0;
  double tau = 1.0;
  for (std::size_t k = 1; k < n / 2; ++k) {
    // acov[k] sums n - k products per series; normalise per product.
    tau += 2.0 * (acov[k] / static_cast<double>(n - k)) / (acov[0] / static_cast<double>(n));
    if (static_cast<double>(k) >= 5.0 * tau) break;
  }
  return std::max(tau, 1e-9);
}

}  // namespace ks
}  // namespace carousel
