// Exact blocked Gibbs sampler for BPMF with biases and scalar Gamma precisions
// (Salakhutdinov & Mnih 2008; Gamma-precision simplification of Ahn et al. 2015).
// See bpmf_gibbs.hpp.
#include "carousel/model/bpmf/bpmf_gibbs.hpp"

#include <Eigen/Cholesky>
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "carousel/util/error.hpp"

namespace carousel {
namespace {

constexpr double kInitSd = 0.1;  // sd of the initial factors

// Ratings grouped by one side: entries start[i] .. start[i+1]-1 belong to row i.
struct Csr {
  std::vector<std::size_t> start;
  std::vector<std::uint32_t> other;
  std::vector<float> value;

  RowRatings Row(std::size_t i) const {
    return RowRatings{other.data() + start[i], value.data() + start[i], start[i + 1] - start[i]};
  }
};

// Counting sort by `by_row ? row : col`; within a row the training order is kept.
Csr BuildCsr(const RatingMatrix& m, bool by_row) {
  const std::size_t n = by_row ? m.rows : m.cols;
  Csr csr;
  csr.start.assign(n + 1, 0);
  for (const Rating& r : m.entries) ++csr.start[(by_row ? r.row : r.col) + 1];
  for (std::size_t i = 0; i < n; ++i) csr.start[i + 1] += csr.start[i];
  csr.other.resize(m.entries.size());
  csr.value.resize(m.entries.size());
  std::vector<std::size_t> fill(csr.start.begin(), csr.start.end() - 1);
  for (const Rating& r : m.entries) {
    const std::size_t at = fill[by_row ? r.row : r.col]++;
    csr.other[at] = by_row ? r.col : r.row;
    csr.value[at] = r.value;
  }
  return csr;
}

void CheckOptions(const GibbsOptions& o) {
  if (o.rank < 1) throw SettingError("rank", "must be at least 1, got " + std::to_string(o.rank));
  if (o.burn_in < 0) throw SettingError("burn-in", "must not be negative");
  if (o.sweeps <= o.burn_in) {
    throw SettingError("sweeps", "must be more than burn-in (" + std::to_string(o.burn_in) +
                                     "), got " + std::to_string(o.sweeps));
  }
  if (!(o.min_rating <= o.max_rating)) {
    throw SettingError("min-rating", "must not exceed max-rating");
  }
  const BpmfPriors& p = o.priors;
  if (!(p.a0 > 0.0) || !(p.b0 > 0.0) || !std::isfinite(p.a0) || !std::isfinite(p.b0)) {
    throw SettingError("prior", "a0 and b0 must be positive and finite");
  }
  const BpmfHyper& h = p.initial;
  for (double v : {h.tau, h.lambda_w, h.lambda_h, h.lambda_b, h.lambda_c}) {
    if (!(v > 0.0) || !std::isfinite(v)) {
      throw SettingError("hyper", "initial precisions must be positive and finite");
    }
  }
}

void CheckRatings(const std::vector<Rating>& ratings, std::uint32_t rows, std::uint32_t cols,
                  const char* what) {
  for (std::size_t t = 0; t < ratings.size(); ++t) {
    const Rating& r = ratings[t];
    if (r.row >= rows || r.col >= cols || !std::isfinite(r.value)) {
      throw InputError(what, "rating " + std::to_string(t) + " (row " + std::to_string(r.row) +
                                 ", col " + std::to_string(r.col) + ") lies outside the " +
                                 std::to_string(rows) + " x " + std::to_string(cols) +
                                 " matrix or is not finite");
    }
  }
}

}  // namespace

Eigen::VectorXd SampleRowConditional(const Eigen::Ref<const Eigen::MatrixXd>& other_factors,
                                     const Eigen::Ref<const Eigen::VectorXd>& other_bias,
                                     const RowRatings& row, double offset, double tau,
                                     double lambda_factor, double lambda_bias, bool use_bias,
                                     KeyedStream& rng) {
  const Eigen::Index k = other_factors.rows();
  const Eigen::Index d = use_bias ? k + 1 : k;
  const auto n = static_cast<Eigen::Index>(row.count);
  // Gather z_j = [h_j; 1] as columns and the residual targets, then one rank-n update.
  thread_local Eigen::MatrixXd z;
  thread_local Eigen::VectorXd y;
  if (z.rows() != d || z.cols() < n) z.resize(d, std::max(n, z.cols()));
  if (y.size() < n) y.resize(n);
  for (Eigen::Index t = 0; t < n; ++t) {
    const std::uint32_t j = row.other[t];
    z.col(t).head(k) = other_factors.col(j);
    double target = static_cast<double>(row.value[t]) - offset;
    if (use_bias) {
      z(k, t) = 1.0;
      target -= other_bias(j);
    }
    y(t) = target;
  }
  Eigen::MatrixXd precision = Eigen::MatrixXd::Zero(d, d);
  precision.diagonal().head(k).setConstant(lambda_factor);
  if (use_bias) precision(k, k) = lambda_bias;
  precision.selfadjointView<Eigen::Lower>().rankUpdate(z.leftCols(n), tau);
  const Eigen::VectorXd rhs = tau * (z.leftCols(n) * y.head(n));
  const Eigen::LLT<Eigen::MatrixXd> llt(precision);  // reads the lower triangle
  if (llt.info() != Eigen::Success) {
    throw Error(ExitCode::kDiverged, "Gibbs: row conditional precision is not positive definite");
  }
  Eigen::VectorXd noise(d);
  for (Eigen::Index t = 0; t < d; ++t) noise(t) = rng.normal();
  // P = L L^T: mean P^-1 rhs, plus L^-T e which has covariance P^-1.
  return llt.solve(rhs) + llt.matrixU().solve(noise);
}

GibbsResult RunBpmfGibbs(const RatingMatrix& train, const std::vector<Rating>& test,
                         const GibbsOptions& o) {
  CheckOptions(o);
  if (train.entries.empty()) throw InputError("training ratings", "no ratings");
  CheckRatings(train.entries, train.rows, train.cols, "training ratings");
  CheckRatings(test, train.rows, train.cols, "test ratings");

  const Eigen::Index k = o.rank;
  const std::uint32_t rows = train.rows, cols = train.cols;
  const bool use_bias = o.priors.use_bias;
  const double n_train = static_cast<double>(train.entries.size());
  double sum = 0.0;
  for (const Rating& r : train.entries) sum += r.value;
  const double mu = sum / n_train;

  const Csr by_row = BuildCsr(train, true);
  const Csr by_col = BuildCsr(train, false);

  Eigen::MatrixXd w(k, rows), h(k, cols);  // column i = w_i, column j = h_j
  Eigen::VectorXd b = Eigen::VectorXd::Zero(rows), c = Eigen::VectorXd::Zero(cols);
  for (std::uint32_t i = 0; i < rows; ++i) {
    KeyedStream rng(o.seed, Purpose::kInitRow, i, 0);
    for (Eigen::Index t = 0; t < k; ++t) w(t, i) = kInitSd * rng.normal();
  }
  for (std::uint32_t j = 0; j < cols; ++j) {
    KeyedStream rng(o.seed, Purpose::kInitCol, j, 0);
    for (Eigen::Index t = 0; t < k; ++t) h(t, j) = kInitSd * rng.normal();
  }

  auto predict = [&](std::uint32_t i, std::uint32_t j) {
    return mu + b(i) + c(j) + w.col(i).dot(h.col(j));
  };

  GibbsResult result;
  result.mu = mu;
  result.pred_mean.assign(test.size(), 0.0);
  std::vector<double> m2(test.size(), 0.0);  // Welford sums of squared deviations
  result.rmse_sample.reserve(o.sweeps);
  result.rmse_mean.reserve(o.sweeps);
  BpmfHyper hyper = o.priors.initial;
  const double a0 = o.priors.a0, b0 = o.priors.b0;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::uint64_t kept = 0;

  for (int sweep = 0; sweep < o.sweeps; ++sweep) {
    const auto s = static_cast<std::uint64_t>(sweep);
    // Sweep 0 keeps priors.initial: see the header on why the scan starts with the factors.
    if (o.priors.sample_hyper && sweep > 0) {
      double sse = 0.0;
      for (const Rating& r : train.entries) {
        const double e = r.value - predict(r.row, r.col);
        sse += e * e;
      }
      KeyedStream rng(o.seed, Purpose::kHyper, 0, s);
      hyper.tau = rng.gamma(a0 + 0.5 * n_train) / (b0 + 0.5 * sse);
      hyper.lambda_w = rng.gamma(a0 + 0.5 * static_cast<double>(rows) * static_cast<double>(k)) /
                       (b0 + 0.5 * w.squaredNorm());
      hyper.lambda_h = rng.gamma(a0 + 0.5 * static_cast<double>(cols) * static_cast<double>(k)) /
                       (b0 + 0.5 * h.squaredNorm());
      if (use_bias) {
        hyper.lambda_b = rng.gamma(a0 + 0.5 * rows) / (b0 + 0.5 * b.squaredNorm());
        hyper.lambda_c = rng.gamma(a0 + 0.5 * cols) / (b0 + 0.5 * c.squaredNorm());
      }
    }
    for (std::uint32_t i = 0; i < rows; ++i) {
      KeyedStream rng(o.seed, Purpose::kGibbs, i, s);
      const Eigen::VectorXd x = SampleRowConditional(h, c, by_row.Row(i), mu, hyper.tau,
                                                     hyper.lambda_w, hyper.lambda_b, use_bias, rng);
      w.col(i) = x.head(k);
      if (use_bias) b(i) = x(k);
    }
    for (std::uint32_t j = 0; j < cols; ++j) {
      KeyedStream rng(o.seed, Purpose::kGibbs, static_cast<std::uint64_t>(rows) + j, s);
      const Eigen::VectorXd x = SampleRowConditional(w, b, by_col.Row(j), mu, hyper.tau,
                                                     hyper.lambda_h, hyper.lambda_c, use_bias, rng);
      h.col(j) = x.head(k);
      if (use_bias) c(j) = x(k);
    }

    const bool keep = sweep >= o.burn_in;
    if (keep) ++kept;
    double sse_sample = 0.0, sse_mean = 0.0;
    for (std::size_t t = 0; t < test.size(); ++t) {
      const Rating& r = test[t];
      const double p = std::clamp(predict(r.row, r.col), static_cast<double>(o.min_rating),
                                  static_cast<double>(o.max_rating));
      sse_sample += (p - r.value) * (p - r.value);
      if (keep) {
        const double delta = p - result.pred_mean[t];
        result.pred_mean[t] += delta / static_cast<double>(kept);
        m2[t] += delta * (p - result.pred_mean[t]);
        const double e = result.pred_mean[t] - r.value;
        sse_mean += e * e;
      }
    }
    const double n_test = static_cast<double>(test.size());
    result.rmse_sample.push_back(test.empty() ? nan : std::sqrt(sse_sample / n_test));
    result.rmse_mean.push_back(keep && !test.empty() ? std::sqrt(sse_mean / n_test) : nan);
    if (!std::isfinite(hyper.tau) || !w.allFinite() || !h.allFinite()) {
      throw Error(ExitCode::kDiverged, "Gibbs: non-finite state at sweep " + std::to_string(sweep));
    }
  }
  result.pred_var.resize(test.size());
  for (std::size_t t = 0; t < test.size(); ++t) {
    result.pred_var[t] = m2[t] / static_cast<double>(kept);
  }
  result.last_hyper = hyper;
  return result;
}

}  // namespace carousel
