// BpmfModel's kept draws (issue #13): lp__ (the log joint density, as Stan's readers
// expect it first), the log-likelihood, the sampled precisions, the
// training and test RMSE of the sample, and the factors of the users and items selected
// with --save-draws, one row per kept draw on rank 0.
#include <cmath>

#include "bpmf_model_impl.hpp"
#include "carousel/util/byte_buffer.hpp"

namespace carousel {

std::vector<std::string> BpmfDrawColumns(const MfConfig& config, bool has_test) {
  std::vector<std::string> columns = {"lp__", "log_lik"};
  if (config.priors.sample_hyper) {
    columns.insert(columns.end(), {"tau", "lambda_w", "lambda_h"});
    if (config.shape.bias) columns.insert(columns.end(), {"lambda_b", "lambda_c"});
  }
  columns.push_back("rmse_train");
  if (has_test) columns.push_back("rmse_test");
  // One Stan vector per selected user or item: W_<user id>.<k> (k from 1) and the bias
  // b_<user id>; H_<item id>.<k> and c_<item id>. (W.<id>.<k> would name elements of one
  // users x K array, which Stan's readers expect whole.)
  const auto add_factors = [&](const char* factor, const char* bias,
                               const std::vector<std::int64_t>& ids) {
    for (const std::int64_t id : ids) {
      for (int k = 1; k <= config.shape.rank; ++k)
        columns.push_back(std::string(factor) + "_" + std::to_string(id) + "." + std::to_string(k));
      if (config.shape.bias) columns.push_back(std::string(bias) + "_" + std::to_string(id));
    }
  };
  add_factors("W", "b", config.draws.row_ids);
  add_factors("H", "c", config.draws.col_ids);
  return columns;
}

// The log-likelihood of all N training ratings at this sample, estimated from the last
// minibatch: -tau/2 (N/n) SSE_minibatch + N/2 log(tau / 2 pi).
static double EstimatedLogLikelihood(double tau, double sse, double n, double n_total) {
  constexpr double kTwoPi = 6.283185307179586;
  if (n <= 0) return std::nan("");
  return -0.5 * tau * sse * (n_total / n) + 0.5 * n_total * std::log(tau / kTwoPi);
}

void BpmfModel::Impl::KeepDraw(const TraceRow& row, double sse_train, double n_train,
                               const Matrix& h) {
  const double lp = LogJointDensity(config_.priors, row.hyper, GatherHyperStats());
  // The selected users' rows, from the ranks that hold them, in the order of the selection.
  const int width = config_.shape.width();
  ByteWriter out;
  for (std::size_t s = 0; s < config_.draws.rows.size(); ++s) {
    const std::uint32_t user = config_.draws.rows[s];
    const int block = grid_->rows().BlockOf(user);
    if (!IsMine(block)) continue;
    out.Put<std::uint64_t>(s);
    out.PutArray(Row(block).state.theta.row(grid_->rows().LocalIndex(user)).eval().data(),
                 static_cast<std::size_t>(width));
  }
  const std::vector<std::string> parts = comm_->GatherToRoot(out.Take());
  if (comm_->rank() != 0) return;
  std::vector<float> users(config_.draws.rows.size() * static_cast<std::size_t>(width));
  for (const std::string& part : parts) {
    ByteReader in(part);
    while (!in.done()) {
      const auto s = in.Get<std::uint64_t>();
      in.GetArray(users.data() + s * static_cast<std::size_t>(width),
                  static_cast<std::size_t>(width));
    }
  }

  std::vector<double> values = {lp,
                                EstimatedLogLikelihood(row.hyper.tau, sse_train, n_train,
                                                       static_cast<double>(problem_.train_count))};
  if (config_.priors.sample_hyper) {
    values.insert(values.end(), {row.hyper.tau, row.hyper.lambda_w, row.hyper.lambda_h});
    if (config_.shape.bias) values.insert(values.end(), {row.hyper.lambda_b, row.hyper.lambda_c});
  }
  values.push_back(row.rmse_train);
  if (problem_.test_count > 0) values.push_back(row.rmse_sample);
  values.insert(values.end(), users.begin(), users.end());
  for (const std::uint32_t item : config_.draws.cols)
    for (int k = 0; k < width; ++k) values.push_back(h(item, k));
  draws_.Add(values);
}

}  // namespace carousel
