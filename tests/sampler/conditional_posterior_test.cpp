// Exact-target statistical tests of the samplers (DESIGN.md section 5, tier 2).
//
// The target: with the item factors H fixed (biases off, tau and lambda fixed), the
// conditional posterior of one user's factors w_i is Gaussian,
//   precision  Lambda = lambda I + tau sum_j h_j h_j^T,
//   mean       m = Lambda^-1 tau sum_j h_j (r_ij - mu),
// and the samplers run on a block of a few such users with gradients from
// AccumulateTileGradient, exactly as the engine calls them.
//
// On a Gaussian target a constant-step Langevin chain is a linear (VAR(1)) recursion
//   x <- A x + noise,  x = theta - m,
// whose stationary law is known in closed form, so the samplers are checked against the
// exact stationary covariance of the discretised chain, not against Lambda^-1 with a
// tuned slack:
//   SGLD (recipe paper Eq. 13, D = I):   A = I - eps Lambda, Cov(noise) = 2 eps I, so
//     S = A S A + 2 eps I, i.e. S = 2 (2 Lambda - eps Lambda^2)^-1;
//   SGLD on a minibatch (each rating kept with probability f, gradient scaled 1/f): the
//     gradient noise adds eps^2 (1/f - 1) tau^2 sum_j h_j h_j^T (e_j - h_j . x)^2 with
//     e_j = r_ij - mu - m . h_j; its expectation is linear in S, so S again solves a
//     linear equation (StationaryCovariance below);
//   PSGLD with a constant preconditioner H (HAMCMC paper Sec. 3.1 once v has settled):
//     A = I - eps H Lambda, Cov(noise) = 2 eps H.
// In every case the stationary mean is m exactly. Means and covariances must agree within
// 4 Monte Carlo standard errors from batch means (mc_stats.hpp), and each check is run
// on a deliberately broken sampler (noise variance x2) that it must reject.
#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <Eigen/Eigenvalues>
#include <Eigen/LU>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "carousel/model/bpmf/bpmf.hpp"
#include "carousel/sampler/block.hpp"
#include "carousel/sampler/sampler.hpp"
#include "carousel/util/keyed_rng.hpp"
#include "mc_stats.hpp"

namespace carousel {
namespace {

constexpr int kRank = 3;
constexpr int kItems = 30;
constexpr double kTau = 4.0;     // noise sd 0.5
constexpr double kLambda = 2.0;  // prior precision of w
constexpr float kMu = 3.0f;
constexpr double kZ = 4.0;  // tolerance in Monte Carlo standard errors

// Three users with 30, 20 and 12 ratings of the 30 items: three different precisions.
const std::vector<int> kDegrees = {30, 20, 12};

struct Problem {
  Matrix h;  // items x rank, fixed
  TileRatings tile;
  std::vector<std::uint32_t> ids;
  std::vector<Eigen::MatrixXd> precision;  // per user
  std::vector<Eigen::VectorXd> mean;
  std::vector<std::vector<Eigen::VectorXd>> hz;  // per user: h_j of its rated items
  std::vector<std::vector<double>> e;            // per user: r_ij - mu - m . h_j
  int users() const { return static_cast<int>(ids.size()); }
};

Problem MakeProblem() {
  Problem p;
  KeyedStream rng(7, Purpose::kTest, 0, 0);
  p.h.resize(kItems, kRank);
  for (int j = 0; j < kItems; ++j)
    for (int f = 0; f < kRank; ++f) p.h(j, f) = static_cast<float>(0.6 * rng.normal());
  p.tile.row_start.push_back(0);
  for (std::size_t u = 0; u < kDegrees.size(); ++u) {
    p.ids.push_back(static_cast<std::uint32_t>(u));
    std::vector<std::uint32_t> items(kItems);
    for (int j = 0; j < kItems; ++j) items[j] = static_cast<std::uint32_t>(j);
    for (int j = 0; j < kDegrees[u]; ++j)  // partial Fisher-Yates: a random subset
      std::swap(items[j], items[j + rng.below(static_cast<std::uint64_t>(kItems - j))]);
    items.resize(static_cast<std::size_t>(kDegrees[u]));
    std::sort(items.begin(), items.end());
    Eigen::VectorXd w_true(kRank);
    for (int f = 0; f < kRank; ++f) w_true(f) = 0.7 * rng.normal();
    Eigen::MatrixXd prec = kLambda * Eigen::MatrixXd::Identity(kRank, kRank);
    Eigen::VectorXd rhs = Eigen::VectorXd::Zero(kRank);
    std::vector<Eigen::VectorXd> hz;
    std::vector<float> values;
    for (std::uint32_t j : items) {
      const Eigen::VectorXd hj = p.h.row(j).cast<double>().transpose();
      const float r = static_cast<float>(kMu + w_true.dot(hj) + 0.5 * rng.normal());
      p.tile.col.push_back(j);
      p.tile.value.push_back(r);
      values.push_back(r);
      prec += kTau * hj * hj.transpose();
      rhs += kTau * hj * (static_cast<double>(r) - kMu);
      hz.push_back(hj);
    }
    p.tile.row_start.push_back(static_cast<std::uint32_t>(p.tile.col.size()));
    const Eigen::VectorXd m = prec.llt().solve(rhs);
    std::vector<double> e;
    for (std::size_t t = 0; t < hz.size(); ++t)
      e.push_back(static_cast<double>(values[t]) - kMu - m.dot(hz[t]));
    p.precision.push_back(prec);
    p.mean.push_back(m);
    p.hz.push_back(hz);
    p.e.push_back(e);
  }
  return p;
}

// Stationary covariance of x <- A x + noise, where given x the noise has mean 0 and
// covariance Q + c sum_j u_j u_j^T (e_j - z_j . x)^2 (the last term is minibatch gradient
// noise; c = 0 without it). Taking expectations, S = A S A^T + Q + c sum_j u_j u_j^T
// (e_j^2 + z_j^T S z_j): linear in S, solved here as a k^2 x k^2 system.
Eigen::MatrixXd StationaryCovariance(const Eigen::MatrixXd& a, const Eigen::MatrixXd& q, double c,
                                     const std::vector<Eigen::VectorXd>& u,
                                     const std::vector<Eigen::VectorXd>& z,
                                     const std::vector<double>& e) {
  const Eigen::Index k = a.rows();
  auto apply = [&](const Eigen::MatrixXd& s) {  // the part of the right side linear in S
    Eigen::MatrixXd out = a * s * a.transpose();
    for (std::size_t j = 0; j < u.size(); ++j)
      out += c * u[j] * u[j].transpose() * z[j].dot(s * z[j]);
    return out;
  };
  Eigen::MatrixXd system(k * k, k * k);
  for (Eigen::Index col = 0; col < k * k; ++col) {
    Eigen::MatrixXd basis = Eigen::MatrixXd::Zero(k, k);
    basis(col % k, col / k) = 1.0;
    const Eigen::MatrixXd image = basis - apply(basis);
    system.col(col) = Eigen::Map<const Eigen::VectorXd>(image.data(), k * k);
  }
  Eigen::MatrixXd rhs = q;
  for (std::size_t j = 0; j < u.size(); ++j) rhs += c * u[j] * u[j].transpose() * e[j] * e[j];
  const Eigen::VectorXd s =
      system.fullPivLu().solve(Eigen::Map<const Eigen::VectorXd>(rhs.data(), k * k));
  const Eigen::MatrixXd out = Eigen::Map<const Eigen::MatrixXd>(s.data(), k, k);
  return 0.5 * (out + out.transpose());
}

// SGLD, full or minibatch gradient (fraction f).
Eigen::MatrixXd SgldStationary(const Problem& p, int user, double eps, double fraction) {
  const Eigen::MatrixXd eye = Eigen::MatrixXd::Identity(kRank, kRank);
  const Eigen::MatrixXd a = eye - eps * p.precision[user];
  const double c = eps * eps * (1.0 / fraction - 1.0) * kTau * kTau;
  return StationaryCovariance(a, 2.0 * eps * eye, c, p.hz[user], p.hz[user], p.e[user]);
}

// Preconditioned Euler chain with a constant diagonal preconditioner `d` (full gradient).
Eigen::MatrixXd PreconditionedStationary(const Problem& p, int user, double eps,
                                         const Eigen::VectorXd& d) {
  const Eigen::MatrixXd dm = d.asDiagonal();
  const Eigen::MatrixXd a = Eigen::MatrixXd::Identity(kRank, kRank) - eps * dm * p.precision[user];
  return StationaryCovariance(a, 2.0 * eps * dm, 0.0, {}, {}, {});
}

// ---------------------------------------------------------------------------------------
// The broken sampler: runs the real one, then adds an independent N(0, 2 eps D) to every
// coordinate, with D = I for SGLD and D = 1 / (lambda + sqrt(v)) (the preconditioner the
// step just used) for PSGLD. The injected noise variance doubles; nothing else changes.
class DoubledNoise : public Sampler {
 public:
  // rmsprop_lambda < 0: D = I (SGLD).
  DoubledNoise(std::unique_ptr<Sampler> inner, double rmsprop_lambda)
      : inner_(std::move(inner)), lambda_(rmsprop_lambda) {}
  std::string name() const override { return inner_->name() + "-doubled-noise"; }
  int aux_count() const override { return inner_->aux_count(); }
  void InitAux(BlockState& block) const override { inner_->InitAux(block); }
  void Step(BlockState& block, const BlockGradient& gradient, double step,
            const NoiseKey& noise) const override {
    inner_->Step(block, gradient, step, noise);
    for (Eigen::Index r = 0; r < block.theta.rows(); ++r) {
      KeyedStream extra(noise.seed, Purpose::kNoiseAux, (*noise.global_ids)[r], noise.iteration);
      for (Eigen::Index c = 0; c < block.theta.cols(); ++c) {
        const double d = lambda_ < 0 ? 1.0 : 1.0 / (lambda_ + std::sqrt(block.aux[0](r, c)));
        block.theta(r, c) += static_cast<float>(std::sqrt(2.0 * step * d) * extra.normal());
      }
    }
  }

 private:
  std::unique_ptr<Sampler> inner_;
  double lambda_;
};

// ---------------------------------------------------------------------------------------
// Running a chain on the problem's block of users.

struct Chain {
  double step = 0.0;
  std::uint64_t burn_in = 0;
  std::uint64_t draws = 0;
  double fraction = 1.0;  // minibatch: each rating kept with this probability
  std::uint64_t seed = 1;
  double rmsprop_lambda = -1.0;  // >= 0: record PSGLD's preconditioner 1/(lambda + sqrt(v))
};

struct ChainResult {
  std::vector<Eigen::MatrixXd> draws;                // per user: draws x rank
  std::vector<Eigen::VectorXd> precond_mean;         // per user: time average of D
  std::vector<Eigen::VectorXd> precond_relative_sd;  // its sd over time / its mean
  double seconds = 0.0;
};

ChainResult RunChain(const Sampler& sampler, const Problem& p, const Chain& chain) {
  const auto start = std::chrono::steady_clock::now();
  const int users = p.users();
  const BpmfShape shape{kRank, false};
  BlockState block;
  block.theta.resize(users, kRank);
  for (int u = 0; u < users; ++u) block.theta.row(u) = p.mean[u].cast<float>().transpose();
  sampler.InitAux(block);
  Matrix lik(users, kRank), lik_h(kItems, kRank);
  const Eigen::VectorXf prior = PriorPrecision(shape, kLambda, 0.0);
  const double ratings = static_cast<double>(p.tile.size());
  ChainResult out;
  out.draws.assign(users, Eigen::MatrixXd(chain.draws, kRank));
  std::vector<Eigen::ArrayXd> d_sum(users, Eigen::ArrayXd::Zero(kRank)), d_sq = d_sum;
  for (std::uint64_t t = 0; t < chain.burn_in + chain.draws; ++t) {
    lik.setZero();
    lik_h.setZero();
    const Subsample subsample = Subsample::For(chain.fraction, chain.seed, 0, t);
    AccumulateTileGradient(p.tile, block.theta, p.h, shape, kMu, static_cast<float>(kTau),
                           subsample, lik, lik_h);
    const BlockGradient gradient{lik, 1.0 / chain.fraction, chain.fraction * ratings, prior};
    const NoiseKey noise{chain.seed, Purpose::kNoiseRow, t, &p.ids};
    sampler.Step(block, gradient, chain.step, noise);
    if (t < chain.burn_in) continue;
    const auto i = static_cast<Eigen::Index>(t - chain.burn_in);
    for (int u = 0; u < users; ++u) {
      out.draws[u].row(i) = block.theta.row(u).cast<double>();
      if (chain.rmsprop_lambda >= 0) {
        const Eigen::ArrayXd d =
            1.0 / (chain.rmsprop_lambda + block.aux[0].row(u).cast<double>().array().sqrt());
        d_sum[u] += d.transpose();
        d_sq[u] += d.square().transpose();
      }
    }
  }
  if (chain.rmsprop_lambda >= 0) {
    const double n = static_cast<double>(chain.draws);
    for (int u = 0; u < users; ++u) {
      const Eigen::ArrayXd mean = d_sum[u] / n;
      out.precond_mean.push_back(mean.matrix());
      out.precond_relative_sd.push_back(
          ((d_sq[u] / n - mean.square()).max(0.0).sqrt() / mean).matrix());
    }
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

// Every user's moments against (m, S_u); returns the failures.
struct Comparison {
  std::vector<std::string> failures;
  double max_z = 0.0;
  double max_tau = 0.0;
  std::size_t batch_size = 0;
};

Comparison Compare(const ChainResult& run, const Problem& p,
                   const std::vector<Eigen::MatrixXd>& expected_cov, const std::string& label) {
  Comparison out;
  for (int u = 0; u < p.users(); ++u) {
    const mc::Moments est = mc::EstimateMoments(run.draws[u]);
    const auto f = mc::CompareMoments(est, p.mean[u], expected_cov[u], kZ,
                                      label + " user " + std::to_string(u));
    out.failures.insert(out.failures.end(), f.begin(), f.end());
    out.max_z = std::max(out.max_z, mc::MaxAbsZ(est, p.mean[u], expected_cov[u]));
    out.max_tau = std::max(out.max_tau, est.max_tau);
    out.batch_size = est.batch_size;
  }
  return out;
}

// Relative error of the total variance against the exact posterior:
//   sum_u tr(S^_u) / sum_u tr(Lambda_u^-1) - 1,
// with its batch-means standard error (the series sum_u |x_u - xbar_u|^2).
mc::Estimate TraceError(const ChainResult& run, const Problem& p, std::size_t batch_size = 0) {
  double exact = 0.0;
  for (int u = 0; u < p.users(); ++u) exact += p.precision[u].inverse().trace();
  const Eigen::Index n = run.draws[0].rows();
  std::vector<double> series(static_cast<std::size_t>(n), 0.0);
  for (int u = 0; u < p.users(); ++u) {
    const Eigen::RowVectorXd mean = run.draws[u].colwise().mean();
    for (Eigen::Index t = 0; t < n; ++t)
      series[static_cast<std::size_t>(t)] += (run.draws[u].row(t) - mean).squaredNorm();
  }
  mc::Estimate e = mc::BatchMeans(series, batch_size);
  e.mean = e.mean / exact - 1.0;
  e.se /= exact;
  return e;
}

double ExactTraceError(const Problem& p, const std::vector<Eigen::MatrixXd>& cov) {
  double exact = 0.0, got = 0.0;
  for (int u = 0; u < p.users(); ++u) {
    exact += p.precision[u].inverse().trace();
    got += cov[u].trace();
  }
  return got / exact - 1.0;
}

double MaxEigenvalue(const Problem& p) {
  double top = 0.0;
  for (const auto& prec : p.precision)
    top = std::max(top,
                   Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(prec).eigenvalues().maxCoeff());
  return top;
}
double MinEigenvalue(const Problem& p) {
  double low = 1e300;
  for (const auto& prec : p.precision)
    low = std::min(low,
                   Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(prec).eigenvalues().minCoeff());
  return low;
}

std::unique_ptr<Sampler> Make(const std::string& name, double alpha = 0.99) {
  SamplerOptions o;
  o.name = name;
  o.rmsprop_alpha = alpha;
  return MakeSampler(o);
}

void ReportFailures(const std::vector<std::string>& failures) {
  for (const auto& f : failures) ADD_FAILURE() << f;
}

// Batch means are only trustworthy with batches much longer than the autocorrelation.
void ExpectLongBatches(const Comparison& c) {
  EXPECT_GE(static_cast<double>(c.batch_size), 10.0 * c.max_tau)
      << "batch means need batches >> the integrated autocorrelation time";
}

// ---------------------------------------------------------------------------------------

TEST(ConditionalPosterior, StationaryCovarianceSolverMatchesSgldClosedForm) {
  const Problem p = MakeProblem();
  const double eps = 0.5 / MaxEigenvalue(p);
  for (int u = 0; u < p.users(); ++u) {
    const Eigen::MatrixXd& lam = p.precision[u];
    const Eigen::MatrixXd closed = 2.0 * (2.0 * lam - eps * lam * lam).inverse();
    EXPECT_LT((SgldStationary(p, u, eps, 1.0) - closed).cwiseAbs().maxCoeff(),
              1e-12 * closed.cwiseAbs().maxCoeff());
  }
}

// Full-batch SGLD at eps, eps/2, eps/4 (eps * lambda_max = 0.5): mean and covariance match
// the exact stationary law of the Euler chain, S = 2 (2 Lambda - eps Lambda^2)^-1, within
// 4 standard errors; separately, the error of the total variance against the true
// posterior Lambda^-1 shrinks with eps (as eps / 2 * tr(I) / tr(Lambda^-1) to first order).
TEST(ConditionalPosterior, SgldMatchesTheEulerChainsStationaryLaw) {
  const Problem p = MakeProblem();
  const auto sgld = Make("sgld");
  const double eps0 = 0.5 / MaxEigenvalue(p);
  const double lambda_min = MinEigenvalue(p);
  std::vector<mc::Estimate> errors;
  std::vector<double> steps;
  for (int halvings = 0; halvings < 3; ++halvings) {
    const double eps = eps0 / (1 << halvings);
    // The slowest direction decorrelates in about 1 / (eps lambda_min) steps: keep the
    // number of effectively independent draws the same at every step size.
    Chain chain;
    chain.step = eps;
    chain.burn_in = static_cast<std::uint64_t>(20.0 / (eps * lambda_min));
    chain.draws = static_cast<std::uint64_t>(32000.0 / (eps * lambda_min));
    chain.seed = 11 + halvings;
    const ChainResult run = RunChain(*sgld, p, chain);
    std::vector<Eigen::MatrixXd> exact;
    for (int u = 0; u < p.users(); ++u) exact.push_back(SgldStationary(p, u, eps, 1.0));
    const Comparison c = Compare(run, p, exact, "sgld eps=" + std::to_string(eps));
    ReportFailures(c.failures);
    ExpectLongBatches(c);
    const mc::Estimate err = TraceError(run, p);
    errors.push_back(err);
    steps.push_back(eps);
    std::cout << std::setprecision(4) << "[sgld full batch] eps=" << eps
              << " eps*lambda_max=" << eps * MaxEigenvalue(p) << " draws=" << chain.draws
              << " max|z| vs Euler law=" << c.max_z << " tau_max=" << c.max_tau
              << " batch=" << c.batch_size << " | tr error vs Lambda^-1: " << err.mean << " +- "
              << err.se << " (exact Euler: " << ExactTraceError(p, exact) << ")"
              << " time=" << run.seconds << "s\n";
  }
  // The error to the true posterior falls with the step: each halving lowers it (within
  // Monte Carlo error), and the drop from eps to eps/4 is significant.
  for (std::size_t k = 0; k + 1 < errors.size(); ++k) {
    const double se = std::hypot(errors[k].se, errors[k + 1].se);
    EXPECT_LT(errors[k + 1].mean, errors[k].mean + kZ * se) << "step " << steps[k + 1];
  }
  EXPECT_GT(errors.front().mean - errors.back().mean,
            kZ * std::hypot(errors.front().se, errors.back().se));
}

TEST(ConditionalPosterior, SgldCheckRejectsDoubledNoise) {
  const Problem p = MakeProblem();
  const DoubledNoise broken(Make("sgld"), -1.0);
  const double eps = 0.5 / MaxEigenvalue(p);
  Chain chain;
  chain.step = eps;
  chain.burn_in = static_cast<std::uint64_t>(20.0 / (eps * MinEigenvalue(p)));
  chain.draws = static_cast<std::uint64_t>(32000.0 / (eps * MinEigenvalue(p)));
  chain.seed = 11;
  const ChainResult run = RunChain(broken, p, chain);
  std::vector<Eigen::MatrixXd> exact;
  for (int u = 0; u < p.users(); ++u) exact.push_back(SgldStationary(p, u, eps, 1.0));
  const Comparison c = Compare(run, p, exact, "broken");
  std::cout << "[sgld doubled noise] max|z| = " << c.max_z << ", " << c.failures.size()
            << " entries outside 4 se; tr error vs Lambda^-1 = " << TraceError(run, p).mean << "\n";
  EXPECT_FALSE(c.failures.empty()) << "the check must reject SGLD with doubled noise";
}

// Minibatch SGLD: each rating kept with probability 1/2 and the likelihood gradient
// scaled by 2 (the engine's Subsample). The stationary covariance now also carries the
// gradient noise (StationaryCovariance); it must match within 4 standard errors at each
// of three steps, and the error of the total variance against Lambda^-1, to which both
// the discretisation and the gradient noise contribute O(eps), must fall with the step.
TEST(ConditionalPosterior, MinibatchSgldMatchesItsExactStationaryLaw) {
  const Problem p = MakeProblem();
  const auto sgld = Make("sgld");
  const double eps0 = 0.5 / MaxEigenvalue(p);
  const double lambda_min = MinEigenvalue(p);
  constexpr double kFraction = 0.5;
  std::vector<mc::Estimate> errors;
  for (int halvings = 0; halvings < 3; ++halvings) {
    const double eps = eps0 / (1 << halvings);
    Chain chain;
    chain.step = eps;
    chain.fraction = kFraction;
    chain.burn_in = static_cast<std::uint64_t>(20.0 / (eps * lambda_min));
    chain.draws = static_cast<std::uint64_t>(32000.0 / (eps * lambda_min));
    chain.seed = 21 + halvings;
    const ChainResult run = RunChain(*sgld, p, chain);
    std::vector<Eigen::MatrixXd> exact, full_batch;
    for (int u = 0; u < p.users(); ++u) {
      exact.push_back(SgldStationary(p, u, eps, kFraction));
      full_batch.push_back(SgldStationary(p, u, eps, 1.0));
    }
    const Comparison c = Compare(run, p, exact, "minibatch sgld eps=" + std::to_string(eps));
    ReportFailures(c.failures);
    ExpectLongBatches(c);
    const mc::Estimate err = TraceError(run, p);
    errors.push_back(err);
    std::cout << std::setprecision(4) << "[sgld minibatch 1/2] eps=" << eps
              << " draws=" << chain.draws << " max|z| vs exact law=" << c.max_z
              << " tau_max=" << c.max_tau << " | tr error vs Lambda^-1: " << err.mean << " +- "
              << err.se << " (exact: " << ExactTraceError(p, exact)
              << ", of which full-batch Euler " << ExactTraceError(p, full_batch) << ")"
              << " time=" << run.seconds << "s\n";
  }
  for (std::size_t k = 0; k + 1 < errors.size(); ++k)
    EXPECT_LT(errors[k + 1].mean, errors[k].mean + kZ * std::hypot(errors[k].se, errors[k + 1].se));
  EXPECT_GT(errors.front().mean - errors.back().mean,
            kZ * std::hypot(errors.front().se, errors.back().se));
}

TEST(ConditionalPosterior, MinibatchSgldCheckRejectsDoubledNoise) {
  const Problem p = MakeProblem();
  const DoubledNoise broken(Make("sgld"), -1.0);
  const double eps = 0.5 / MaxEigenvalue(p);  // the largest step of the test above
  Chain chain;
  chain.step = eps;
  chain.fraction = 0.5;
  chain.burn_in = static_cast<std::uint64_t>(20.0 / (eps * MinEigenvalue(p)));
  chain.draws = static_cast<std::uint64_t>(32000.0 / (eps * MinEigenvalue(p)));
  chain.seed = 21;
  const ChainResult run = RunChain(broken, p, chain);
  std::vector<Eigen::MatrixXd> exact;
  for (int u = 0; u < p.users(); ++u) exact.push_back(SgldStationary(p, u, eps, 0.5));
  const Comparison c = Compare(run, p, exact, "broken");
  std::cout << "[minibatch sgld doubled noise] max|z| = " << c.max_z << ", " << c.failures.size()
            << " entries outside 4 se\n";
  EXPECT_FALSE(c.failures.empty()) << "the check must reject SGLD with doubled noise";
}

// PSGLD's preconditioner D = 1 / (lambda + sqrt(v)) changes along the chain. With
// rmsprop_alpha = 0.9999, v averages the squared gradients over ~10^4 steps, so after a
// warm-up of 10^5 steps D is constant up to small fluctuations (checked: relative sd of
// D below 5%, the condition for using the constant-D formula) and the chain is the
// preconditioned Euler chain with D = its time average; the Gamma term is then ~0.
ChainResult RunSettledPsgld(const Sampler& sampler, const Problem& p, double eps,
                            std::uint64_t seed) {
  Chain chain;
  chain.step = eps;
  chain.burn_in = 100000;
  chain.draws = 400000;
  chain.seed = seed;
  chain.rmsprop_lambda = SamplerOptions().rmsprop_lambda;
  return RunChain(sampler, p, chain);
}

std::vector<Eigen::MatrixXd> PsgldExact(const Problem& p, const ChainResult& run, double eps) {
  std::vector<Eigen::MatrixXd> exact;
  for (int u = 0; u < p.users(); ++u)
    exact.push_back(PreconditionedStationary(p, u, eps, run.precond_mean[u]));
  return exact;
}

// The default-style PSGLD step of the engine: 0.05 / N ratings.
double PsgldStep(const Problem& p) {
  return 0.05 / static_cast<double>(p.tile.size());
}

TEST(ConditionalPosterior, PsgldWithSettledPreconditionerMatchesPreconditionedEulerLaw) {
  const Problem p = MakeProblem();
  const auto psgld = Make("psgld", 0.9999);
  const double eps = PsgldStep(p);
  const ChainResult run = RunSettledPsgld(*psgld, p, eps, 31);
  double max_spread = 0.0, max_eps_d_lambda = 0.0;
  for (int u = 0; u < p.users(); ++u) {
    max_spread = std::max(max_spread, run.precond_relative_sd[u].maxCoeff());
    const Eigen::MatrixXd dl = run.precond_mean[u].asDiagonal() * p.precision[u];
    max_eps_d_lambda = std::max(max_eps_d_lambda, eps * dl.eigenvalues().real().maxCoeff());
  }
  EXPECT_LT(max_spread, 0.05) << "the preconditioner has not settled";
  const auto exact = PsgldExact(p, run, eps);
  const Comparison c = Compare(run, p, exact, "psgld alpha=0.9999");
  ReportFailures(c.failures);
  ExpectLongBatches(c);
  const mc::Estimate err = TraceError(run, p);
  std::cout << std::setprecision(4) << "[psgld alpha=0.9999] eps=" << eps
            << " max eig(eps D Lambda)=" << max_eps_d_lambda << " max rel sd(D)=" << max_spread
            << " max|z| vs preconditioned Euler law=" << c.max_z << " tau_max=" << c.max_tau
            << " | tr error vs Lambda^-1: " << err.mean << " +- " << err.se
            << " (exact: " << ExactTraceError(p, exact) << ") time=" << run.seconds << "s\n";
  for (int u = 0; u < p.users(); ++u)
    std::cout << "  user " << u << " mean D = " << run.precond_mean[u].transpose() << " rel sd "
              << run.precond_relative_sd[u].transpose() << "\n";
}

TEST(ConditionalPosterior, PsgldCheckRejectsDoubledNoise) {
  const Problem p = MakeProblem();
  const DoubledNoise broken(Make("psgld", 0.9999), SamplerOptions().rmsprop_lambda);
  const double eps = PsgldStep(p);
  const ChainResult run = RunSettledPsgld(broken, p, eps, 31);
  const Comparison c = Compare(run, p, PsgldExact(p, run, eps), "broken");
  std::cout << "[psgld doubled noise] max|z| = " << c.max_z << ", " << c.failures.size()
            << " entries outside 4 se\n";
  EXPECT_FALSE(c.failures.empty()) << "the check must reject PSGLD with doubled noise";
}

// PSGLD with rmsprop_alpha = 0.99 (the default before the Gamma-term bias below was measured) averages v over only ~100 steps, so D
// follows theta: D = D(theta history), and dropping the Gamma term (HAMCMC paper Eq. 9,
// Gamma_i = sum_j dD_ij / dtheta_j; psgld.hpp) leaves a bias that does NOT vanish as
// eps -> 0. In fact it grows: the smaller the step, the less theta moves within v's
// window, the more D is a function of the current theta (D is largest where the
// likelihood gradient is near zero, which pushes mass away from there). Measured here,
// as the excess of the total variance over (a) the exact posterior Lambda^-1 and (b) the
// constant-D Euler law with D = its time average (which alone would be O(eps)):
//   eps0 = 0.05 / N:  error vs Lambda^-1 0.169 +- 0.004, const-D Euler law 0.144;
//   eps0 / 4:         0.100 +- 0.004, const-D law 0.035;
//   eps0 / 16:        0.212 +- 0.005, const-D law 0.009
// (relative sd of D along the chain 0.11, 0.22, 0.35; the means are off too, by up to
// 19 se at eps0 / 16).
// This test is a characterisation of that documented limitation, not a correctness
// check: it asserts that at the smallest step the excess over the constant-D law is
// significant (> 4 se). If it fails, the bias has gone (e.g. a Gamma correction was
// added): then replace it by the exact check of the test above.
TEST(ConditionalPosterior, PsgldShortWindowCarriesTheGammaTermBias) {
  const Problem p = MakeProblem();
  const auto psgld = Make("psgld", 0.99);
  std::vector<double> excess, excess_se;
  for (double div : {1.0, 4.0, 16.0}) {
    const double eps = PsgldStep(p) / div;
    Chain chain;
    chain.step = eps;
    chain.burn_in = static_cast<std::uint64_t>(20000 * div);
    chain.draws = static_cast<std::uint64_t>(100000 * div);
    chain.seed = 41;
    chain.rmsprop_lambda = SamplerOptions().rmsprop_lambda;
    const ChainResult run = RunChain(*psgld, p, chain);
    std::vector<Eigen::MatrixXd> inverse;
    for (int u = 0; u < p.users(); ++u) inverse.push_back(p.precision[u].inverse());
    const Comparison vs_exact = Compare(run, p, inverse, "vs Lambda^-1");
    const double const_d = ExactTraceError(p, PsgldExact(p, run, eps));
    // Slow mixing at the smallest step: batches of 20 autocorrelation times.
    const auto batch = static_cast<std::size_t>(20.0 * vs_exact.max_tau);
    const mc::Estimate err = TraceError(run, p, std::max(batch, vs_exact.batch_size));
    double spread = 0.0;
    for (int u = 0; u < p.users(); ++u)
      spread = std::max(spread, run.precond_relative_sd[u].maxCoeff());
    excess.push_back(err.mean - const_d);
    excess_se.push_back(err.se);
    std::cout << std::setprecision(4) << "[psgld alpha=0.99] eps=" << eps
              << " max rel sd(D)=" << spread << " | tr error vs Lambda^-1: " << err.mean << " +- "
              << err.se << ", constant-D Euler law: " << const_d
              << " | max|z| of mean/cov vs Lambda^-1: " << vs_exact.max_z << " ("
              << vs_exact.failures.size() << " of 27 entries beyond 4 se) time=" << run.seconds
              << "s\n";
  }
  EXPECT_GT(excess.back(), kZ * excess_se.back())
      << "the Gamma-term bias of PSGLD (alpha = 0.99) is no longer visible";
}

}  // namespace
}  // namespace carousel
