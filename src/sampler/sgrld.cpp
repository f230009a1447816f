#include "carousel/sampler/sgrld.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <utility>

#include "carousel/sampler/row_drift.hpp"
#include "carousel/util/error.hpp"

namespace carousel {

Sgrld::Sgrld(std::shared_ptr<const DiagonalMetric> metric, bool ou)
    : metric_(std::move(metric)), ou_(ou) {
  if (!metric_) throw SettingError("metric", "sgrld needs a metric");
}

float Sgrld::NoiseVariance(double step) const {
  if (ou_ && !(step < 1.0))
    throw SettingError("step",
                       "must be below 1 with --transition ou (now " + std::to_string(step) + ")");
  const float eps = static_cast<float>(step);
  return ou_ ? eps * (2.0f - eps) : 2.0f * eps;
}

void Sgrld::Step(BlockState& block, const BlockGradient& gradient, double step,
                 const NoiseKey& noise) const {
  const float noise_variance = NoiseVariance(step);
  Matrix& g_inv = g_inv_;  // D = G^-1 and Gamma at theta_t
  Matrix& gamma = gamma_;
  metric_->Evaluate(block.theta, gradient, g_inv, gamma);
  const float eps = static_cast<float>(step);
  Matrix& theta = block.theta;
  ForEachRowWithNoise(noise, theta.rows(), theta.cols(), [&](Eigen::Index r, const float* z) {
    for (Eigen::Index c = 0; c < theta.cols(); ++c) {
      const float d = g_inv(r, c);
      theta(r, c) += eps * (d * gradient.LogPosterior(theta, r, c) + gamma(r, c)) +
                     std::sqrt(noise_variance * d) * z[c];
    }
  });
}

// Step with Gamma = 0 and G^-1 row by row (metric constant in theta).
void Sgrld::StepRows(BlockState& block, const BlockGradient& gradient, double step,
                     const NoiseKey& noise, const std::vector<std::uint32_t>& rows) const {
  const float noise_variance = NoiseVariance(step);
  const float eps = static_cast<float>(step);
  Matrix& theta = block.theta;
  Eigen::VectorXf d(theta.cols());
  ForEachListedRowWithNoise(noise, rows, theta.cols(), [&](Eigen::Index r, const float* z) {
    metric_->InverseOfRow(gradient, r, d.data());
    for (Eigen::Index c = 0; c < theta.cols(); ++c)
      theta(r, c) += eps * (d[c] * gradient.LogPosterior(theta, r, c)) +
                     std::sqrt(noise_variance * d[c]) * z[c];
  });
}

namespace {

// x[c] *= a[c]^j (c < n), a^j by repeated squaring: j is a span of iterations, a few dozen at
// most between flushes, so this is a handful of multiplications per element.
void ScaleByPower(float* x, float* a, std::uint64_t j, Eigen::Index n) {
  if (j == 0) return;
  for (std::uint64_t bits = j;; bits >>= 1) {
    if (bits & 1)
      for (Eigen::Index c = 0; c < n; ++c) x[c] *= a[c];
    if (bits <= 1) return;
    for (Eigen::Index c = 0; c < n; ++c) a[c] *= a[c];
  }
}

}  // namespace

// A row with data: Step's drift eps G^-1 (scale lik - lambda theta), without its noise; the
// clock counts the step (clock = the last flush + the steps drifted since). Called once per
// row a tile touches (row_drift.hpp).
bool Sgrld::DriftRow(BlockState& block, const BlockGradient& gradient, double step, Eigen::Index r,
                     const float* lik, double* moment_change) const {
  const RowDriftTerms terms = DriftTerms(gradient, step);
  if (row_scratch_.size() != terms.columns) row_scratch_.resize(terms.columns);
  float* d = row_scratch_.data();
  metric_->InverseOfRow(gradient, r, d);
  const float weight = gradient.row_data_count ? (*gradient.row_data_count)[r] : 0.0f;
  const bool finite = DriftRowElements(
      terms, [d](Eigen::Index c) { return d[c]; }, lik, weight, block.theta.row(r).data(),
      moment_change);
  ++block.row_clock[static_cast<std::size_t>(r)];
  return finite;
}

RowDriftTerms Sgrld::DriftTerms(const BlockGradient& gradient, double step) const {
  if (ou_ && !(step < 1.0)) NoiseVariance(step);  // throws: the step's bounds
  RowDriftTerms terms;
  terms.eps = static_cast<float>(step);
  terms.scale = static_cast<float>(gradient.scale);
  terms.prior = gradient.prior_precision.data();
  terms.columns = gradient.prior_precision.size();
  return terms;
}

std::optional<RowDriftTerms> Sgrld::MatchedDriftTerms(const BlockGradient& gradient,
                                                      double step) const {
  if (!defers_noise() || !metric_->precision_is_prior_plus_count_information() ||
      !gradient.row_data_count || !gradient.information_per_datum ||
      gradient.information_per_datum->size() != gradient.prior_precision.size())
    return std::nullopt;
  RowDriftTerms terms = DriftTerms(gradient, step);
  terms.information = gradient.information_per_datum->data();
  return terms;
}

bool Sgrld::DriftRows(BlockState& block, const BlockGradient& gradient, double step,
                      const std::vector<std::uint32_t>& rows, double* moment_change) const {
  bool finite = true;
  if (const std::optional<RowDriftTerms> matched = MatchedDriftTerms(gradient, step)) {
    for (std::uint32_t r : rows)
      finite = MatchedRowDrift(*matched, *gradient.row_data_count, block, r,
                               gradient.lik_sum.row(r).data(), moment_change) &&
               finite;
    return finite;
  }
  for (std::uint32_t r : rows)
    finite =
        DriftRow(block, gradient, step, r, gradient.lik_sum.row(r).data(), moment_change) && finite;
  return finite;
}

// Every row: the prior-only drift of the steps it sat out since the last flush (those the
// clock has not counted: theta <- a^j theta, a = 1 - eps G^-1 lambda, PriorOnlyStep's map
// without its noise), then the noise of the span's noise_steps steps at once. One step's
// noise is v G^-1 (v = eps (2 - eps) or 2 eps); a Gaussian whose precision G matches
// contracts by q = 1 - eps per step whether or not the row had data in it, so the span's
// noise is v G^-1 sum_{i<k} q^2i, and the row's law at the flush is that of k steps with
// their noise drawn step by step (exactly, for the matched Gaussian:
// tests/sampler/deferred_noise_test.cpp).
void Sgrld::FlushRows(BlockState& block, const BlockGradient& prior, double step,
                      const NoiseKey& key, std::uint64_t now, std::uint64_t noise_steps) const {
  const double v = NoiseVariance(step);
  const double q2 = (1.0 - step) * (1.0 - step);
  const double k = static_cast<double>(noise_steps);
  // sum_{i<k} q^2i = (1 - q^2k) / (1 - q^2), with expm1/log1p for q next to 1
  const double span = q2 == 1.0   ? k
                      : q2 == 0.0 ? (noise_steps > 0 ? 1.0 : 0.0)
                                  : std::expm1(k * std::log(q2)) / std::expm1(std::log(q2));
  const auto variance = static_cast<float>(v * span);
  const float eps = static_cast<float>(step);
  Matrix& theta = block.theta;
  std::vector<std::uint64_t>& clock = block.row_clock;
  if (clock.size() != static_cast<std::size_t>(theta.rows()))
    throw Error(ExitCode::kInternal, "FlushRows: a block without row clocks");
  if (key.iteration != now)
    throw Error(ExitCode::kInternal, "FlushRows: the key is not the flush's iteration");
  const Eigen::Index n = theta.cols();
  const float* lambda = prior.prior_precision.data();
  Eigen::VectorXf d(n), a(n);
  const auto contract = [&](Eigen::Index r) {
    metric_->InverseOfRow(prior, r, d.data());
    if (const std::uint64_t j = now - clock[static_cast<std::size_t>(r)]; j > 0) {
      for (Eigen::Index c = 0; c < n; ++c) a[c] = 1.0f - eps * d[c] * lambda[c];
      ScaleByPower(theta.row(r).data(), a.data(), j, n);
    }
    clock[static_cast<std::size_t>(r)] = now;
  };
  if (noise_steps == 0) {
    for (Eigen::Index r = 0; r < theta.rows(); ++r) contract(r);
    return;
  }
  ForEachRowWithNoise(key, theta.rows(), n, [&](Eigen::Index r, const float* z) {
    contract(r);
    float* x = theta.row(r).data();
    for (Eigen::Index c = 0; c < n; ++c) x[c] += std::sqrt(variance * d[c]) * z[c];
  });
}

void Sgrld::PriorOnlyStep(const BlockGradient& prior, double step, Eigen::Index r,
                          float* a_minus_one, float* variance) const {
  const float noise_variance = NoiseVariance(step);
  const float eps = static_cast<float>(step);
  metric_->InverseOfRow(prior, r, variance);  // G^-1, scaled below
  for (Eigen::Index c = 0; c < prior.prior_precision.size(); ++c) {
    a_minus_one[c] = -eps * variance[c] * prior.prior_precision[c];
    variance[c] *= noise_variance;
  }
}

}  // namespace carousel
