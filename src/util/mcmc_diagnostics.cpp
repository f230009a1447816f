#include "carousel/util/mcmc_diagnostics.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <complex>
#include <limits>
#include <numeric>
#include <string>

#include "carousel/util/error.hpp"

namespace carousel::mcmc {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The draws per chain; every chain must have as many.
std::size_t DrawsPerChain(const Chains& chains) {
  if (chains.empty()) throw Error(ExitCode::kInternal, "mcmc diagnostics: no chains");
  const std::size_t n = chains.front().size();
  for (const std::vector<double>& chain : chains)
    if (chain.size() != n)
      throw Error(ExitCode::kInternal, "mcmc diagnostics: chains of " + std::to_string(n) +
                                           " and " + std::to_string(chain.size()) + " draws");
  return n;
}

std::vector<double> Pooled(const Chains& chains) {
  std::vector<double> all;
  for (const std::vector<double>& chain : chains) all.insert(all.end(), chain.begin(), chain.end());
  return all;
}

// Diagnostics are undefined for draws with NaN or infinities, or constant draws.
bool Undefined(const Chains& chains) {
  return !AllFinite(chains) || IsConstant(chains);
}

double Mean(const std::vector<double>& x) {
  return std::accumulate(x.begin(), x.end(), 0.0) / static_cast<double>(x.size());
}

// Sample variance, N - 1 denominator.
double Variance(const std::vector<double>& x) {
  const double m = Mean(x);
  double ss = 0.0;
  for (double v : x) ss += (v - m) * (v - m);
  return ss / static_cast<double>(x.size() - 1);
}

// In-place radix-2 FFT of a power-of-two length; `inverse` uses e^{+i...} and does not
// divide by the length.
void Fft(std::vector<std::complex<double>>& a, bool inverse) {
  const std::size_t n = a.size();
  for (std::size_t i = 1, j = 0; i < n; ++i) {  // bit-reversal permutation
    std::size_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(a[i], a[j]);
  }
  const double pi = std::acos(-1.0);
  for (std::size_t len = 2; len <= n; len <<= 1) {
    const std::size_t half = len / 2;
    const double angle = (inverse ? 2.0 : -2.0) * pi / static_cast<double>(len);
    for (std::size_t k = 0; k < half; ++k) {
      // Each twiddle from its own angle, not by repeated multiplication, so rounding does
      // not accumulate along the butterfly.
      const std::complex<double> w(std::cos(angle * static_cast<double>(k)),
                                   std::sin(angle * static_cast<double>(k)));
      for (std::size_t start = 0; start < n; start += len) {
        const std::complex<double> u = a[start + k];
        const std::complex<double> v = a[start + k + half] * w;
        a[start + k] = u + v;
        a[start + k + half] = u - v;
      }
    }
  }
}

// gamma_t = (1/N) sum_{i < N - t} (x_i - xbar)(x_{i+t} - xbar), t = 0..N-1: the biased
// autocovariance Geyer (1992) recommends, by FFT of the zero-padded centred chain.
std::vector<double> Autocovariance(const std::vector<double>& x) {
  const std::size_t n = x.size();
  std::size_t size = 1;
  while (size < 2 * n) size <<= 1;  // padding to 2N or more: no circular wrap-around
  const double m = Mean(x);
  std::vector<std::complex<double>> a(size);
  for (std::size_t i = 0; i < n; ++i) a[i] = x[i] - m;
  Fft(a, false);
  for (std::complex<double>& c : a) c = std::norm(c);
  Fft(a, true);
  std::vector<double> gamma(n);
  const double scale = 1.0 / (static_cast<double>(size) * static_cast<double>(n));
  for (std::size_t t = 0; t < n; ++t) gamma[t] = a[t].real() * scale;
  return gamma;
}

// Lower tail of the standard normal distribution function.
double NormalCdf(double x) {
  return 0.5 * std::erfc(-x / std::sqrt(2.0));
}

Chains Folded(const Chains& chains) {
  const double median = Quantile(Pooled(chains), 0.5);
  Chains folded = chains;
  for (std::vector<double>& chain : folded)
    for (double& x : chain) x = std::abs(x - median);
  return folded;
}

}  // namespace

bool AllFinite(const Chains& chains) {
  for (const std::vector<double>& chain : chains)
    for (double x : chain)
      if (!std::isfinite(x)) return false;
  return true;
}

bool IsConstant(const Chains& chains) {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -lo;
  for (const std::vector<double>& chain : chains)
    for (double x : chain) {
      lo = std::min(lo, x);
      hi = std::max(hi, x);
    }
  return std::abs(hi - lo) < DBL_EPSILON;
}

Chains SplitChains(const Chains& chains) {
  const std::size_t n = DrawsPerChain(chains);
  const auto half = static_cast<std::ptrdiff_t>(n / 2);  // an odd chain's middle draw is left out
  Chains split;
  split.reserve(2 * chains.size());
  for (const std::vector<double>& chain : chains)
    split.emplace_back(chain.begin(), chain.begin() + half);
  for (const std::vector<double>& chain : chains)
    split.emplace_back(chain.end() - half, chain.end());
  return split;
}

double NormalQuantile(double p) {
  if (std::isnan(p) || p < 0.0 || p > 1.0) return kNaN;
  if (p == 0.0) return -std::numeric_limits<double>::infinity();
  if (p == 1.0) return std::numeric_limits<double>::infinity();
  if (p == 0.5) return 0.0;  // exactly, as the middle rank of an odd count needs
  // Work in the lower tail, q = min(p, 1 - p), and mirror.
  const bool upper = p > 0.5;
  const double q = upper ? 1.0 - p : p;
  // Start: Abramowitz and Stegun 26.2.23 (absolute error below 4.5e-4).
  const double t = std::sqrt(-2.0 * std::log(q));
  double x = -(t - (2.515517 + t * (0.802853 + t * 0.010328)) /
                       (1.0 + t * (1.432788 + t * (0.189269 + t * 0.001308))));
  // Halley's method on Phi(x) - q = 0: each step cubes the relative error, so three steps
  // from 4.5e-4 reach the precision of erfc.
  for (int step = 0; step < 3; ++step) {
    const double density = std::exp(-0.5 * x * x) / std::sqrt(2.0 * std::acos(-1.0));
    const double f = NormalCdf(x) - q;
    x -= f / (density * (1.0 + 0.5 * x * f / density));
  }
  return upper ? -x : x;
}

Chains RankNormalize(const Chains& chains) {
  DrawsPerChain(chains);
  const std::vector<double> all = Pooled(chains);
  const std::size_t s = all.size();
  std::vector<std::size_t> order(s);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return all[a] < all[b]; });
  std::vector<double> z(s);
  const double denominator = static_cast<double>(s) + 0.25;
  for (std::size_t begin = 0; begin < s;) {
    std::size_t end = begin + 1;
    while (end < s && all[order[end]] == all[order[begin]]) ++end;
    // Ranks begin+1 .. end (1-based) share their average.
    const double rank = 0.5 * (static_cast<double>(begin + 1) + static_cast<double>(end));
    const double value = NormalQuantile((rank - 0.375) / denominator);
    for (std::size_t i = begin; i < end; ++i) z[order[i]] = value;
    begin = end;
  }
  Chains normalized;
  std::size_t next = 0;
  for (const std::vector<double>& chain : chains) {
    normalized.emplace_back(z.begin() + static_cast<std::ptrdiff_t>(next),
                            z.begin() + static_cast<std::ptrdiff_t>(next + chain.size()));
    next += chain.size();
  }
  return normalized;
}

double Quantile(std::vector<double> values, double p) {
  if (values.empty() || !(p >= 0.0 && p <= 1.0)) return kNaN;
  for (double v : values)
    if (std::isnan(v)) return kNaN;
  std::sort(values.begin(), values.end());
  // Hyndman and Fan (1996) definition 7: h = (n - 1) p, Q = (1 - g) x_(j) + g x_(j+1) with
  // j = floor(h) (0-based here) and g = h - j.
  const double h = static_cast<double>(values.size() - 1) * p;
  const std::size_t j = static_cast<std::size_t>(std::floor(h));
  if (j + 1 >= values.size()) return values.back();
  const double g = h - static_cast<double>(j);
  return g == 0.0 ? values[j] : (1.0 - g) * values[j] + g * values[j + 1];
}

double PotentialScaleReduction(const Chains& chains) {
  const std::size_t n = DrawsPerChain(chains);
  if (n < 2 || Undefined(chains)) return kNaN;
  std::vector<double> means, variances;
  for (const std::vector<double>& chain : chains) {
    means.push_back(Mean(chain));
    variances.push_back(Variance(chain));
  }
  const double nd = static_cast<double>(n);
  const double within = Mean(variances);                                  // W
  const double between = chains.size() > 1 ? nd * Variance(means) : 0.0;  // B
  return std::sqrt(((nd - 1.0) / nd * within + between / nd) / within);
}

double EffectiveSampleSize(const Chains& chains) {
  const std::size_t n = DrawsPerChain(chains);
  if (n < 3 || Undefined(chains)) return kNaN;
  const std::size_t m = chains.size();
  const double nd = static_cast<double>(n);

  // Autocovariances averaged over the chains, and var+ of Eq. 3.
  std::vector<double> mean_gamma(n, 0.0);
  std::vector<double> means;
  for (const std::vector<double>& chain : chains) {
    const std::vector<double> gamma = Autocovariance(chain);
    for (std::size_t t = 0; t < n; ++t) mean_gamma[t] += gamma[t] / static_cast<double>(m);
    means.push_back(Mean(chain));
  }
  const double within = mean_gamma[0] * nd / (nd - 1.0);  // W, the mean chain variance
  double var_plus = within * (nd - 1.0) / nd;
  if (m > 1) var_plus += Variance(means);
  // rho_t = 1 - (W - mean gamma_t) / var+ (Eq. 10).
  const auto rho_at = [&](std::size_t t) { return 1.0 - (within - mean_gamma[t]) / var_plus; };

  // Geyer's initial positive sequence: sums of pairs (rho_2k + rho_2k+1) are kept while
  // positive; the first negative pair ends it (not kept). Stop 5 short of the end, where
  // the estimates rest on few terms.
  std::vector<double> rho(n, 0.0);
  rho[0] = 1.0;
  double even = 1.0;
  double odd = rho_at(1);
  rho[1] = odd;
  std::size_t t = 0;
  while (t + 5 < n && !std::isnan(even + odd) && even + odd > 0.0) {
    t += 2;
    even = rho_at(t);
    odd = rho_at(t + 1);
    if (even + odd >= 0.0) {
      rho[t] = even;
      rho[t + 1] = odd;
    }
  }
  const std::size_t last = t;
  // The last even term enters on its own when positive (the improved estimate, which
  // lowers the variance for antithetic chains).
  if (even > 0.0) rho[last] = even;
  // Initial monotone sequence: no pair may exceed the pair before it.
  for (std::size_t k = 2; k + 2 <= last; k += 2) {
    if (rho[k] + rho[k + 1] > rho[k - 2] + rho[k - 1]) {
      rho[k] = 0.5 * (rho[k - 2] + rho[k - 1]);
      rho[k + 1] = rho[k];
    }
  }
  double sum = 0.0;
  for (std::size_t k = 0; k < last; ++k) sum += rho[k];
  const double draws = static_cast<double>(m) * nd;
  // tau = -1 + 2 sum_{t < last} rho_t + rho_last, at least 1 / log10(S), so the ESS is at
  // most S log10(S).
  const double tau = std::max(-1.0 + 2.0 * sum + rho[last], 1.0 / std::log10(draws));
  return draws / tau;
}

double RhatBulk(const Chains& chains) {
  DrawsPerChain(chains);
  if (Undefined(chains)) return kNaN;
  return PotentialScaleReduction(RankNormalize(SplitChains(chains)));
}

double RhatTail(const Chains& chains) {
  DrawsPerChain(chains);
  if (Undefined(chains)) return kNaN;
  return PotentialScaleReduction(RankNormalize(SplitChains(Folded(chains))));
}

double Rhat(const Chains& chains) {
  const double bulk = RhatBulk(chains);
  const double tail = RhatTail(chains);
  if (std::isnan(bulk) || std::isnan(tail)) return kNaN;
  return std::max(bulk, tail);
}

double EssBulk(const Chains& chains) {
  DrawsPerChain(chains);
  if (Undefined(chains)) return kNaN;
  return EffectiveSampleSize(RankNormalize(SplitChains(chains)));
}

double EssQuantile(const Chains& chains, double p) {
  DrawsPerChain(chains);
  if (Undefined(chains)) return kNaN;
  // The quantile of all draws (with an odd chain length, the middle draws too), then the
  // split chains of the indicator.
  const double q = Quantile(Pooled(chains), p);
  Chains indicator = chains;
  for (std::vector<double>& chain : indicator)
    for (double& x : chain) x = x <= q ? 1.0 : 0.0;
  return EffectiveSampleSize(SplitChains(indicator));
}

double EssTail(const Chains& chains) {
  const double low = EssQuantile(chains, 0.05);
  const double high = EssQuantile(chains, 0.95);
  if (std::isnan(low) || std::isnan(high)) return kNaN;
  return std::min(low, high);
}

double EssMean(const Chains& chains) {
  DrawsPerChain(chains);
  if (Undefined(chains)) return kNaN;
  return EffectiveSampleSize(SplitChains(chains));
}

double McseMean(const Chains& chains) {
  const std::vector<double> all = Pooled(chains);
  if (all.size() < 2) return kNaN;
  return std::sqrt(Variance(all) / EssMean(chains));
}

Summary Summarize(const Chains& chains) {
  const std::size_t n = DrawsPerChain(chains);
  if (n == 0) throw Error(ExitCode::kInternal, "mcmc diagnostics: chains without draws");
  const std::vector<double> all = Pooled(chains);
  Summary s;
  s.mean = Mean(all);
  s.sd = all.size() > 1 ? std::sqrt(Variance(all)) : kNaN;
  s.q5 = Quantile(all, 0.05);
  s.q50 = Quantile(all, 0.5);
  s.q95 = Quantile(all, 0.95);
  s.rhat = Rhat(chains);
  s.ess_bulk = EssBulk(chains);
  s.ess_tail = EssTail(chains);
  s.mcse_mean = McseMean(chains);
  return s;
}

}  // namespace carousel::mcmc
