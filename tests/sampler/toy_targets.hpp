// Exact validation targets for the samplers, with runners that take any Sampler and return
// error statistics, so that every sampler (and any added later, e.g. HAMCMC) meets the same
// checks (DESIGN.md section 5, tier 2):
//
// 1. One-dimensional targets of the complete recipe (Ma, Chen and Fox 2015, Fig. 2 left and
//    supplement F.1): U(theta) = theta^2 / 2 and U(theta) = theta^4 - 2 theta^2, with the
//    gradient corrupted by N(0, sigma^2) noise (sigma = 2 as in Chen et al. 2014, Fig. 1).
//    RunKsCheck runs many independent replicate chains as the elements of one block (element
//    (r, c) is one chain: the potential is U(theta) summed over the elements, and a coupled
//    sampler such as SGNHT sees that product target, whose marginals are the same; several
//    columns per row let a row's keyed stream serve several chains), starts them at the
//    target's quantiles, and compares the pooled, thinned draws with the exact CDF by a
//    Kolmogorov-Smirnov test (ks.hpp explains the threshold).
//
// 2. Bayesian linear regression of the HAMCMC paper (Simsekli et al. 2016), Sec. 4.1, Eq. 13:
//    theta ~ N(0, I), x_n | theta ~ N(a_n^T theta, sigma_x^2), sigma_x^2 = 10, correlated
//    a_n, minibatches of N / 100 data. The posterior is Gaussian, N(m, Lambda^-1) with
//    Lambda = I + A^T A / sigma_x^2, m = Lambda^-1 A^T x / sigma_x^2.
//    CheckLinearRegression compares a sampler's mean and covariance with (m, Lambda^-1), in
//    units of batch-means standard errors.
//
//    The step-size bias. A constant-step chain does not sample the posterior: for these
//    first-order (Euler-type) schemes its ergodic averages are biased by
//    b1 eps + O(eps^2) (Chen, Ding and Carin 2015, Thm. 2; Mattingly, Stuart and Tretyakov
//    2010). Here the bias is large: the minibatch noise, with covariance
//    V ~ (N / N_Omega) (Lambda - I), enters like extra injected noise and inflates the
//    covariance by about eps (N / N_Omega) lambda / 2 relative (SGLD, eigendirection with
//    precision lambda). Shrinking eps until that is below the Monte Carlo error would take
//    ~1e7 steps per run. Instead the check uses Richardson-Romberg extrapolation (Durmus,
//    Simsekli, Moulines, Badeau and Richard 2016, "Stochastic Gradient Richardson-Romberg
//    MCMC"): two independent runs, at eps for T steps and at eps / 2 for 2T steps, combined as
//      estimate = 2 (estimate at eps / 2) - (estimate at eps),
//    which cancels b1 eps and leaves O(eps^2); its standard error is
//    sqrt(4 se_{eps/2}^2 + se_eps^2). How much is left is known exactly for SGLD: its
//    stationary covariance solves S = A S A + 2 eps I + eps^2 E[V(theta)], A = I - eps Lambda,
//    with the without-replacement minibatch covariance V(theta) (affine-quadratic in theta,
//    so E[V] is linear in S). At the settings of linear_regression_test.cpp that fixed point
//    gives a largest error |S_ab - Sigma_ab| / sqrt(Sigma_aa Sigma_bb) of 18%, 32% and 63% at
//    eps (D = 2, 10, 100), 9%, 16% and 31% at eps / 2, and 0.07%, 0.13% and 0.57% after the
//    extrapolation, far below the standard errors. The plain estimate at eps is reported as
//    well, and the tests show that the same check rejects it. For a sampler whose bias does
//    not vanish with eps (PSGLD without its Gamma term, HAMCMC paper Sec. 3.1) the
//    extrapolated estimate keeps that remainder.
#pragma once

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <Eigen/LU>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <numeric>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "carousel/sampler/diagonal_metric.hpp"
#include "carousel/sampler/sampler.hpp"
#include "carousel/sampler/single_block_chain.hpp"
#include "carousel/util/keyed_rng.hpp"
#include "ks.hpp"

namespace carousel {
namespace toy {

// ---------------------------------------------------------------- 1-D targets

struct Target1D {
  std::string name;
  std::function<double(double)> potential;  // U
  std::function<double(double)> gradient;   // dU/dtheta
  double lo, hi;                            // exp(-U) below 1e-30 of its peak outside

  static Target1D Gaussian() {
    return {"gaussian", [](double t) { return 0.5 * t * t; }, [](double t) { return t; }, -12.0,
            12.0};
  }
  static Target1D DoubleWell() {
    return {"double well", [](double t) { return t * t * t * t - 2.0 * t * t; },
            [](double t) { return 4.0 * t * t * t - 4.0 * t; }, -3.5, 3.5};
  }
};

// grad U~ for a block whose elements are replicate chains: U'(theta_rc) + sd * N(0, 1), the
// noise from one keyed stream per iteration (a function of (theta, iteration), as
// SingleBlockChain asks).
inline SingleBlockChain::Gradient NoisyGradient1D(const Target1D& target, double sd,
                                                  std::uint64_t seed) {
  return [gradient = target.gradient, sd, seed](const Matrix& theta, std::uint64_t iteration,
                                                Matrix& grad_u) {
    KeyedStream stream(seed, Purpose::kTest, 0, iteration);
    for (Eigen::Index r = 0; r < theta.rows(); ++r)
      for (Eigen::Index c = 0; c < theta.cols(); ++c)
        grad_u(r, c) =
            static_cast<float>(gradient(static_cast<double>(theta(r, c))) + sd * stream.normal());
  };
}

// The potential callback of PotentialMetric for such a block: U(theta_rc) in element (r, c).
inline PotentialMetric::Potential ElementPotential(const Target1D& target) {
  return [potential = target.potential](const Matrix& theta, Matrix& u) {
    for (Eigen::Index r = 0; r < theta.rows(); ++r)
      for (Eigen::Index c = 0; c < theta.cols(); ++c)
        u(r, c) = static_cast<float>(potential(static_cast<double>(theta(r, c))));
  };
}

struct KsSettings {
  int rows = 50, columns = 10;  // rows x columns independent chains (the block's elements)
  double step = 0.01;           // constant step size eps
  double gradient_noise = 2.0;  // sd of the noise added to U'
  std::uint64_t burn_in = 5000;
  std::uint64_t steps = 40000;  // after burn-in
  int record_every = 10;        // steps between recorded states (the finest thinning)
  double alpha = 1e-3;          // level of the KS test
  std::uint64_t seed = 1;
};

struct KsCheck {
  std::string label;
  double distance = 1.0;   // KS distance of the thinned draws
  double threshold = 0.0;  // rejected above this
  double draws = 0.0;      // thinned draws, pooled over replicas
  double n_eff = 0.0;      // draws / tau_thinned
  double tau_steps = 0.0;  // autocorrelation time of the chain, in steps
  double tau_thinned = 1.0;
  int thin_steps = 0;         // steps between kept draws
  double burn_in_taus = 0.0;  // burn-in length in units of tau_steps
  bool finite = true;         // no NaN/inf anywhere in the chain
  double seconds = 0.0;

  bool Passed() const { return distance <= threshold; }
  std::string Report() const {
    std::ostringstream s;
    s << label << ": KS " << distance << " vs threshold " << threshold << " (ratio "
      << distance / threshold << "), " << draws << " draws thinned by " << thin_steps
      << " steps, tau " << tau_steps << " steps, tau_thin " << tau_thinned << ", n_eff " << n_eff
      << ", burn-in " << burn_in_taus << " tau" << (finite ? "" : ", DIVERGED") << ", " << seconds
      << " s";
    return s.str();
  }
};

// Runs `sampler` on `target` as described at the top and returns the KS statistics.
inline KsCheck RunKsCheck(const Target1D& target, Sampler& sampler, const KsSettings& s,
                          const std::string& label) {
  const auto start = std::chrono::steady_clock::now();
  const ks::TabulatedCdf cdf([&](double t) { return -target.potential(t); }, target.lo, target.hi);
  const int k = s.rows * s.columns;
  Matrix theta0(s.rows, s.columns);
  for (int e = 0; e < k; ++e)
    theta0(e / s.columns, e % s.columns) = static_cast<float>(cdf.Quantile((e + 0.5) / k));
  SingleBlockChain chain(sampler, theta0, NoisyGradient1D(target, s.gradient_noise, s.seed + 1),
                         s.seed);
  for (std::uint64_t t = 0; t < s.burn_in; ++t) chain.Step(s.step);

  KsCheck out;
  out.label = label;
  const std::size_t records = static_cast<std::size_t>(s.steps / s.record_every);
  std::vector<std::vector<double>> path(static_cast<std::size_t>(k));
  for (auto& p : path) p.reserve(records);
  for (std::size_t j = 0; j < records; ++j) {
    for (int i = 0; i < s.record_every; ++i) chain.Step(s.step);
    for (int e = 0; e < k; ++e) {
      const double v = chain.theta()(e / s.columns, e % s.columns);
      out.finite = out.finite && std::isfinite(v);
      path[static_cast<std::size_t>(e)].push_back(v);
    }
  }

  // Autocorrelation time: the largest over theta and the indicators at the target's
  // deciles and quartiles, pooled over the replicas.
  const std::vector<double> cuts = {cdf.Quantile(0.1), cdf.Quantile(0.25), cdf.Quantile(0.5),
                                    cdf.Quantile(0.75), cdf.Quantile(0.9)};
  auto max_tau = [&](const std::vector<std::vector<double>>& series) {
    if (!out.finite) return 1.0;
    double tau = ks::PooledAutocorrTime(series);
    std::vector<std::vector<double>> indicator(series.size());
    for (double cut : cuts) {
      for (std::size_t r = 0; r < series.size(); ++r) {
        indicator[r].resize(series[r].size());
        for (std::size_t j = 0; j < series[r].size(); ++j)
          indicator[r][j] = series[r][j] <= cut ? 1.0 : 0.0;
      }
      tau = std::max(tau, ks::PooledAutocorrTime(indicator));
    }
    return tau;
  };
  // 64 replicas x thousands of records pin tau down to a few percent; all of them would
  // only cost time.
  const std::vector<std::vector<double>> some(
      path.begin(), path.begin() + std::min<std::ptrdiff_t>(64, static_cast<std::ptrdiff_t>(k)));
  const double tau_records = max_tau(some);
  const auto stride = static_cast<std::size_t>(std::max(1.0, std::ceil(tau_records)));
  out.tau_steps = tau_records * s.record_every;
  out.thin_steps = static_cast<int>(stride) * s.record_every;
  out.burn_in_taus = static_cast<double>(s.burn_in) / out.tau_steps;

  std::vector<std::vector<double>> thinned(path.size());
  std::vector<double> pooled;
  for (std::size_t r = 0; r < path.size(); ++r) {
    for (std::size_t j = stride - 1; j < path[r].size(); j += stride)
      thinned[r].push_back(path[r][j]);
    pooled.insert(pooled.end(), thinned[r].begin(), thinned[r].end());
  }
  out.tau_thinned = std::max(1.0, max_tau(thinned));
  out.draws = static_cast<double>(pooled.size());
  out.n_eff = out.draws / out.tau_thinned;
  out.threshold = ks::Threshold(out.n_eff, s.alpha);
  out.distance = ks::Distance(pooled, [&](double x) { return cdf(x); });
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

// ---------------------------------------------------------------- linear regression

// Standard normal quantile by bisection on erfc (p in (0, 1)).
inline double NormalQuantile(double p) {
  double lo = -40.0, hi = 40.0;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    (0.5 * std::erfc(-mid / std::sqrt(2.0)) < p ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

// Student-t quantile with nu degrees of freedom by the Cornish-Fisher expansion around the
// normal quantile z (Abramowitz and Stegun 26.7.5), accurate to ~1e-3 for nu >= 20.
inline double StudentQuantile(double p, double nu) {
  const double z = NormalQuantile(p), z3 = z * z * z, z5 = z3 * z * z, z7 = z5 * z * z;
  return z + (z3 + z) / (4 * nu) + (5 * z5 + 16 * z3 + 3 * z) / (96 * nu * nu) +
         (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * nu * nu * nu);
}

struct LinearRegression {
  int dim = 0;
  int data = 0;
  int batch = 0;                                                             // N_Omega = N / 100
  double noise_var = 10.0;                                                   // sigma_x^2
  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> a;  // N x D, rows a_n^T
  Eigen::VectorXd x;                                                         // N observations
  Eigen::VectorXd mean;                                                      // posterior mean m
  Eigen::MatrixXd cov;  // posterior covariance Lambda^-1
  Eigen::MatrixXd precision;

  // a_n ~ N(0, S), S_ij = correlation^|i - j| (correlated design, hence a correlated
  // posterior), theta_true ~ N(0, I), x_n ~ N(a_n^T theta_true, sigma_x^2).
  static LinearRegression Make(int dim, int data, double correlation, std::uint64_t seed) {
    LinearRegression p;
    p.dim = dim;
    p.data = data;
    p.batch = std::max(1, data / 100);
    Eigen::MatrixXd s(dim, dim);
    for (int i = 0; i < dim; ++i)
      for (int j = 0; j < dim; ++j) s(i, j) = std::pow(correlation, std::abs(i - j));
    const Eigen::MatrixXd l = s.llt().matrixL();
    KeyedStream rng(seed, Purpose::kGenerate, 0, 0);
    Eigen::VectorXd truth(dim), z(dim);
    for (int i = 0; i < dim; ++i) truth[i] = rng.normal();
    p.a.resize(data, dim);
    p.x.resize(data);
    for (int n = 0; n < data; ++n) {
      for (int i = 0; i < dim; ++i) z[i] = rng.normal();
      p.a.row(n) = (l * z).transpose();
      p.x[n] = p.a.row(n).dot(truth) + std::sqrt(p.noise_var) * rng.normal();
    }
    p.precision = Eigen::MatrixXd::Identity(dim, dim) + p.a.transpose() * p.a / p.noise_var;
    p.cov = p.precision.inverse();
    p.mean = p.cov * (p.a.transpose() * p.x) / p.noise_var;
    return p;
  }

  // grad U~(theta) = theta + (N / N_Omega) sum_{n in Omega} a_n (a_n^T theta - x_n) / sigma_x^2,
  // Omega drawn without replacement from a stream keyed by the iteration (HAMCMC evaluates
  // two gradients on the same minibatch). theta is 1 x D.
  SingleBlockChain::Gradient Gradient(std::uint64_t seed) const {
    // A partial Fisher-Yates shuffle of `order` picks Omega; undoing the swaps afterwards
    // leaves `order` the identity, so each call depends on its iteration alone.
    std::vector<int> order(static_cast<std::size_t>(data));
    std::iota(order.begin(), order.end(), 0);
    return
        [this, seed, order](const Matrix& theta, std::uint64_t iteration, Matrix& grad_u) mutable {
          KeyedStream stream(seed, Purpose::kMinibatch, 0, iteration);
          std::vector<std::pair<int, int>> swaps;
          swaps.reserve(static_cast<std::size_t>(batch));
          const Eigen::VectorXd t = theta.row(0).transpose().cast<double>();
          Eigen::VectorXd g = t;
          const double scale = static_cast<double>(data) / batch / noise_var;
          for (int i = 0; i < batch; ++i) {
            const auto j = i + static_cast<int>(stream.below(static_cast<std::uint64_t>(data - i)));
            std::swap(order[static_cast<std::size_t>(i)], order[static_cast<std::size_t>(j)]);
            swaps.emplace_back(i, j);
          }
          // Rows are visited in random order: fetch a few ahead so their loads overlap.
          constexpr int kAhead = 4;
          auto prefetch = [&](int i) {
            const double* row = a.row(order[static_cast<std::size_t>(i)]).data();
            for (int k = 0; k < dim; k += 8) __builtin_prefetch(row + k);
          };
          for (int i = 0; i < std::min(kAhead, batch); ++i) prefetch(i);
          for (int i = 0; i < batch; ++i) {
            if (i + kAhead < batch) prefetch(i + kAhead);
            const int n = order[static_cast<std::size_t>(i)];
            g.noalias() += (scale * (a.row(n).dot(t) - x[n])) * a.row(n).transpose();
          }
          for (auto it = swaps.rbegin(); it != swaps.rend(); ++it)
            std::swap(order[static_cast<std::size_t>(it->first)],
                      order[static_cast<std::size_t>(it->second)]);
          grad_u = g.transpose().cast<float>();
        };
  }
};

struct RegressionSettings {
  std::uint64_t steps = 100000;   // at eps; the eps / 2 run takes twice as many
  std::uint64_t burn_in = 10000;  // at eps; doubled at eps / 2
  int record_every = 5;           // at eps; doubled at eps / 2 (same times)
  int batches = 40;               // batch means per run
  double family_alpha = 0.01;     // for all mean and covariance entries together
  std::uint64_t seed = 1;
};

// Mean and covariance estimates with standard errors, and their errors in SE units.
struct MomentErrors {
  Eigen::VectorXd mean, mean_se;
  Eigen::MatrixXd cov, cov_se;
  double max_z_mean = 0.0, max_z_cov = 0.0;
  double rms_z = 0.0;              // over all mean and covariance entries (about 1 when unbiased)
  double max_rel_cov_error = 0.0;  // max |cov - truth| / sqrt(truth_aa truth_bb)

  void Score(const LinearRegression& p) {
    double ss = 0.0, count = 0.0;
    for (int a = 0; a < p.dim; ++a) {
      const double z = (mean[a] - p.mean[a]) / mean_se[a];
      max_z_mean = std::max(max_z_mean, std::abs(z));
      ss += z * z, count += 1.0;
      for (int b = 0; b <= a; ++b) {
        const double zc = (cov(a, b) - p.cov(a, b)) / cov_se(a, b);
        max_z_cov = std::max(max_z_cov, std::abs(zc));
        ss += zc * zc, count += 1.0;
        max_rel_cov_error = std::max(max_rel_cov_error, std::abs(cov(a, b) - p.cov(a, b)) /
                                                            std::sqrt(p.cov(a, a) * p.cov(b, b)));
      }
    }
    rms_z = std::sqrt(ss / count);
  }
};

struct RegressionCheck {
  std::string label;
  MomentErrors coarse;        // the run at eps
  MomentErrors fine;          // the run at eps / 2
  MomentErrors extrapolated;  // 2 fine - coarse
  double z_limit = 0.0;       // Bonferroni over all entries, Student t with batches - 1 df
  double tau_steps = 0.0;     // largest autocorrelation time (steps at eps) over coordinates
  double batch_steps = 0.0;   // steps per batch at eps
  double seconds = 0.0;

  // Batch means need batches much longer than tau (mc_stats.hpp).
  bool BatchesLongEnough() const { return batch_steps >= 10.0 * tau_steps; }
  bool Passed() const {
    return extrapolated.max_z_mean <= z_limit && extrapolated.max_z_cov <= z_limit;
  }
  std::string Report() const {
    std::ostringstream s;
    s << label << ": extrapolated max|z| mean " << extrapolated.max_z_mean << ", cov "
      << extrapolated.max_z_cov << " (limit " << z_limit << ", rms z " << extrapolated.rms_z
      << ", max rel cov error " << extrapolated.max_rel_cov_error << "); at eps alone: mean "
      << coarse.max_z_mean << ", cov " << coarse.max_z_cov << " (rel " << coarse.max_rel_cov_error
      << "); at eps/2: mean " << fine.max_z_mean << ", cov " << fine.max_z_cov << " (rel "
      << fine.max_rel_cov_error << "); tau " << tau_steps << " steps, batch " << batch_steps
      << " steps, " << seconds << " s";
    return s.str();
  }
};

// Mean and covariance (divisor n) of draws (one per row) with batch-means standard errors
// (mc_stats.hpp explains batch means): the chain is cut into `batches` consecutive batches,
// each batch's mean and cross-product matrix about the overall mean are formed (one matrix
// product per batch), and the spread of those batch values gives the standard errors.
inline MomentErrors BatchMoments(const Eigen::MatrixXd& draws, int batches) {
  const Eigen::Index n = draws.rows(), d = draws.cols(), m = n / batches;
  const Eigen::RowVectorXd overall = draws.colwise().mean();
  Eigen::MatrixXd mean_sum = Eigen::MatrixXd::Zero(1, d), mean_sq = mean_sum;
  Eigen::MatrixXd cov_sum = Eigen::MatrixXd::Zero(d, d), cov_sq = cov_sum;
  for (int k = 0; k < batches; ++k) {
    const Eigen::MatrixXd centred = draws.middleRows(k * m, m).rowwise() - overall;
    const Eigen::RowVectorXd mean_k = centred.colwise().mean();
    const Eigen::MatrixXd cov_k = centred.transpose() * centred / static_cast<double>(m);
    mean_sum += mean_k;
    mean_sq += mean_k.array().square().matrix();
    cov_sum += cov_k;
    cov_sq += cov_k.array().square().matrix();
  }
  const double b = batches;
  auto se = [b](const Eigen::MatrixXd& sum, const Eigen::MatrixXd& sq) {
    return ((sq.array() - sum.array().square() / b) / (b - 1.0) / b).max(0.0).sqrt().matrix();
  };
  MomentErrors e;
  e.mean = overall.transpose();
  e.mean_se = se(mean_sum, mean_sq).transpose();
  e.cov = cov_sum / b;
  e.cov_se = se(cov_sum, cov_sq);
  return e;
}

// One constant-step run: draws recorded every `record_every` steps after burn-in, moments
// with batch-means standard errors from `batches` batches, largest autocorrelation time
// over the coordinates (in steps).
inline MomentErrors RunRegressionChain(const LinearRegression& p, Sampler& sampler, double step,
                                       std::uint64_t burn_in, std::uint64_t steps, int record_every,
                                       int batches, std::uint64_t seed, double* tau_steps) {
  Matrix theta0 = p.mean.transpose().cast<float>();
  SingleBlockChain chain(sampler, theta0, p.Gradient(seed + 1), seed, p.data);
  for (std::uint64_t t = 0; t < burn_in; ++t) chain.Step(step);
  const auto records = static_cast<Eigen::Index>(steps / static_cast<std::uint64_t>(record_every));
  Eigen::MatrixXd draws(records, p.dim);
  for (Eigen::Index j = 0; j < records; ++j) {
    for (int i = 0; i < record_every; ++i) chain.Step(step);
    draws.row(j) = chain.theta().row(0).cast<double>();
  }
  // tau over all records of (at most) the first 10 coordinates: a single chain's estimate
  // needs the whole run, and with a correlated design every coordinate carries the slow
  // directions.
  double tau = 1.0;
  for (int a = 0; a < std::min(p.dim, 10); ++a) {
    std::vector<std::vector<double>> series(
        1, std::vector<double>(draws.col(a).data(), draws.col(a).data() + records));
    tau = std::max(tau, ks::PooledAutocorrTime(series));
  }
  *tau_steps = tau * record_every;
  MomentErrors e = BatchMoments(draws, batches);
  e.Score(p);
  return e;
}

// The check described at the top: runs `sampler` at eps and at eps / 2 (restoring its
// global state in between, so each run starts afresh) and extrapolates.
inline RegressionCheck CheckLinearRegression(const LinearRegression& p,
                                             std::unique_ptr<Sampler> sampler, double step,
                                             const RegressionSettings& s,
                                             const std::string& label) {
  const auto start = std::chrono::steady_clock::now();
  RegressionCheck out;
  out.label = label;
  const std::vector<double> initial_state = sampler->global_state();
  double tau_coarse = 0.0, tau_fine = 0.0;
  out.coarse = RunRegressionChain(p, *sampler, step, s.burn_in, s.steps, s.record_every, s.batches,
                                  s.seed, &tau_coarse);
  sampler->set_global_state(initial_state);
  out.fine = RunRegressionChain(p, *sampler, 0.5 * step, 2 * s.burn_in, 2 * s.steps,
                                2 * s.record_every, s.batches, s.seed + 100, &tau_fine);
  // tau in units of the coarse run's steps (the fine run takes twice as many per unit time).
  out.tau_steps = std::max(tau_coarse, 0.5 * tau_fine);
  out.batch_steps = static_cast<double>(s.steps) / s.batches;

  MomentErrors& x = out.extrapolated;
  x.mean = 2.0 * out.fine.mean - out.coarse.mean;
  x.mean_se = (4.0 * out.fine.mean_se.array().square() + out.coarse.mean_se.array().square())
                  .sqrt()
                  .matrix();
  x.cov = 2.0 * out.fine.cov - out.coarse.cov;
  x.cov_se =
      (4.0 * out.fine.cov_se.array().square() + out.coarse.cov_se.array().square()).sqrt().matrix();
  x.Score(p);

  const double entries = p.dim + 0.5 * p.dim * (p.dim + 1);
  out.z_limit = StudentQuantile(1.0 - s.family_alpha / (2.0 * entries), s.batches - 1.0);
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace toy
}  // namespace carousel
