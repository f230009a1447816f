// Exact-target test of SGGMC on the synthetic posterior of Liu, Zhu and Song (2016),
// "Stochastic Gradient Geodesic MCMC Methods", main paper Sec. 5.2 (settings: supplement
// F.2), and an end-to-end test of the empirical-Fisher diffusion estimate V(x) of Eq. 8
// (EmpiricalFisherDiagonal). DESIGN.md section 5, tier 2: every threshold is a quantile at a
// stated significance level of a statistic whose spread comes from the run itself (batch
// means), and the test must reject deliberately broken samplers (GeodesicFault).
//
// The model (Sec. 5.2). Two vMF components on S^1 with equal weights,
//   v1 ~ vMF(e1, kappa1), v2 ~ vMF(e2, kappa2),
//   x_i | v1, v2 ~ (vMF(x_i | v1, kappa_x) + vMF(x_i | v2, kappa_x)) / 2,
// kappa1 = kappa2 = kappa_x = 20, D = 100 data. The paper's text is garbled here: it
// defines e1 = (1, 0) and a mu = (v1 + v2) / |v1 + v2| that no formula uses, and no e2.
// Reading taken: e2 = (cos(pi/4), sin(pi/4)) and the likelihood symmetric in v1 and v2 as
// above. (Another reading, the analogue of Welling and Teh's (2011) model [29] with
// components at v1 and mu, is not tested.) The data are drawn exactly from the likelihood
// with v1 at angle -pi/24 and v2 at pi/8 (the paper draws them "by GMC"; exact draws remove
// that approximation from the reference).
// Under this reading the label-switched mode (angle(v1) > angle(v2)) has exact mass
// 6.1e-4 only, so the posterior is in effect one mode with correlated v1 and v2; the
// paper's "explores the two modes" is not checked. With e2 = e1 the two labellings carry
// mass 1/2 each but no chain here crosses between them (measured: 6.5e5 steps at F.2's
// step, 2.2e6 at a quarter of it; every variant tried leaves the other mode's bins empty
// and is rejected), so that reading makes no usable exact-target test at these settings.
//
// The state is one SphereBlock with 2 rows (v1, v2) and 2 columns: a product of two
// circles. The potential is U = -log prior - (D / n) sum_{i in S} log lik(x_i | v1, v2) for
// a minibatch S of n = 10 indices drawn uniformly WITH replacement, so that the per-datum
// gradients g_i are i.i.d. given x and the empirical Fisher estimate
// V = (D^2 / n) * sample variance(g_i) is unbiased for the variance of the minibatch
// gradient (the Fisher test below checks this and shows that sampling without replacement
// would not be).
//
// The reference: the exact posterior density of the two angles (Hausdorff measure on S^1 is
// arc length, so the density in angles is the density on the circles) tabulated in log space
// on a grid, its marginals integrated over bins of nearly equal exact probability (see
// ExactReference).
//
// The goodness-of-fit test: per marginal, K = 20 bins with exact probabilities p (0.03 to
// 0.09: edges on grid lines near the quantiles k / K); the chain
// (thinned to one draw every L steps) is cut into B batches of consecutive draws, each
// batch gives a vector of bin fractions; the K - 1 first coordinates of the B batch means
// are nearly i.i.d. normal with mean p when the batches are much longer than the integrated
// autocorrelation time, so Hotelling's
//   T^2 = B (pbar - p)^T S^-1 (pbar - p),  S the sample covariance of the batch means,
// gives F = T^2 (B - q) / (q (B - 1)) ~ F(q, B - q), q = K - 1 (Hotelling 1931). A marginal
// is rejected when its p-value is below kAlpha / 2 (Bonferroni over the two marginals):
// the correct sampler fails with probability at most kAlpha = 1e-3 by chance. The batch
// covariance carries both the autocorrelation and the correlation between bins, so no
// effective sample size needs to be guessed; ESS = n / tau is printed for reference.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <boost/math/distributions/fisher_f.hpp>
#include <boost/math/distributions/normal.hpp>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "carousel/sampler/geodesic.hpp"
#include "carousel/util/keyed_rng.hpp"
#include "geodesic_fault_names.hpp"
#include "mc_stats.hpp"

namespace carousel {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kAlpha = 1e-3;  // false-rejection probability of one goodness-of-fit test

// ---------------------------------------------------------------- the model (Sec. 5.2)

constexpr int kData = 100;
constexpr int kMinibatch = 10;
constexpr double kKappaPrior = 20.0;  // kappa1 = kappa2
constexpr double kKappaX = 20.0;
constexpr double kPriorAngle[2] = {0.0, kPi / 4};       // e1, e2
constexpr double kTrueAngle[2] = {-kPi / 24, kPi / 8};  // v1, v2 of the data
constexpr std::uint64_t kDataSeed = 2016;

// An exact draw from vMF(mu, kappa) on S^1 (the von Mises distribution), by rejection from
// the uniform angle: accept theta with probability exp(kappa (cos(theta - mu) - 1)) <= 1.
double DrawVonMises(KeyedStream& rng, double mu, double kappa) {
  for (;;) {
    const double theta = mu + kPi * (2.0 * rng.uniform() - 1.0);
    if (rng.uniform() < std::exp(kappa * (std::cos(theta - mu) - 1.0))) return theta;
  }
}

struct MixtureModel {
  std::vector<double> angle;   // the data x_i as angles
  Eigen::MatrixXd x;           // the data as unit vectors, kData x 2
  Eigen::MatrixXd prior_mean;  // e1, e2 as rows

  MixtureModel() : angle(kData), x(kData, 2), prior_mean(2, 2) {
    KeyedStream rng(kDataSeed, Purpose::kTest, 100, 0);
    for (int i = 0; i < kData; ++i) {
      const int component = rng.uniform() < 0.5 ? 0 : 1;  // equal weights
      angle[i] = DrawVonMises(rng, kTrueAngle[component], kKappaX);
      x(i, 0) = std::cos(angle[i]);
      x(i, 1) = std::sin(angle[i]);
    }
    for (int j = 0; j < 2; ++j)
      prior_mean(j, 0) = std::cos(kPriorAngle[j]), prior_mean(j, 1) = std::sin(kPriorAngle[j]);
  }

  // g_i = grad of -log lik(x_i | v1, v2) in the embedding (rows v1, v2):
  // -kappa_x r_ij x_i, r_ij the responsibility of component j for x_i.
  void PerDatumGradient(const Eigen::MatrixXd& v, int i, Eigen::MatrixXd& g) const {
    const double s1 = kKappaX * (x(i, 0) * v(0, 0) + x(i, 1) * v(0, 1));
    const double s2 = kKappaX * (x(i, 0) * v(1, 0) + x(i, 1) * v(1, 1));
    const double r1 = 1.0 / (1.0 + std::exp(s2 - s1));
    g.resize(2, 2);
    g.row(0) = -kKappaX * r1 * x.row(i);
    g.row(1) = -kKappaX * (1.0 - r1) * x.row(i);
  }

  // Log posterior density (unnormalised) of the angles.
  double LogPosterior(double t1, double t2) const {
    double s = kKappaPrior * (std::cos(t1 - kPriorAngle[0]) + std::cos(t2 - kPriorAngle[1]));
    for (int i = 0; i < kData; ++i) {
      const double a = kKappaX * std::cos(angle[i] - t1), b = kKappaX * std::cos(angle[i] - t2);
      const double m = std::max(a, b);
      s += m + std::log(std::exp(a - m) + std::exp(b - m));
    }
    return s;
  }
};

const MixtureModel& Model() {
  static const MixtureModel model;
  return model;
}

// Minibatch indices: n uniform draws with replacement, keyed by (seed, iteration).
void DrawMinibatch(std::uint64_t seed, std::uint64_t iteration, bool with_replacement,
                   std::vector<int>& idx) {
  KeyedStream rng(seed, Purpose::kMinibatch, 0, iteration);
  idx.clear();
  if (with_replacement) {
    for (int k = 0; k < kMinibatch; ++k) idx.push_back(static_cast<int>(rng.below(kData)));
    return;
  }
  std::vector<int> all(kData);
  for (int i = 0; i < kData; ++i) all[i] = i;
  for (int k = 0; k < kMinibatch; ++k) {  // partial Fisher-Yates
    const int j = k + static_cast<int>(rng.below(kData - k));
    std::swap(all[k], all[j]);
    idx.push_back(all[k]);
  }
}

// The minibatch gradient (D / n) sum g_i plus the prior's, and the per-datum gradients.
void MinibatchGradient(const Eigen::MatrixXd& v, const std::vector<int>& idx, Eigen::MatrixXd& grad,
                       std::vector<Eigen::MatrixXd>& per_datum) {
  const MixtureModel& m = Model();
  per_datum.resize(idx.size());
  grad = Eigen::MatrixXd::Zero(2, 2);
  for (std::size_t k = 0; k < idx.size(); ++k) {
    m.PerDatumGradient(v, idx[k], per_datum[k]);
    grad += per_datum[k];
  }
  grad *= static_cast<double>(kData) / static_cast<double>(idx.size());
  grad -= kKappaPrior * m.prior_mean;  // grad of -kappa e_j . v_j
}

// ---------------------------------------------------------------- the exact reference

// The posterior of the angles tabulated at the centres of cells x cells cells over
// [lo, hi)^2, normalised: the mass of each strip of cells of one angle (its marginal).
// Per-datum tables kappa_x cos(a_i - theta) make a cell cost D log-sum-exps.
struct Grid {
  double lo[2], hi[2];
  int cells = 0;
  std::vector<double> marginal[2];
  double second_mode_mass = 0.0;  // mass where angle(v1) > angle(v2)
};

Grid Tabulate(const double lo[2], const double hi[2], int cells) {
  const MixtureModel& m = Model();
  Grid g;
  g.cells = cells;
  std::vector<double> table[2], centre[2];
  for (int j = 0; j < 2; ++j) {
    g.lo[j] = lo[j], g.hi[j] = hi[j];
    g.marginal[j].assign(cells, 0.0);
    table[j].resize(static_cast<std::size_t>(kData) * cells);
    const double d = (hi[j] - lo[j]) / cells;
    for (int c = 0; c < cells; ++c) {
      centre[j].push_back(lo[j] + (c + 0.5) * d);
      for (int i = 0; i < kData; ++i)
        table[j][static_cast<std::size_t>(c) * kData + i] =
            kKappaX * std::cos(m.angle[i] - centre[j][c]);
    }
  }
  std::vector<double> logp(static_cast<std::size_t>(cells) * cells);
  double mx = -1e300;
  for (int a = 0; a < cells; ++a) {
    const double* ta = &table[0][static_cast<std::size_t>(a) * kData];
    for (int b = 0; b < cells; ++b) {
      const double* tb = &table[1][static_cast<std::size_t>(b) * kData];
      double s = kKappaPrior * (std::cos(centre[0][a] - kPriorAngle[0]) +
                                std::cos(centre[1][b] - kPriorAngle[1]));
      for (int i = 0; i < kData; ++i)
        s += std::max(ta[i], tb[i]) + std::log1p(std::exp(-std::abs(ta[i] - tb[i])));
      logp[static_cast<std::size_t>(a) * cells + b] = s;
      mx = std::max(mx, s);
    }
  }
  double total = 0.0;
  for (int a = 0; a < cells; ++a)
    for (int b = 0; b < cells; ++b) {
      const double p = std::exp(logp[static_cast<std::size_t>(a) * cells + b] - mx);
      g.marginal[0][a] += p;
      g.marginal[1][b] += p;
      if (centre[0][a] > centre[1][b]) g.second_mode_mass += p;
      total += p;
    }
  for (int j = 0; j < 2; ++j)
    for (double& p : g.marginal[j]) p /= total;
  g.second_mode_mass /= total;
  return g;
}

struct Reference {
  std::vector<double> edges[2];  // inner edges of the bins, K - 1 per marginal
  std::vector<double> p[2];      // exact bin probabilities
  double grid_error = 0.0;       // largest estimated discretisation error of a p
  double second_mode_mass = 0.0;
};

// 1. A coarse 360 x 360 grid over the whole torus finds where the mass is: the window holds
//    every coarse cell within exp(-40) of the largest density (outside it a bin gets less
//    than 1e-15), with two cells to spare on each side.
// 2. A fine grid of 2 * kHalf cells per angle over the window gives the marginals; bin
//    edges are every second fine-cell boundary nearest to the equal-mass quantiles k / K,
//    so they are also cell boundaries of the grid with kHalf cells.
// 3. A bin's mass is a sum of strip masses: the inner integral runs over a window the
//    density vanishes at both ends of (so the midpoint rule converges faster than any power
//    of the cell), the outer one is a midpoint rule with error O(cell^2). The difference of
//    the two grids is then 3 times the fine grid's error (Richardson); the extrapolated
//    p = fine + (fine - half) / 3 is used, and |fine - half| / 3 is reported as a bound.
Reference ExactReference(int bins) {
  const double whole_lo[2] = {-kPi, -kPi}, whole_hi[2] = {kPi, kPi};
  const int coarse_cells = 360, half_cells = 300;
  const Grid coarse = Tabulate(whole_lo, whole_hi, coarse_cells);
  const double d = 2 * kPi / coarse_cells;
  double lo[2], hi[2];
  for (int j = 0; j < 2; ++j) {
    const double peak = *std::max_element(coarse.marginal[j].begin(), coarse.marginal[j].end());
    int first = coarse_cells, last = -1;
    for (int c = 0; c < coarse_cells; ++c)
      if (coarse.marginal[j][c] > peak * std::exp(-40.0)) first = std::min(first, c), last = c;
    lo[j] = std::max(-kPi, -kPi + (first - 2) * d);
    hi[j] = std::min(kPi, -kPi + (last + 3) * d);
  }
  const Grid fine = Tabulate(lo, hi, 2 * half_cells);
  const Grid half = Tabulate(lo, hi, half_cells);
  Reference r;
  r.second_mode_mass = fine.second_mode_mass;
  for (int j = 0; j < 2; ++j) {
    const double dh = (hi[j] - lo[j]) / half_cells;
    std::vector<int> cut;  // half-grid boundaries 0 < cut < half_cells
    double cum = 0.0;
    for (int c = 0; c < half_cells && static_cast<int>(cut.size()) < bins - 1; ++c) {
      const double next = cum + half.marginal[j][c];
      const double target = static_cast<double>(cut.size() + 1) / bins;
      if (next >= target) cut.push_back(next - target < target - cum ? c + 1 : c);
      cum = next;
    }
    cut.insert(cut.begin(), 0);
    cut.push_back(half_cells);
    for (int k = 0; k < bins; ++k) {
      double pf = 0.0, ph = 0.0;
      for (int c = cut[k]; c < cut[k + 1]; ++c) {
        ph += half.marginal[j][c];
        pf += fine.marginal[j][2 * c] + fine.marginal[j][2 * c + 1];
      }
      r.p[j].push_back(pf + (pf - ph) / 3.0);
      r.grid_error = std::max(r.grid_error, std::abs(pf - ph) / 3.0);
      if (k > 0) r.edges[j].push_back(lo[j] + cut[k] * dh);
    }
    std::cout << "[mixture] exact marginal of v" << j + 1 << ": window [" << lo[j] << ", " << hi[j]
              << "), inner bin edges " << r.edges[j].front() << " .. " << r.edges[j].back()
              << ", bin probabilities " << *std::min_element(r.p[j].begin(), r.p[j].end()) << " .. "
              << *std::max_element(r.p[j].begin(), r.p[j].end()) << "\n";
  }
  std::cout << "[mixture] exact: mass of the label-switched mode (angle(v1) > angle(v2)) "
            << r.second_mode_mass
            << "; discretisation error of a bin probability <= " << r.grid_error << "\n";
  return r;
}

const Reference& Exact() {
  static const Reference r = ExactReference(20);
  return r;
}

// ---------------------------------------------------------------- the goodness-of-fit test

struct Hotelling {
  double t2 = 0.0, f = 0.0, threshold = 0.0, p = 1.0;
  double tau = 0.0, ess = 0.0;  // largest integrated autocorrelation time of the bin indicators
  std::size_t batches = 0, batch_size = 0;
};

// bin[t]: the bin of draw t; p: the exact bin probabilities; level: the rejection level.
Hotelling HotellingBins(const std::vector<int>& bin, const std::vector<double>& p, int batches,
                        double level) {
  const int K = static_cast<int>(p.size()), q = K - 1;
  Hotelling h;
  const std::size_t n = bin.size();
  std::vector<double> indicator(n);
  for (int k = 0; k < K; ++k) {
    for (std::size_t t = 0; t < n; ++t) indicator[t] = bin[t] == k ? 1.0 : 0.0;
    h.tau = std::max(h.tau, mc::IntegratedAutocorrTime(indicator));
  }
  h.ess = static_cast<double>(n) / h.tau;
  h.batches = static_cast<std::size_t>(batches);
  h.batch_size = n / h.batches;
  Eigen::MatrixXd means = Eigen::MatrixXd::Zero(batches, q);
  for (int b = 0; b < batches; ++b) {
    for (std::size_t t = b * h.batch_size; t < (b + 1) * h.batch_size; ++t)
      if (bin[t] < q) means(b, bin[t]) += 1.0;
  }
  means /= static_cast<double>(h.batch_size);
  const Eigen::VectorXd mean = means.colwise().mean().transpose();
  const Eigen::MatrixXd centred = means.rowwise() - mean.transpose();
  const Eigen::MatrixXd s = centred.transpose() * centred / (batches - 1.0);
  Eigen::VectorXd diff(q);
  for (int k = 0; k < q; ++k) diff(k) = mean(k) - p[k];
  const boost::math::fisher_f dist(q, batches - q);
  h.threshold = boost::math::quantile(boost::math::complement(dist, level));
  // A bin with the same fraction in every batch (never visited, say) makes S singular: the
  // chain then cannot be matching p > 0 there, so the statistic is infinite.
  const Eigen::LDLT<Eigen::MatrixXd> ldlt(s);
  bool singular = ldlt.info() != Eigen::Success;
  for (int k = 0; k < q; ++k) singular = singular || !(s(k, k) > 0.0);
  h.t2 = singular ? std::numeric_limits<double>::infinity() : batches * diff.dot(ldlt.solve(diff));
  if (!(h.t2 >= 0.0)) h.t2 = std::numeric_limits<double>::infinity();
  h.f = h.t2 * (batches - q) / (q * (batches - 1.0));
  h.p = std::isfinite(h.f) ? boost::math::cdf(boost::math::complement(dist, h.f)) : 0.0;
  return h;
}

int BinOf(const std::vector<double>& inner_edges, double angle) {
  return static_cast<int>(std::upper_bound(inner_edges.begin(), inner_edges.end(), angle) -
                          inner_edges.begin());
}

using testing::FaultName;

// How V(x) of Eq. 8 is formed from the minibatch's per-datum gradients g_i. Eq. 8 adds
// Lambda(x) N(0, (2C - h V) h) to the velocity while the minibatch gradient adds the noise
// -h Lambda(x) (G - grad U); the two together have the variance 2 C h of the exact dynamics
// in the tangent direction t iff t^T V t = t^T Sigma t, Sigma the covariance of G. A
// diagonal V = diag(V_c) gives t^T V t = sum_c t_c^2 V_c.
enum class FisherFrom {
  // The library's form (EmpiricalTangentFisher), used by the passing tests: the variance of
  // Lambda(x) g_i (the per-datum gradients projected onto each circle's tangent line), its
  // trace spread over the d - 1 = 1 tangent directions: every entry of a row is the row's
  // sum of the diagonal. On S^1, Lambda Sigma Lambda = sigma_t^2 t t^T, the diagonal's row
  // sum estimates sigma_t^2 (sum_c t_c^2 = 1), and V_c = sigma_t^2 for both c gives
  // t^T V t = sigma_t^2 for any t: Eq. 8 exactly, with an unbiased estimate of sigma_t^2
  // (the Fisher test below). (On S^{d-1}, d > 2, it is right on average over tangent
  // directions, exact only for an isotropic tangent covariance.)
  kTangentTrace,
  // EmpiricalFisherDiagonal of Lambda(x) g_i, kept diagonal: V_c = sigma_t^2 t_c^2, so
  // t^T V t = sigma_t^2 sum_c t_c^4, less than sigma_t^2 off the axes (v2 near 22 degrees:
  // sum t_c^4 = 0.74), and the sampler runs hot by about h sigma_t^2 (1 - sum t_c^4) / 2C,
  // 4% for v2 at F.2's step. Not asserted (too small for the test's run): measured v2
  // p = 0.49, 0.052, 0.041, 0.010 at seeds 3 to 6 with 1e5 draws, and rejected with 1e6
  // draws (seed 3: F = 5.1, p = 8e-8; 16 s), where kTangentTrace passes (p = 0.011 and 0.16).
  kTangent,
  // EmpiricalFisherDiagonal of the raw g_i in embedding coordinates (the function's
  // documented input). Its diagonal also holds the variance of the normal (radial) part of
  // g_i, which Lambda(x) removes from the dynamics but which is large here (the
  // responsibilities r_ij jump between 0 and 1, so kappa_x r_ij x_i varies by about
  // kappa_x along x_i): at F.2's step h V / 2C is 1.55 (v1) and 1.24 (v2) in the
  // near-radial coordinate at the data-generating point, so 2C - h V is clipped to 0 there,
  // and for v2 (22 degrees off the axis) that coordinate carries 15% of the tangent
  // direction, which so gets far too little noise: the sampler runs cold. Rejected, see
  // FisherDiffusionMatters.
  kEmbedding,
};

// Supplement F.2: L = 10 steps per draw, rho = 0.1, gamma = 5e-4 with h = sqrt(gamma / D)
// and C = rho / h ("epsilon = sqrt(gamma / |D|), C = rho / epsilon"): h = 0.002236,
// C = 44.72, burn-in 15000 draws (150000 steps) as in F.2, then 100000 draws (F.2: 25000)
// so that the test has power against a temperature error of a few per cent.
struct RunSettings {
  GeodesicKind kind = GeodesicKind::kSggmc;
  GeodesicDiffusion diffusion = GeodesicDiffusion::kFisher;
  GeodesicFault fault = GeodesicFault::kNone;
  FisherFrom fisher_from = FisherFrom::kTangentTrace;
  double h = std::sqrt(5e-4 / kData);
  double friction = 0.1 / std::sqrt(5e-4 / kData);
  int steps_per_draw = 10;
  long draws = 100000;
  long burn_steps = 150000;
  int batches = 100;
};

struct RunResult {
  Hotelling marginal[2];
  bool rejected = false;
  double seconds = 0.0;
  double worst_p() const { return std::min(marginal[0].p, marginal[1].p); }
};

RunResult RunMixture(const RunSettings& s, std::uint64_t seed) {
  const auto start = std::chrono::steady_clock::now();
  const Reference& ref = Exact();
  GeodesicSampler sampler(s.kind, s.friction, s.friction, s.diffusion, s.fault);
  const LocalReduction local;
  SphereBlock block;
  block.x = Model().prior_mean;  // start at the prior means
  sampler.Init(block, seed, 0, local);
  std::uint64_t iteration = 0;
  std::vector<int> idx;
  std::vector<Eigen::MatrixXd> per_datum;
  const SphereGradient gradient = [&](const Eigen::MatrixXd& x, Eigen::MatrixXd& grad,
                                      Eigen::MatrixXd* variance) {
    DrawMinibatch(seed, iteration, true, idx);
    MinibatchGradient(x, idx, grad, per_datum);
    if (!variance) return;
    if (s.fisher_from == FisherFrom::kTangentTrace) {
      *variance = EmpiricalTangentFisher(per_datum, x, kData);  // the library's form
      return;
    }
    if (s.fisher_from == FisherFrom::kTangent)
      for (Eigen::MatrixXd& g : per_datum)
        for (int j = 0; j < 2; ++j) g.row(j) -= g.row(j).dot(x.row(j)) * x.row(j);
    *variance = EmpiricalFisherDiagonal(per_datum, kData);
  };
  std::vector<int> bins[2];
  for (auto& b : bins) b.reserve(static_cast<std::size_t>(s.draws));
  const long steps = s.burn_steps + s.draws * s.steps_per_draw;
  for (long t = 0; t < steps; ++t) {
    ++iteration;
    sampler.Step(block, s.h, SphereNoiseKey{seed, 0, iteration}, local, gradient);
    if (t < s.burn_steps || (t - s.burn_steps + 1) % s.steps_per_draw != 0) continue;
    for (int j = 0; j < 2; ++j)
      bins[j].push_back(BinOf(ref.edges[j], std::atan2(block.x(j, 1), block.x(j, 0))));
  }
  RunResult r;
  for (int j = 0; j < 2; ++j) {
    r.marginal[j] = HotellingBins(bins[j], ref.p[j], s.batches, kAlpha / 2);
    r.rejected = r.rejected || r.marginal[j].p < kAlpha / 2;
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << "[mixture] " << sampler.name() << " "
            << (s.diffusion == GeodesicDiffusion::kZero      ? "V=0"
                : s.fisher_from == FisherFrom::kTangent      ? "V=fisher(tangent)"
                : s.fisher_from == FisherFrom::kTangentTrace ? "V=fisher(tangent trace)"
                                                             : "V=fisher(embedding)")
            << " " << FaultName(s.fault) << " h=" << s.h << " C=" << s.friction << ":";
  for (int j = 0; j < 2; ++j) {
    const Hotelling& m = r.marginal[j];
    std::cout << " v" << j + 1 << " F=" << m.f << " (threshold " << m.threshold << ", p=" << m.p
              << ", tau " << m.tau << " draws, ESS " << m.ess << ", batch " << m.batch_size << ");";
  }
  std::cout << (r.rejected ? " REJECTED" : " accepted") << " (" << r.seconds << " s)\n";
  return r;
}

// ---------------------------------------------------------------- the tests

// A run the test accepts must have batches long against its autocorrelation (batch means
// nearly independent), else its acceptance would not mean anything.
void ExpectAccepted(const RunResult& r) {
  EXPECT_FALSE(r.rejected);
  for (const Hotelling& m : r.marginal)
    EXPECT_GE(static_cast<double>(m.batch_size), 20.0 * m.tau) << "batches too short";
}

constexpr std::uint64_t kSeed = 3;

// The reference itself: the bins partition the circle (probabilities sum to 1) and the
// discretisation error (Richardson, see ExactReference) is below a tenth of the smallest
// Monte Carlo standard error of a bin in the runs below (about 1e-3: p about 0.05, ESS
// about 3e4). Measured: error 2.8e-5; label-switched mode mass 6.1e-4.
TEST(GeodesicMixtureSec52, ExactReferenceIsConverged) {
  const Reference& r = Exact();
  for (int j = 0; j < 2; ++j) {
    double sum = 0.0;
    for (double p : r.p[j]) sum += p;
    EXPECT_NEAR(sum, 1.0, 1e-9);
    EXPECT_EQ(r.edges[j].size(), 19u);
  }
  EXPECT_LT(r.grid_error, 1e-4);
}

// The sampler's gradient and the reference's density are the same model: the full-data
// gradient (every index once) projected on the tangent t_j = (-sin theta_j, cos theta_j) is
// minus the angle derivative of the log posterior (central difference, error O(1e-10)).
TEST(GeodesicMixtureSec52, GradientIsMinusTheDerivativeOfTheLogPosterior) {
  const MixtureModel& m = Model();
  std::vector<int> all(kData);
  for (int i = 0; i < kData; ++i) all[i] = i;
  Eigen::MatrixXd grad;
  std::vector<Eigen::MatrixXd> per_datum;
  for (const auto& t : {std::pair<double, double>{-0.13, 0.39}, {0.2, -0.1}, {2.0, -2.5}}) {
    Eigen::MatrixXd v(2, 2);
    v << std::cos(t.first), std::sin(t.first), std::cos(t.second), std::sin(t.second);
    MinibatchGradient(v, all, grad, per_datum);
    const double e = 1e-5;
    const double d1 =
        (m.LogPosterior(t.first + e, t.second) - m.LogPosterior(t.first - e, t.second)) / (2 * e);
    const double d2 =
        (m.LogPosterior(t.first, t.second + e) - m.LogPosterior(t.first, t.second - e)) / (2 * e);
    const double g1 = -grad(0, 0) * std::sin(t.first) + grad(0, 1) * std::cos(t.first);
    const double g2 = -grad(1, 0) * std::sin(t.second) + grad(1, 1) * std::cos(t.second);
    EXPECT_NEAR(g1, -d1, 1e-5 * (1.0 + std::abs(d1)));
    EXPECT_NEAR(g2, -d2, 1e-5 * (1.0 + std::abs(d2)));
  }
}

// Sec. 5.2 with F.2's settings: SGGMC with the empirical Fisher V (FisherFrom::
// kTangentTrace) matches both exact marginals; with the same seed and settings the broken
// variants are rejected by the same test.
// Measured (seed 3): correct v1 F = 0.92, v2 F = 0.54 (threshold 2.88, the upper 5e-4
// quantile of F(19, 81); p = 0.56 and 0.93; tau 3.5 and 4.2 draws, ESS 2.9e4 and 2.4e4).
// Seeds 4 to 7 (not in the test): smallest p 0.069.
//   (b) no projection: F = 4.9e3 and 6.6e7 (p < 1e-110; x leaves the circles).
//   (c) doubled noise: F = 238 and 137 (p < 1e-50; temperature 2 widens both marginals).
// (a) Euler + renormalise is not asserted: the Euler move turns x by atan(h |v| / 2)
// instead of h |v| / 2, a relative difference of (h |v|)^2 / 12 ~ 4e-7 at h = 0.0022 with
// |v| ~ 1 (unit temperature); measured F = 0.91 and 0.55 (p = 0.57, 0.93), the correct
// sampler's to 1%. A step large enough to show it (h |v| ~ 0.5) is far beyond the step this
// posterior (angles' standard deviation about 0.03) admits for the correct sampler, so no
// setting here has the correct sampler pass and (a) fail; the vMF tests of
// geodesic_test.cpp reject (a).
TEST(GeodesicMixtureSec52, SggmcFisherMatchesTheExactMarginals) {
  const RunSettings s;
  ExpectAccepted(RunMixture(s, kSeed));
  for (GeodesicFault f : {GeodesicFault::kNoProjection, GeodesicFault::kDoubledNoise}) {
    RunSettings c = s;
    c.fault = f;
    EXPECT_TRUE(RunMixture(c, kSeed).rejected) << FaultName(f);
  }
}

// Is the Fisher correction doing anything? At F.2's step the minibatch gradient's
// tangential noise is h sigma_t^2 / 2C = 0.12 (v1) and 0.15 (v2) of the injected noise at
// the data-generating point, so without the correction (V = 0, same minibatch) SGGMC runs
// about 13% hot: rejected, measured F = 9.8 and 7.9 (p < 1e-10). The Fisher V formed from
// the raw per-datum gradients in embedding coordinates (FisherFrom::kEmbedding, the
// function's documented input) is rejected too, more strongly: measured F = 10 and 355 (v2
// cold, see FisherFrom). At a quarter of the step (h = 5.6e-4, C = 179, L = 40, 5e4 draws)
// kEmbedding and kTangent pass (F 0.7 and 0.8, 0.7 and 0.9), since h V / 2C < 1
// there and the leaked radial variance is 16 times smaller. With the exact full-batch
// gradient at F.2's step SGGMC passes with V = 0 (F 0.50, 0.33), so the rejections come
// from the gradient noise and its treatment, not from the integrator. (These last figures
// were measured during development, on bins from a grid of 400 cells, 5e4 draws.)
TEST(GeodesicMixtureSec52, FisherDiffusionMatters) {
  RunSettings zero;
  zero.diffusion = GeodesicDiffusion::kZero;
  EXPECT_TRUE(RunMixture(zero, kSeed).rejected) << "V = 0 with minibatch noise";
  RunSettings raw;
  raw.fisher_from = FisherFrom::kEmbedding;
  EXPECT_TRUE(RunMixture(raw, kSeed).rejected) << "V from the raw per-datum gradients";
}

// gSGNHT (supplement Alg. 2) with V = 0: its thermostat absorbs the unknown minibatch noise
// (Ding et al. 2014), so it matches the exact marginals without a diffusion estimate.
// Thermostat starts at C. Measured: F = 1.06 and 0.85 (p = 0.41, 0.65). The doubled-noise
// variant is absorbed the same way by design (geodesic_test.cpp), so only the missing
// projection is used as a control here: rejected.
TEST(GeodesicMixtureSec52, GsgnhtWithZeroDiffusionMatchesTheExactMarginals) {
  RunSettings s;
  s.kind = GeodesicKind::kGsgnht;
  s.diffusion = GeodesicDiffusion::kZero;
  ExpectAccepted(RunMixture(s, kSeed));
  s.fault = GeodesicFault::kNoProjection;
  EXPECT_TRUE(RunMixture(s, kSeed).rejected) << FaultName(s.fault);
}

// ---------------------------------------------------------------- the Fisher estimate

// EmpiricalFisherDiagonal end to end on the Sec. 5.2 model. At a fixed x the minibatch
// gradient G = (D / n) sum_{i in S} g_i over n indices drawn uniformly with replacement is
// a mean of i.i.d. draws of g_I, so exactly
//   Var G = (D^2 / n) sigma^2,  sigma^2 = (1 / D) sum_i (g_i - gbar)^2  (per coordinate),
// and the sample variance (divisor n - 1) of the n draws is unbiased for sigma^2, so
// E V = Var G. Drawn without replacement, Var G = (D^2 / n) sigma^2 (D - n) / (D - 1) (the
// finite-population correction) while E V = (D^2 / n) sigma^2 D / (D - 1): V then
// overestimates by D / (D - n) = 1.11, which this test must detect (the negative control;
// it is why the sampler draws with replacement).
// Simulation: M independent minibatches (own keyed streams, so i.i.d.). The mean of the M
// estimates V_m has standard error sd(V_m) / sqrt(M); the sample variance of the M
// gradients G_m has standard error sqrt((m4 - s^4) / M), m4 the fourth central moment
// (delta method for i.i.d. draws). Each |z| is held to the two-sided Bonferroni quantile
// of kAlpha over all the z that must pass (2 points x 4 coordinates x 3 statistics).
TEST(EmpiricalFisherDiagonal, EstimatesTheMinibatchGradientVarianceOfTheSec52Model) {
  const MixtureModel& model = Model();
  const int replicates = 200000;
  const int accepted_statistics = 2 * 4 * 3;
  const double z_max = boost::math::quantile(
      boost::math::complement(boost::math::normal(), kAlpha / (2.0 * accepted_statistics)));
  Eigen::MatrixXd points[2] = {Eigen::MatrixXd(2, 2), Model().prior_mean};
  for (int j = 0; j < 2; ++j)
    points[0](j, 0) = std::cos(kTrueAngle[j]), points[0](j, 1) = std::sin(kTrueAngle[j]);
  double worst_pass = 0.0, weakest_control = 1e300;
  for (int point = 0; point < 2; ++point) {
    const Eigen::MatrixXd& x = points[point];
    // Exact: all D per-datum gradients.
    Eigen::MatrixXd mean = Eigen::MatrixXd::Zero(2, 2), sigma2 = Eigen::MatrixXd::Zero(2, 2);
    std::vector<Eigen::MatrixXd> g(kData);
    for (int i = 0; i < kData; ++i) model.PerDatumGradient(x, i, g[i]), mean += g[i] / kData;
    for (int i = 0; i < kData; ++i) sigma2.array() += (g[i] - mean).array().square() / kData;
    const double scale = static_cast<double>(kData) * kData / kMinibatch;
    const Eigen::MatrixXd var_with = scale * sigma2;
    const Eigen::MatrixXd var_without = var_with * (kData - kMinibatch) / (kData - 1.0);
    for (bool with_replacement : {true, false}) {
      std::vector<Eigen::MatrixXd> grads(replicates), fisher(replicates);
      std::vector<int> idx;
      std::vector<Eigen::MatrixXd> per_datum;
      for (int m = 0; m < replicates; ++m) {
        DrawMinibatch(1000 + point, static_cast<std::uint64_t>(m), with_replacement, idx);
        MinibatchGradient(x, idx, grads[m], per_datum);
        fisher[m] = EmpiricalFisherDiagonal(per_datum, kData);
      }
      const Eigen::MatrixXd& exact = with_replacement ? var_with : var_without;
      for (int r = 0; r < 2; ++r)
        for (int c = 0; c < 2; ++c) {
          std::vector<double> gv(replicates), fv(replicates);
          for (int m = 0; m < replicates; ++m) gv[m] = grads[m](r, c), fv[m] = fisher[m](r, c);
          const mc::Estimate f = mc::IndependentMean(fv);
          double gm = 0.0, s2 = 0.0, m4 = 0.0;
          for (double v : gv) gm += v / replicates;
          for (double v : gv) {
            const double d2 = (v - gm) * (v - gm);
            s2 += d2 / (replicates - 1.0);
            m4 += d2 * d2 / replicates;
          }
          const double s2_se = std::sqrt((m4 - s2 * s2) / replicates);
          const double z_var = (s2 - exact(r, c)) / s2_se;  // the simulation against Var G
          const double z_fisher = (f.mean - exact(r, c)) / f.se;
          std::cout << "[fisher] point " << point << (with_replacement ? " with" : " without")
                    << " replacement, coordinate (" << r << "," << c << "): Var G exact "
                    << exact(r, c) << ", simulated " << s2 << " (z " << z_var << "); E V " << f.mean
                    << " +- " << f.se << " (z " << z_fisher << ")\n";
          EXPECT_LT(std::abs(z_var), z_max);
          worst_pass = std::max(worst_pass, std::abs(z_var));
          if (with_replacement) {
            EXPECT_LT(std::abs(z_fisher), z_max);
            worst_pass = std::max(worst_pass, std::abs(z_fisher));
          } else {
            EXPECT_GT(z_fisher, z_max) << "V must overestimate without replacement";
            weakest_control = std::min(weakest_control, z_fisher);
          }
        }
    }
  }
  std::cout << "[fisher] threshold |z| < " << z_max << "; largest |z| that must pass " << worst_pass
            << "; smallest z of the without-replacement control " << weakest_control << "\n";
}
}  // namespace
}  // namespace carousel
