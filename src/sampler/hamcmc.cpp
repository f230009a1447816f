#include "carousel/sampler/hamcmc.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "carousel/sampler/diagonal_metric.hpp"
#include "carousel/sampler/lbfgs_coefficients.hpp"
#include "carousel/util/error.hpp"

namespace carousel {

Hamcmc::Hamcmc(int memory, double trust, double initial_scale,
               std::shared_ptr<const DiagonalMetric> initial_metric, bool fisher_at_newest)
    : memory_(memory),
      trust_(trust),
      initial_scale_(initial_scale),
      initial_metric_(std::move(initial_metric)),
      fisher_at_newest_(fisher_at_newest) {
  if (memory < 2 || memory > lbfgs::kMaxPairs + 1)
    throw SettingError("memory", "HAMCMC needs 2 <= M <= " + std::to_string(lbfgs::kMaxPairs + 1) +
                                     ", got " + std::to_string(memory));
  if (!(trust >= 0.0) || !std::isfinite(trust))
    throw SettingError("trust", "must be finite and >= 0");
  if (!(initial_scale > 0.0) || !std::isfinite(initial_scale))
    throw SettingError("initial-scale", "must be finite and > 0");
  if (fisher_at_newest && !(trust > 0.0))
    throw SettingError("trust", "the Fisher H0 needs lambda > 0 (it keeps H0 finite)");
  if (fisher_at_newest && !initial_metric_)
    throw SettingError("initial-metric", "fisher: needs a metric for the first iteration");
}

void Hamcmc::InitAux(BlockState& block) const {
  const Eigen::Index n = block.theta.rows(), d = block.theta.cols();
  block.aux.assign(static_cast<std::size_t>(aux_count()), Matrix::Zero(n, d));
  for (int i = 0; i < memory_ - 1; ++i) block.aux[sample_slot(i)] = block.theta;
}

void Hamcmc::Step(BlockState&, const BlockGradient&, double, const NoiseKey&) const {
  throw Error(ExitCode::kInternal,
              "hamcmc: Step() called; HAMCMC runs only through PreSums/StepWithSums/AfterStep");
}

int Hamcmc::pre_sum_count() const {
  return lbfgs::PackedSize(lbfgs::Basis{pairs()}.size());
}

namespace {

// Elements per chunk of the Gram and step loops: the basis values of a chunk stay in L1.
constexpr int kChunk = 128;

// sum_k a[k] b[k] with 8 interleaved partial sums added in a fixed order: vectorizable
// without -ffast-math, and the same bits on every rank (the order depends on n only).
double Dot(const double* a, const double* b, int n) {
  double part[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int k = 0;
  for (; k + 8 <= n; k += 8)
    for (int j = 0; j < 8; ++j) part[j] += a[k + j] * b[k + j];
  for (; k < n; ++k) part[k % 8] += a[k] * b[k];
  return ((part[0] + part[1]) + (part[2] + part[3])) + ((part[4] + part[5]) + (part[6] + part[7]));
}

}  // namespace

// z, g = grad U~(theta_{t-M}) and the weights w of the block, once per iteration.
Hamcmc::Workspace& Hamcmc::Prepare(const BlockState& block, const BlockGradient& gradient,
                                   const NoiseKey& noise) const {
  Workspace* ws = nullptr;
  for (Workspace& candidate : workspaces_)
    if (candidate.block == &block || (!ws && !candidate.block)) ws = &candidate;
  if (!ws) ws = &workspaces_.emplace_back();
  ws->block = &block;
  ws->key = noise;
  const Matrix& base = block.aux[sample_slot(0)];  // theta_{t-M}, the gradient point
  const Eigen::Index rows = base.rows(), cols = base.cols();
  ws->z.resize(rows, cols);
  ws->g.resize(rows, cols);
  for (Eigen::Index r = 0; r < rows; ++r) {
    KeyedStream stream = noise.Row(r);
    for (Eigen::Index c = 0; c < cols; ++c) {
      ws->z(r, c) = static_cast<float>(stream.normal());
      ws->g(r, c) = -gradient.LogPosterior(base, r, c);
    }
  }
  if (fisher_at_newest_ && steps_ > 0) {
    // aux[fisher_slot()] was written by AfterStep at theta_{t-1}, not at base (Gamma = 0).
    ws->w = block.aux[fisher_slot()].array().sqrt().inverse();
  } else if (initial_metric_) {
    initial_metric_->Evaluate(base, gradient, ws->g_inv, ws->d_g_inv);
    // H^0 must be constant in theta (Gamma = 0) and positive definite.
    if (!(ws->d_g_inv.array() == 0.0f).all())
      throw SettingError(
          "initial-metric",
          "HAMCMC needs an initial metric that does not depend on the parameters; '" +
              initial_metric_->name() + "' does");
    if (!(ws->g_inv.array() > 0.0f).all() || !ws->g_inv.allFinite())
      throw Error(ExitCode::kInternal, "hamcmc: initial metric '" + initial_metric_->name() +
                                           "' is not positive and finite");
    ws->w = ws->g_inv.array().sqrt();
  }
  return *ws;
}

// The block's part of the Gram matrix of (W^-1 s_1..W^-1 s_{M-1}, W y_1..W y_{M-1}, W g, z).
void Hamcmc::PreSums(const BlockState& block, const BlockGradient& gradient, const NoiseKey& noise,
                     double* out) const {
  const lbfgs::Basis basis{pairs()};
  const int n = basis.size();
  const int p = pairs();
  std::fill(out, out + lbfgs::PackedSize(n), 0.0);
  const Workspace& ws = Prepare(block, gradient, noise);
  const bool weighted = initial_metric_ != nullptr;
  const auto size = static_cast<int>(block.theta.size());
  double v[lbfgs::kMaxBasis][kChunk];  // basis values of one chunk, in phi = W^-1 theta
  for (int k0 = 0; k0 < size; k0 += kChunk) {
    const int m = std::min(kChunk, size - k0);
    for (int i = 0; i < p; ++i) {
      const float* s = block.aux[s_slot(i)].data() + k0;
      const float* y = block.aux[y_slot(i)].data() + k0;
      for (int k = 0; k < m; ++k) v[basis.s(i)][k] = s[k];
      for (int k = 0; k < m; ++k) v[basis.y(i)][k] = y[k];
    }
    for (int k = 0; k < m; ++k) v[basis.g()][k] = ws.g.data()[k0 + k];
    for (int k = 0; k < m; ++k) v[basis.z()][k] = ws.z.data()[k0 + k];
    if (weighted) {
      const float* w = ws.w.data() + k0;
      for (int i = 0; i < p; ++i)
        for (int k = 0; k < m; ++k) {
          v[basis.s(i)][k] /= w[k];
          v[basis.y(i)][k] *= w[k];
        }
      for (int k = 0; k < m; ++k) v[basis.g()][k] *= w[k];
    }
    int idx = 0;
    for (int a = 0; a < n; ++a)
      for (int b = a; b < n; ++b) out[idx++] += Dot(v[a], v[b], m);
  }
}

void Hamcmc::StepWithSums(BlockState& block, const BlockGradient& gradient, double step,
                          const NoiseKey& noise, const double* pre_sums) const {
  const lbfgs::Basis basis{pairs()};
  const int n = basis.size();
  const int p = pairs();
  const lbfgs::Gram gram = lbfgs::UnpackGram(pre_sums, n);
  // Warm-up (t <= 2M): no pairs, H = gamma W^2. Afterwards the M-1 pairs in memory, less
  // those without positive curvature (decided from the summed Gram matrix).
  const lbfgs::CoefficientSpace space(
      gram, basis, initial_scale_,
      warming_up() ? std::vector<int>{} : lbfgs::CurvaturePairs(gram, basis));
  const lbfgs::Coef xi = space.InverseHessianTimes(basis.Unit(basis.g()));
  const lbfgs::Coef eta = space.SqrtTimes(basis.Unit(basis.z()));
  // phi_t - phi_{t-M} = -eps xi + sqrt(2 eps) eta, as coefficients of the basis (Eq. 10).
  const lbfgs::Coef coef = -step * xi + std::sqrt(2.0 * step) * eta;

  // The workspace of PreSums (same block, same iteration); redrawn if it is not there.
  Workspace* ws = nullptr;
  for (Workspace& candidate : workspaces_)
    if (candidate.block == &block && candidate.key.seed == noise.seed &&
        candidate.key.purpose == noise.purpose && candidate.key.iteration == noise.iteration &&
        candidate.key.global_ids == noise.global_ids)
      ws = &candidate;
  if (!ws) ws = &Prepare(block, gradient, noise);
  const bool weighted = initial_metric_ != nullptr;

  Matrix& base = block.aux[sample_slot(0)];
  Matrix& s_out = block.aux[s_slot(0)];  // the oldest pair leaves memory after this step
  Matrix& y_out = block.aux[y_slot(0)];
  const auto size = static_cast<int>(block.theta.size());
  // theta_t - theta_{t-M} = W (sum_a coef_a v~_a): the s part is W W^-1 s = s, the y and g
  // parts are weighted by w^2, the noise by w.
  double delta[kChunk], weighted_part[kChunk];
  for (int k0 = 0; k0 < size; k0 += kChunk) {
    const int m = std::min(kChunk, size - k0);
    const float* g = ws->g.data() + k0;
    const float* z = ws->z.data() + k0;
    for (int k = 0; k < m; ++k) weighted_part[k] = coef(basis.g()) * g[k];
    for (int i = 0; i < p; ++i) {
      const float* y = block.aux[y_slot(i)].data() + k0;
      const double c = coef(basis.y(i));
      for (int k = 0; k < m; ++k) weighted_part[k] += c * y[k];
    }
    for (int k = 0; k < m; ++k) delta[k] = 0.0;
    for (int i = 0; i < p; ++i) {
      const float* s = block.aux[s_slot(i)].data() + k0;
      const double c = coef(basis.s(i));
      for (int k = 0; k < m; ++k) delta[k] += c * s[k];
    }
    const double cz = coef(basis.z());
    if (weighted) {
      const float* w = ws->w.data() + k0;
      for (int k = 0; k < m; ++k) {
        const double wk = w[k];
        delta[k] += wk * (wk * weighted_part[k] + cz * z[k]);
      }
    } else {
      for (int k = 0; k < m; ++k) delta[k] += weighted_part[k] + cz * z[k];
    }
    float* b = base.data() + k0;
    float* s_new = s_out.data() + k0;
    float* y_new = y_out.data() + k0;
    for (int k = 0; k < m; ++k) {
      const float theta_new = static_cast<float>(b[k] + delta[k]);
      s_new[k] = theta_new - b[k];  // s_t = theta_t - theta_{t-M}
      y_new[k] = g[k];              // completed to y_t by AfterStep
      b[k] = theta_new;
    }
  }
  ws->block = nullptr;  // free for the next block
  // Shift the history by one. Samples: aux[0] now holds theta_t; swapping it with theta
  // makes theta = theta_t and aux[0] = theta_{t-1}, and rotating aux[0..M-2] left puts
  // theta_{t-M+1} first and theta_{t-1} last. Pairs: the slot just written (oldest) becomes
  // the newest, so memory holds tau = t-M+2 .. t for iteration t+1. O(1) swaps, no copies.
  block.theta.swap(block.aux[sample_slot(0)]);
  const auto aux = block.aux.begin();
  std::rotate(aux + sample_slot(0), aux + sample_slot(0) + 1, aux + sample_slot(0) + p);
  std::rotate(aux + s_slot(0), aux + s_slot(0) + 1, aux + s_slot(0) + p);
  std::rotate(aux + y_slot(0), aux + y_slot(0) + 1, aux + y_slot(0) + p);
}

// y_t = grad U~_Omega_t(theta_t) - grad U~_Omega_t(theta_{t-M}) + lambda s_t (Alg. 1, line 8).
void Hamcmc::AfterStep(BlockState& block, const BlockGradient& at_new_point) const {
  const Matrix& s = block.aux[s_slot(pairs() - 1)];
  Matrix& y = block.aux[y_slot(pairs() - 1)];  // holds grad U~(theta_{t-M}) until now
  const float trust = static_cast<float>(trust_);
  for (Eigen::Index r = 0; r < block.theta.rows(); ++r)
    for (Eigen::Index c = 0; c < block.theta.cols(); ++c)
      y(r, c) = (-at_new_point.LogPosterior(block.theta, r, c) - y(r, c)) + trust * s(r, c);
  StoreFisher(block, at_new_point);
}

// After StepWithSums theta holds theta_t and the newest s slot theta_t - theta_{t-M};
// theta_{t-M} itself is gone (its slot became theta_t, then history). Mirroring replaces
// theta_t by |theta_t|, so s_t becomes |theta_t| - theta_{t-M} = s_t + (|theta_t| - theta_t).
void Hamcmc::MirrorAtZero(BlockState& block) const {
  Matrix& s = block.aux[s_slot(pairs() - 1)];
  for (Eigen::Index i = 0; i < block.theta.size(); ++i) {
    float& theta = block.theta.data()[i];
    if (theta < 0.0f) {
      s.data()[i] -= 2.0f * theta;
      theta = -theta;
    }
  }
}

// As MirrorAtZero: s_t = theta_t - theta_{t-M} follows theta_t to the held values.
void Hamcmc::HoldLeadingColumns(BlockState& block, const Matrix& values) const {
  Matrix& s = block.aux[s_slot(pairs() - 1)];
  const Eigen::Index k = values.cols();
  s.leftCols(k) += values - block.theta.leftCols(k);
  block.theta.leftCols(k) = values;
}

// y_t = grad U~_S(theta_t) - grad U~_S(theta_{t-M}) + lambda s_t on the sub-minibatch S: the
// prior parts differ by prior (.) (theta_t - theta_{t-M}) = prior (.) s_t, so theta_{t-M}
// (already overwritten) is not needed.
void Hamcmc::AfterStep(BlockState& block, const BlockGradient& at_new_point,
                       const BlockGradient& at_gradient_point) const {
  if (at_new_point.scale != at_gradient_point.scale)
    throw Error(ExitCode::kInternal, "hamcmc: curvature gradients with different scales");
  const Matrix& s = block.aux[s_slot(pairs() - 1)];
  Matrix& y = block.aux[y_slot(pairs() - 1)];
  const auto scale = static_cast<float>(at_new_point.scale);
  const float trust = static_cast<float>(trust_);
  for (Eigen::Index r = 0; r < block.theta.rows(); ++r)
    for (Eigen::Index c = 0; c < block.theta.cols(); ++c)
      y(r, c) = -scale * (at_new_point.lik_sum(r, c) - at_gradient_point.lik_sum(r, c)) +
                (at_new_point.prior_precision[c] + trust) * s(r, c);
  StoreFisher(block, at_new_point);
}

// prior + lambda + scale F_S(theta_t): the diagonal of the Fisher information of
// U + lambda |theta|^2 / 2, estimated at theta_t, which is H^0's inverse (over gamma) for the
// next step. That step moves theta_{t+1-M} != theta_t (M >= 2).
void Hamcmc::StoreFisher(BlockState& block, const BlockGradient& at_new_point) const {
  if (!fisher_at_newest_) return;
  if (!at_new_point.fisher_sum)
    throw Error(ExitCode::kInternal, "hamcmc: the Fisher H0 needs the Fisher sums after the step");
  const Matrix& fisher = *at_new_point.fisher_sum;
  Matrix& out = block.aux[fisher_slot()];
  const auto scale = static_cast<float>(at_new_point.scale);
  const auto trust = static_cast<float>(trust_);
  for (Eigen::Index r = 0; r < out.rows(); ++r)
    for (Eigen::Index c = 0; c < out.cols(); ++c)
      out(r, c) = (at_new_point.prior_precision[c] + trust) + scale * fisher(r, c);
}

// The newest pair in this iteration's memory was formed by the previous step (there is
// none before step 1); the summed Gram matrix decided whether it was used.
void Hamcmc::EndIteration(const double* pre_sums, const double*, double) {
  if (steps_ > 0) {
    const lbfgs::Basis basis{pairs()};
    const lbfgs::Gram gram = lbfgs::UnpackGram(pre_sums, basis.size());
    const std::vector<int> used = lbfgs::CurvaturePairs(gram, basis);
    if (std::find(used.begin(), used.end(), pairs() - 1) == used.end()) ++nonpositive_pairs_;
  }
  ++steps_;
}

std::vector<double> Hamcmc::global_state() const {
  return {static_cast<double>(steps_), static_cast<double>(nonpositive_pairs_)};
}

void Hamcmc::set_global_state(const std::vector<double>& state) {
  if (state.size() != 2 || !(state[0] >= 0.0) || !(state[1] >= 0.0))
    throw Error(ExitCode::kCheckpoint, "hamcmc: sampler state must be {steps, nonpositive pairs}");
  steps_ = static_cast<std::uint64_t>(state[0]);
  nonpositive_pairs_ = static_cast<std::uint64_t>(state[1]);
}

}  // namespace carousel
