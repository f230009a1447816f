#include "carousel/sampler/diagonal_metric.hpp"

#include <cmath>
#include <utility>

#include "carousel/util/error.hpp"

namespace carousel {

ConstantDiagonalMetric::ConstantDiagonalMetric(Eigen::VectorXf inverse_metric)
    : inverse_metric_(std::move(inverse_metric)) {
  for (Eigen::Index c = 0; c < inverse_metric_.size(); ++c)
    if (!(std::isfinite(inverse_metric_[c]) && inverse_metric_[c] > 0.0f))
      throw SettingError("metric", "constant G^-1 entry " + std::to_string(c) + " = " +
                                       std::to_string(inverse_metric_[c]) +
                                       " (must be finite and > 0)");
}

void DiagonalMetric::InverseOfRow(const BlockGradient&, Eigen::Index, float*) const {
  throw Error(ExitCode::kInternal, "metric " + name() + " depends on theta: no G^-1 by row");
}

void ConstantDiagonalMetric::InverseOfRow(const BlockGradient&, Eigen::Index, float* out) const {
  for (Eigen::Index c = 0; c < inverse_metric_.size(); ++c) out[c] = inverse_metric_[c];
}

ConstantDiagonalMetric ConstantDiagonalMetric::Uniform(Eigen::Index columns, float v) {
  return ConstantDiagonalMetric(Eigen::VectorXf::Constant(columns, v));
}

void ConstantDiagonalMetric::Evaluate(const Matrix& theta, const BlockGradient&, Matrix& g_inv,
                                      Matrix& d_g_inv) const {
  if (inverse_metric_.size() != theta.cols())
    throw Error(ExitCode::kInternal, "constant metric has " +
                                         std::to_string(inverse_metric_.size()) +
                                         " columns, block has " + std::to_string(theta.cols()));
  g_inv = inverse_metric_.transpose().replicate(theta.rows(), 1);
  d_g_inv.setZero(theta.rows(), theta.cols());
}

PotentialMetric::PotentialMetric(double scale, double offset, Potential potential)
    : scale_(scale), offset_(offset), potential_(std::move(potential)) {
  if (!(std::isfinite(scale) && scale > 0.0))
    throw SettingError("metric", "potential metric scale D = " + std::to_string(scale) +
                                     " (must be finite and > 0)");
  if (!std::isfinite(offset))
    throw SettingError("metric", "potential metric offset C must be finite");
  if (!potential_) throw SettingError("metric", "potential metric needs a potential callback");
}

void PotentialMetric::Evaluate(const Matrix& theta, const BlockGradient& gradient, Matrix& g_inv,
                               Matrix& d_g_inv) const {
  Matrix u(theta.rows(), theta.cols());
  potential_(theta, u);
  g_inv.resize(theta.rows(), theta.cols());
  d_g_inv.resize(theta.rows(), theta.cols());
  for (Eigen::Index r = 0; r < theta.rows(); ++r) {
    for (Eigen::Index c = 0; c < theta.cols(); ++c) {
      const double shifted = static_cast<double>(u(r, c)) + offset_;
      const double root = std::sqrt(std::abs(shifted));
      const double du = -static_cast<double>(gradient.LogPosterior(theta, r, c));  // dU~/dtheta
      g_inv(r, c) = static_cast<float>(scale_ * root);
      d_g_inv(r, c) = static_cast<float>(scale_ * (shifted < 0.0 ? -1.0 : 1.0) * du / (2.0 * root));
    }
  }
}

}  // namespace carousel
