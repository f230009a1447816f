// Monte Carlo standard errors for the statistical tests (DESIGN.md section 5, tier 2):
// every tolerance in those tests is a multiple of a standard error computed here from the
// run itself, never a number tuned to a seed.
//
// - Batch means (Flegal and Jones 2010, "Batch means and spectral variance estimators in
//   Markov chain Monte Carlo"): cut a chain of n draws into b batches of m = n / b
//   consecutive draws; when m is much longer than the integrated autocorrelation time the
//   batch means are nearly independent and sd(batch means) / sqrt(b) estimates the
//   standard error of the chain's mean. The default m = floor(sqrt(n)) is consistent for
//   geometrically ergodic chains.
// - Integrated autocorrelation time tau = 1 + 2 sum_k rho(k) with Sokal's self-consistent
//   window (sum up to the first lag M with M >= 5 tau(M)), used to check that the batches
//   are long enough (m >= 10 tau) before a standard error is trusted.
// - Means and covariances of a vector-valued chain: each covariance entry is the mean of
//   the series (x_a - xbar_a)(x_b - xbar_b), whose standard error is again a batch-means
//   standard error (the plug-in xbar changes it by O(1/n) only).
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <sstream>
#include <string>
#include <vector>

namespace carousel {
namespace mc {

struct Estimate {
  double mean = 0.0;
  double se = 0.0;             // standard error of `mean`
  std::size_t batches = 0;     // independent pieces the standard error rests on
  std::size_t batch_size = 0;  // draws per batch (1 for independent values)
};

// Mean and standard error of independent values (replicate chains, or batch means).
inline Estimate IndependentMean(const std::vector<double>& values) {
  Estimate e;
  const std::size_t n = values.size();
  e.batches = n;
  e.batch_size = 1;
  if (n == 0) return e;
  double sum = 0.0;
  for (double v : values) sum += v;
  e.mean = sum / static_cast<double>(n);
  if (n < 2) return e;
  double ss = 0.0;
  for (double v : values) ss += (v - e.mean) * (v - e.mean);
  e.se = std::sqrt(ss / static_cast<double>(n - 1) / static_cast<double>(n));
  return e;
}

// Means of `batch_size` consecutive draws (0: floor(sqrt(n))); the last n mod m draws
// are left out.
inline std::vector<double> BatchMeanSeries(const std::vector<double>& x,
                                           std::size_t batch_size = 0) {
  const std::size_t n = x.size();
  std::size_t m =
      batch_size > 0 ? batch_size : static_cast<std::size_t>(std::sqrt(static_cast<double>(n)));
  m = std::max<std::size_t>(1, std::min(m, n));
  std::vector<double> means;
  if (n == 0) return means;
  means.reserve(n / m);
  for (std::size_t start = 0; start + m <= n; start += m) {
    double s = 0.0;
    for (std::size_t i = start; i < start + m; ++i) s += x[i];
    means.push_back(s / static_cast<double>(m));
  }
  return means;
}

// Mean of the whole chain and its batch-means standard error.
inline Estimate BatchMeans(const std::vector<double>& x, std::size_t batch_size = 0) {
  const std::vector<double> means = BatchMeanSeries(x, batch_size);
  Estimate e = IndependentMean(means);
  double sum = 0.0;
  for (double v : x) sum += v;
  e.mean = x.empty() ? 0.0 : sum / static_cast<double>(x.size());
  e.batch_size = means.empty() ? 0 : x.size() / means.size();
  return e;
}

// Integrated autocorrelation time with Sokal's adaptive window (c = 5), from at most the
// first `max_points` draws (the estimate needs far fewer draws than the chain has).
inline double IntegratedAutocorrTime(const std::vector<double>& x,
                                     std::size_t max_points = std::size_t{1} << 15) {
  const std::size_t n = std::min(x.size(), max_points);
  if (n < 4) return 1.0;
  double mean = 0.0;
  for (std::size_t i = 0; i < n; ++i) mean += x[i];
  mean /= static_cast<double>(n);
  double c0 = 0.0;
  for (std::size_t i = 0; i < n; ++i) c0 += (x[i] - mean) * (x[i] - mean);
  if (c0 <= 0.0) return 1.0;
  double tau = 1.0;
  for (std::size_t lag = 1; lag < n / 2; ++lag) {
    double c = 0.0;
    for (std::size_t i = 0; i + lag < n; ++i) c += (x[i] - mean) * (x[i + lag] - mean);
    tau += 2.0 * c / c0;
    if (static_cast<double>(lag) >= 5.0 * tau) break;
  }
  return std::max(tau, 1e-12);
}

// Moments of a chain of d-vectors (one draw per row of `draws`, n x d) with batch-means
// standard errors of every entry.
struct Moments {
  Eigen::VectorXd mean, mean_se;
  Eigen::MatrixXd cov, cov_se;  // cov uses the divisor n
  std::size_t batch_size = 0, batches = 0;
  double max_tau = 0.0;  // largest integrated autocorrelation time of the series used
};

inline Moments EstimateMoments(const Eigen::MatrixXd& draws, std::size_t batch_size = 0) {
  const Eigen::Index n = draws.rows(), d = draws.cols();
  Moments out;
  out.mean = draws.colwise().mean().transpose();
  out.mean_se.resize(d);
  out.cov.resize(d, d);
  out.cov_se.resize(d, d);
  std::vector<double> series(static_cast<std::size_t>(n));
  auto summarise = [&](double* value, double* se) {
    const Estimate e = BatchMeans(series, batch_size);
    *value = e.mean;
    *se = e.se;
    out.batch_size = e.batch_size;
    out.batches = e.batches;
    out.max_tau = std::max(out.max_tau, IntegratedAutocorrTime(series));
  };
  for (Eigen::Index a = 0; a < d; ++a) {
    for (Eigen::Index t = 0; t < n; ++t) series[static_cast<std::size_t>(t)] = draws(t, a);
    double unused;
    summarise(&unused, &out.mean_se(a));
    for (Eigen::Index b = 0; b <= a; ++b) {
      for (Eigen::Index t = 0; t < n; ++t)
        series[static_cast<std::size_t>(t)] =
            (draws(t, a) - out.mean(a)) * (draws(t, b) - out.mean(b));
      summarise(&out.cov(a, b), &out.cov_se(a, b));
      out.cov(b, a) = out.cov(a, b);
      out.cov_se(b, a) = out.cov_se(a, b);
    }
  }
  return out;
}

// Every entry of the estimated mean and covariance against (m, S), within `k` standard
// errors. Returns one line per entry outside (empty: consistent). `label` prefixes them.
inline std::vector<std::string> CompareMoments(const Moments& est, const Eigen::VectorXd& m,
                                               const Eigen::MatrixXd& s, double k,
                                               const std::string& label) {
  std::vector<std::string> failures;
  const Eigen::Index d = m.size();
  for (Eigen::Index a = 0; a < d; ++a) {
    if (std::abs(est.mean(a) - m(a)) > k * est.mean_se(a)) {
      std::ostringstream why;
      why << label << ": mean[" << a << "] = " << est.mean(a) << ", expected " << m(a) << ", se "
          << est.mean_se(a) << " (z = " << (est.mean(a) - m(a)) / est.mean_se(a) << ")";
      failures.push_back(why.str());
    }
    for (Eigen::Index b = 0; b <= a; ++b) {
      if (std::abs(est.cov(a, b) - s(a, b)) > k * est.cov_se(a, b)) {
        std::ostringstream why;
        why << label << ": cov[" << a << "," << b << "] = " << est.cov(a, b) << ", expected "
            << s(a, b) << ", se " << est.cov_se(a, b)
            << " (z = " << (est.cov(a, b) - s(a, b)) / est.cov_se(a, b) << ")";
        failures.push_back(why.str());
      }
    }
  }
  return failures;
}

// Largest |z| = |estimate - expected| / se over the entries, for reports.
inline double MaxAbsZ(const Moments& est, const Eigen::VectorXd& m, const Eigen::MatrixXd& s) {
  double z = 0.0;
  for (Eigen::Index a = 0; a < m.size(); ++a) {
    z = std::max(z, std::abs(est.mean(a) - m(a)) / est.mean_se(a));
    for (Eigen::Index b = 0; b <= a; ++b)
      z = std::max(z, std::abs(est.cov(a, b) - s(a, b)) / est.cov_se(a, b));
  }
  return z;
}

}  // namespace mc
}  // namespace carousel
