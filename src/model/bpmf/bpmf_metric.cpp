#include "carousel/model/bpmf/bpmf_metric.hpp"

#include "carousel/sampler/row_drift.hpp"
#include "carousel/util/error.hpp"

namespace carousel {

namespace {

// Row r's rating count is there (r < rows of the block the counts describe).
void CheckRatingCounts(const BlockGradient& gradient, Eigen::Index r) {
  if (!gradient.row_data_count || r >= gradient.row_data_count->size())
    throw Error(ExitCode::kInternal, "rating-count metric: no rating counts for this block");
}

void CheckFisherInputs(const BlockGradient& gradient, Eigen::Index r) {
  CheckRatingCounts(gradient, r);
  if (!gradient.information_per_datum ||
      gradient.information_per_datum->size() != gradient.prior_precision.size())
    throw Error(ExitCode::kInternal, "fisher metric: no information per rating");
}

}  // namespace

void RatingCountMetric::InverseOfRow(const BlockGradient& gradient, Eigen::Index r,
                                     float* out) const {
  CheckRatingCounts(gradient, r);
  const float v = 1.0f / (1.0f + (*gradient.row_data_count)[r]);
  for (Eigen::Index c = 0; c < gradient.prior_precision.size(); ++c) out[c] = v;
}

void RatingCountMetric::Evaluate(const Matrix& theta, const BlockGradient& gradient, Matrix& g_inv,
                                 Matrix& d_g_inv) const {
  if (!gradient.row_data_count || gradient.row_data_count->size() != theta.rows())
    throw Error(ExitCode::kInternal, "rating-count metric: no rating counts for this block");
  g_inv.resize(theta.rows(), theta.cols());
  for (Eigen::Index r = 0; r < theta.rows(); ++r) InverseOfRow(gradient, r, g_inv.row(r).data());
  d_g_inv.setZero(theta.rows(), theta.cols());
}

void ExpectedFisherMetric::InverseOfRow(const BlockGradient& gradient, Eigen::Index r,
                                        float* out) const {
  CheckFisherInputs(gradient, r);
  const Eigen::VectorXf& information = *gradient.information_per_datum;
  const Eigen::VectorXf& prior = gradient.prior_precision;
  const float n = (*gradient.row_data_count)[r];
  for (Eigen::Index c = 0; c < prior.size(); ++c)
    out[c] = MatchedPrecisionInverse(prior[c], n, information[c]);
}

void ExpectedFisherMetric::Evaluate(const Matrix& theta, const BlockGradient& gradient,
                                    Matrix& g_inv, Matrix& d_g_inv) const {
  if (!gradient.row_data_count || gradient.row_data_count->size() != theta.rows() ||
      !gradient.information_per_datum || gradient.information_per_datum->size() != theta.cols())
    throw Error(ExitCode::kInternal, "fisher metric: no rating counts or information");
  g_inv.resize(theta.rows(), theta.cols());
  for (Eigen::Index r = 0; r < theta.rows(); ++r) InverseOfRow(gradient, r, g_inv.row(r).data());
  d_g_inv.setZero(theta.rows(), theta.cols());
}

}  // namespace carousel
