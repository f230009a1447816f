#include "carousel/model/bpmf/bpmf_metric.hpp"

#include "carousel/util/error.hpp"

namespace carousel {

void RatingCountMetric::Evaluate(const Matrix& theta, const BlockGradient& gradient, Matrix& g_inv,
                                 Matrix& d_g_inv) const {
  if (!gradient.row_data_count || gradient.row_data_count->size() != theta.rows())
    throw Error(ExitCode::kInternal, "rating-count metric: no rating counts for this block");
  g_inv.resize(theta.rows(), theta.cols());
  for (Eigen::Index r = 0; r < theta.rows(); ++r)
    g_inv.row(r).setConstant(1.0f / (1.0f + (*gradient.row_data_count)[r]));
  d_g_inv.setZero(theta.rows(), theta.cols());
}

void ExpectedFisherMetric::Evaluate(const Matrix& theta, const BlockGradient& gradient,
                                    Matrix& g_inv, Matrix& d_g_inv) const {
  if (!gradient.row_data_count || gradient.row_data_count->size() != theta.rows() ||
      !gradient.information_per_datum || gradient.information_per_datum->size() != theta.cols())
    throw Error(ExitCode::kInternal, "fisher metric: no rating counts or information");
  const Eigen::VectorXf& information = *gradient.information_per_datum;
  const Eigen::VectorXf& prior = gradient.prior_precision;
  g_inv.resize(theta.rows(), theta.cols());
  for (Eigen::Index r = 0; r < theta.rows(); ++r) {
    const float n = (*gradient.row_data_count)[r];
    for (Eigen::Index c = 0; c < theta.cols(); ++c)
      g_inv(r, c) = 1.0f / (prior[c] + n * information[c]);
  }
  d_g_inv.setZero(theta.rows(), theta.cols());
}

}  // namespace carousel
