// BpmfModel's evaluation (test RMSE of the sample and of the running posterior mean, the
// moments of the collected samples) and the posterior summaries gathered on rank 0.
#include <algorithm>
#include <cmath>
#include <limits>

#include "bpmf_model_impl.hpp"
#include "carousel/comm/ordered_sum.hpp"
#include "carousel/io/text_output.hpp"
#include "carousel/model/bpmf/bpmf_health.hpp"
#include "carousel/util/byte_buffer.hpp"
#include "carousel/util/error.hpp"

namespace carousel {

Matrix BpmfModel::Impl::GatherColumns() {
  ByteWriter out;
  out.Put<std::int64_t>(static_cast<std::int64_t>(cols_.size()));
  for (const auto& [j, block] : cols_) {
    out.Put<std::int64_t>(j);
    out.PutArray(block.theta.data(), static_cast<std::size_t>(block.theta.size()));
  }
  Matrix h(problem_.cols, config_.shape.width());
  for (const std::string& part : comm_->AllGather(out.Take())) {
    ByteReader in(part);
    for (auto n = in.Get<std::int64_t>(); n > 0; --n) {
      const int j = static_cast<int>(in.Get<std::int64_t>());
      const auto& members = grid_->cols().Members(j);
      Matrix theta(static_cast<Eigen::Index>(members.size()), config_.shape.width());
      in.GetArray(theta.data(), static_cast<std::size_t>(theta.size()));
      for (std::size_t r = 0; r < members.size(); ++r)
        h.row(members[r]) = theta.row(static_cast<Eigen::Index>(r));
    }
  }
  return h;
}

void BpmfModel::Impl::Evaluate(const EvaluationContext& ctx) {
  const bool collect = ctx.collect;
  collected_ = ctx.collected;
  const Matrix h = GatherColumns();
  enum { kSseSample, kSseMean, kTest, kSseTrain, kTrain, kClipped, kWidth };
  KeyedPartials partials;
  for (BpmfRowBlock& rb : rows_) {
    std::vector<double> v(kWidth, 0.0);
    for (std::size_t e = 0; e < rb.test.size(); ++e) {
      const TestRating& r = rb.test[e];
      const float* w = r.row == kUnknownId ? nullptr : rb.state.theta.row(r.row).data();
      const float* hc = r.col == kUnknownId ? nullptr : h.row(r.col).data();
      const double pred =
          PredictRating(w, hc, config_.shape, problem_.mu, problem_.lo, problem_.hi);
      if (pred <= problem_.lo || pred >= problem_.hi) v[kClipped] += 1.0;
      v[kSseSample] += (pred - r.value) * (pred - r.value);
      if (collect) {
        rb.pred_sum[e] += pred;
        rb.pred_sum_sq[e] += pred * pred;
        const double mean = rb.pred_sum[e] / static_cast<double>(collected_);
        v[kSseMean] += (mean - r.value) * (mean - r.value);
      }
    }
    v[kTest] = static_cast<double>(rb.test.size());
    v[kSseTrain] = rb.minibatch_sse;
    v[kTrain] = rb.minibatch_count;
    partials[rb.id] = v;
    if (collect) {
      const Eigen::MatrixXd theta = rb.state.theta.cast<double>();
      rb.sum += theta;
      rb.sum_sq += theta.cwiseProduct(theta);
    }
  }
  if (collect && comm_->rank() == 0) {
    const Eigen::MatrixXd hd = h.cast<double>();
    h_sum_ += hd;
    h_sum_sq_ += hd.cwiseProduct(hd);
  }
  const std::vector<double> total = OrderedSum(*comm_, partials, kWidth);
  TraceRow row;
  row.iteration = ctx.iteration;
  row.seconds = seconds_running_();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  row.rmse_sample = total[kTest] > 0 ? std::sqrt(total[kSseSample] / total[kTest]) : nan;
  row.rmse_mean = collect && total[kTest] > 0 ? std::sqrt(total[kSseMean] / total[kTest]) : nan;
  row.rmse_train = total[kTrain] > 0 ? std::sqrt(total[kSseTrain] / total[kTrain]) : nan;
  row.samples = collected_;
  row.hyper = hyper_;
  trace_.push_back(row);
  clipped_share_ = total[kTest] > 0 ? total[kClipped] / total[kTest] : nan;
}

// Every rank sees the same trace row and shares, so every rank reaches the same verdict
// and the error is collective (rank 0 prints it).
void BpmfModel::Impl::CheckChainHealth(const TraceRow& row) const {
  BpmfChainSnapshot snapshot;
  snapshot.rmse_train = row.rmse_train;
  snapshot.sd_train = sd_train_;
  snapshot.clipped_share = clipped_share_;
  snapshot.rating_range = static_cast<double>(problem_.hi) - problem_.lo;
  snapshot.rank = config_.shape.rank;
  snapshot.bias = config_.shape.bias;
  snapshot.hyper_sampled = config_.priors.sample_hyper;
  snapshot.hyper = row.hyper;
  const std::optional<std::string> problem = DiagnoseBpmfChain(snapshot);
  if (!problem) return;
  throw Error(ExitCode::kDiverged, "the chain left the posterior at iteration " +
                                       std::to_string(row.iteration) + ": " + *problem +
                                       ". Reduce --step (now " +
                                       io::FormatReal(config_.step.At(row.iteration - 1)) +
                                       "), e.g. halve it, or leave it at the sampler's default")
      .SetCollective(comm_->rank() != 0);
}

bool BpmfModel::Impl::AllFinite() const {
  for (const BpmfRowBlock& rb : rows_)
    if (!rb.state.theta.allFinite()) return false;
  for (const auto& [j, block] : cols_)
    if (!block.theta.allFinite()) return false;
  return true;
}

MfPosterior BpmfModel::Impl::Posterior() {
  const int width = config_.shape.width();
  ByteWriter out;
  out.Put<std::int64_t>(static_cast<std::int64_t>(rows_.size()));
  for (const BpmfRowBlock& rb : rows_) {
    out.Put<std::int64_t>(rb.id);
    out.PutArray(rb.sum.data(), static_cast<std::size_t>(rb.sum.size()));
    out.PutArray(rb.sum_sq.data(), static_cast<std::size_t>(rb.sum_sq.size()));
    out.PutArray(rb.state.theta.data(), static_cast<std::size_t>(rb.state.theta.size()));
    out.PutVector(rb.test_index);
    out.PutVector(rb.pred_sum);
    out.PutVector(rb.pred_sum_sq);
  }
  const Matrix h = GatherColumns();
  const std::vector<std::string> parts = comm_->GatherToRoot(out.Take());
  MfPosterior post;
  if (comm_->rank() != 0) return post;

  const double n = static_cast<double>(collected_);
  auto mean_var = [n](const Eigen::MatrixXd& sum, const Eigen::MatrixXd& sum_sq,
                      Eigen::MatrixXd& mean, Eigen::MatrixXd& var) {
    mean = n > 0 ? Eigen::MatrixXd(sum / n) : Eigen::MatrixXd::Zero(sum.rows(), sum.cols());
    var = n > 0 ? Eigen::MatrixXd((sum_sq / n - mean.cwiseProduct(mean)).cwiseMax(0.0))
                : Eigen::MatrixXd::Zero(sum.rows(), sum.cols());
  };
  post.samples = collected_;
  const Eigen::Index users = problem_.rows;
  Eigen::MatrixXd w_sum(users, width), w_sum_sq(users, width);
  post.w_last.resize(users, width);
  post.pred_mean.assign(problem_.test.size(), 0.0);
  post.pred_sd.assign(problem_.test.size(), 0.0);
  for (const std::string& part : parts) {
    ByteReader in(part);
    for (auto count = in.Get<std::int64_t>(); count > 0; --count) {
      const int id = static_cast<int>(in.Get<std::int64_t>());
      const auto& members = grid_->rows().Members(id);
      const auto m = static_cast<Eigen::Index>(members.size());
      Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic> sum(m, width), sum_sq(m, width);
      Matrix theta(m, width);
      in.GetArray(sum.data(), static_cast<std::size_t>(sum.size()));
      in.GetArray(sum_sq.data(), static_cast<std::size_t>(sum_sq.size()));
      in.GetArray(theta.data(), static_cast<std::size_t>(theta.size()));
      for (Eigen::Index r = 0; r < m; ++r) {
        w_sum.row(members[r]) = sum.row(r);
        w_sum_sq.row(members[r]) = sum_sq.row(r);
        post.w_last.row(members[r]) = theta.row(r);
      }
      const auto index = in.GetVector<std::uint32_t>();
      const auto psum = in.GetVector<double>();
      const auto psum_sq = in.GetVector<double>();
      for (std::size_t e = 0; e < index.size(); ++e) {
        const double mean = n > 0 ? psum[e] / n : 0.0;
        post.pred_mean[index[e]] = mean;
        post.pred_sd[index[e]] =
            n > 0 ? std::sqrt(std::max(0.0, psum_sq[e] / n - mean * mean)) : 0.0;
      }
    }
  }
  mean_var(w_sum, w_sum_sq, post.w_mean, post.w_var);
  mean_var(h_sum_, h_sum_sq_, post.h_mean, post.h_var);
  post.h_last = h;
  return post;
}

}  // namespace carousel
