#include "carousel/sampler/hamcmc.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "carousel/sampler/lbfgs_coefficients.hpp"
#include "carousel/util/error.hpp"

namespace carousel {

Hamcmc::Hamcmc(int memory, double trust, double initial_scale)
    : memory_(memory), trust_(trust), initial_scale_(initial_scale) {
  if (memory < 2 || memory > lbfgs::kMaxPairs + 1)
    throw UsageError("--memory", "HAMCMC needs 2 <= M <= " + std::to_string(lbfgs::kMaxPairs + 1) +
                                     ", got " + std::to_string(memory));
  if (!(trust >= 0.0) || !std::isfinite(trust))
    throw UsageError("--trust", "must be finite and >= 0");
  if (!(initial_scale > 0.0) || !std::isfinite(initial_scale))
    throw UsageError("--initial-scale", "must be finite and > 0");
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

// The block's part of the Gram matrix of (s_1..s_{M-1}, y_1..y_{M-1}, g, z).
void Hamcmc::PreSums(const BlockState& block, const BlockGradient& gradient, const NoiseKey& noise,
                     double* out) const {
  const lbfgs::Basis basis{pairs()};
  const int n = basis.size();
  const int width = lbfgs::PackedSize(n);
  const int p = pairs();
  std::fill(out, out + width, 0.0);
  const Matrix& base = block.aux[sample_slot(0)];  // theta_{t-M}, the gradient point
  double v[lbfgs::kMaxBasis];
  for (Eigen::Index r = 0; r < block.theta.rows(); ++r) {
    KeyedStream stream = noise.Row(r);
    for (Eigen::Index c = 0; c < block.theta.cols(); ++c) {
      for (int i = 0; i < p; ++i) {
        v[basis.s(i)] = block.aux[s_slot(i)](r, c);
        v[basis.y(i)] = block.aux[y_slot(i)](r, c);
      }
      v[basis.g()] = -gradient.LogPosterior(base, r, c);  // grad U~(theta_{t-M})
      v[basis.z()] = static_cast<float>(stream.normal());
      int k = 0;
      for (int a = 0; a < n; ++a)
        for (int b = a; b < n; ++b) out[k++] += v[a] * v[b];
    }
  }
}

void Hamcmc::StepWithSums(BlockState& block, const BlockGradient& gradient, double step,
                          const NoiseKey& noise, const double* pre_sums) const {
  const lbfgs::Basis basis{pairs()};
  const int n = basis.size();
  const int p = pairs();
  const lbfgs::Gram gram = lbfgs::UnpackGram(pre_sums, n);
  // Warm-up (t <= 2M): no pairs, H = gamma I. Afterwards the M-1 pairs in memory, less
  // those without positive curvature (decided from the summed Gram matrix).
  const lbfgs::CoefficientSpace space(
      gram, basis, initial_scale_,
      warming_up() ? std::vector<int>{} : lbfgs::CurvaturePairs(gram, basis));
  const lbfgs::Coef xi = space.InverseHessianTimes(basis.Unit(basis.g()));
  const lbfgs::Coef eta = space.SqrtTimes(basis.Unit(basis.z()));
  // theta_t - theta_{t-M} = -eps xi + sqrt(2 eps) eta, as coefficients of the basis.
  const lbfgs::Coef coef = -step * xi + std::sqrt(2.0 * step) * eta;

  Matrix& base = block.aux[sample_slot(0)];
  Matrix& s_out = block.aux[s_slot(0)];  // the oldest pair leaves memory after this step
  Matrix& y_out = block.aux[y_slot(0)];
  double v[lbfgs::kMaxBasis];
  for (Eigen::Index r = 0; r < block.theta.rows(); ++r) {
    KeyedStream stream = noise.Row(r);  // the same z as in PreSums
    for (Eigen::Index c = 0; c < block.theta.cols(); ++c) {
      for (int i = 0; i < p; ++i) {
        v[basis.s(i)] = block.aux[s_slot(i)](r, c);
        v[basis.y(i)] = block.aux[y_slot(i)](r, c);
      }
      const float g = -gradient.LogPosterior(base, r, c);
      v[basis.g()] = g;
      v[basis.z()] = static_cast<float>(stream.normal());
      double value = base(r, c);
      for (int a = 0; a < n; ++a) value += coef(a) * v[a];
      const float theta_new = static_cast<float>(value);
      s_out(r, c) = theta_new - base(r, c);  // s_t = theta_t - theta_{t-M}
      y_out(r, c) = g;                       // completed to y_t by AfterStep
      base(r, c) = theta_new;
    }
  }
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
}

void Hamcmc::PostSums(const BlockState& block, double* out) const {
  const Matrix& s = block.aux[s_slot(pairs() - 1)];
  const Matrix& y = block.aux[y_slot(pairs() - 1)];
  double sum = 0.0;
  for (Eigen::Index r = 0; r < s.rows(); ++r)
    for (Eigen::Index c = 0; c < s.cols(); ++c)
      sum += static_cast<double>(s(r, c)) * static_cast<double>(y(r, c));
  out[0] = sum;
}

void Hamcmc::EndIteration(const double* post_sums, double) {
  ++steps_;
  if (!(post_sums[0] > 0.0)) ++nonpositive_pairs_;
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
