// BpmfModel's evaluation (test RMSE of the sample and of the running posterior mean, the
// moments of the collected samples) and the posterior summaries gathered on rank 0.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "bpmf_model_impl.hpp"
#include "carousel/comm/collective.hpp"
#include "carousel/comm/ordered_sum.hpp"
#include "carousel/io/text_output.hpp"
#include "carousel/model/bpmf/bpmf_health.hpp"
#include "carousel/util/all_finite.hpp"
#include "carousel/util/byte_buffer.hpp"
#include "carousel/util/error.hpp"
#include "carousel/util/prefetch.hpp"

namespace carousel {

void AccumulateMoments(const Matrix& x, MomentMatrix& sum, MomentMatrix& sum_sq) {
  if (sum.rows() != x.rows() || sum.cols() != x.cols() || sum_sq.rows() != x.rows() ||
      sum_sq.cols() != x.cols())
    throw Error(ExitCode::kInternal, "BpmfModel: moment sums of another shape than the factors");
  const float* in = x.data();
  double* s = sum.data();
  double* s2 = sum_sq.data();
  for (Eigen::Index k = 0, n = x.size(); k < n; ++k) {
    const double v = in[k];
    s[k] += v;
    s2[k] += v * v;
  }
}

const Matrix& BpmfModel::Impl::GatherColumns() {
  ByteWriter out;
  out.Put<std::int64_t>(static_cast<std::int64_t>(cols_.size()));
  for (const auto& [j, block] : cols_) {
    out.Put<std::int64_t>(j);
    out.PutArray(block.theta.data(), static_cast<std::size_t>(block.theta.size()));
  }
  // Every column is in exactly one column block, so every row of H is written below.
  gathered_h_.resize(problem_.cols, config_.shape.width());
  for (const std::string& part : comm_->AllGather(out.Take())) {
    ByteReader in(part);
    for (auto n = in.Get<std::int64_t>(); n > 0; --n) {
      const int j = static_cast<int>(in.Get<std::int64_t>());
      const auto& members = grid_->cols().Members(j);
      Matrix& theta = gather_scratch_;
      theta.resize(static_cast<Eigen::Index>(members.size()), config_.shape.width());
      in.GetArray(theta.data(), static_cast<std::size_t>(theta.size()));
      for (std::size_t r = 0; r < members.size(); ++r)
        gathered_h_.row(members[r]) = theta.row(static_cast<Eigen::Index>(r));
    }
  }
  return gathered_h_;
}

void BpmfModel::Impl::Evaluate(const EvaluationContext& ctx) {
  BringUpToDate(ctx.iteration);
  const bool collect = ctx.collect;
  collected_ = ctx.collected;
  const bool moments = collect && TakesMoments(collected_);
  const Matrix& h = GatherColumns();
  enum { kSseSample, kSseMean, kTest, kSseTrain, kTrain, kClipped, kWidth };
  KeyedPartials partials;
  const auto row_bytes = static_cast<std::size_t>(config_.shape.width()) * sizeof(float);
  for (BpmfRowBlock& rb : rows_) {
    std::vector<double> v(kWidth, 0.0);
    for (std::size_t e = 0; e < rb.test.size(); ++e) {
      // Most users have one test rating or none, so each rating's row of W is a cache miss
      // that nothing predicts: the row of the rating this many places ahead is asked for now.
      constexpr std::size_t kAhead = 8;
      if (e + kAhead < rb.test.size() && rb.test[e + kAhead].row != kUnknownId)
        PrefetchBytes(rb.state.theta.row(rb.test[e + kAhead].row).data(), row_bytes);
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
    if (moments) AccumulateMoments(rb.state.theta, rb.sum, rb.sum_sq);
  }
  if (moments && comm_->rank() == 0) AccumulateMoments(h, h_sum_, h_sum_sq_);
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
  if (collect) {
    KeepDraw(row, total[kSseTrain], total[kTrain], h);
    if (std::binary_search(sample_plan_.begin(), sample_plan_.end(), ctx.iteration))
      TakeSample(ctx.iteration, h);
  }
  clipped_share_ = total[kTest] > 0 ? total[kClipped] / total[kTest] : nan;
}

// Every rank sees the same trace row and shares, so every rank reaches the same verdict
// and the error is collective (rank 0 prints it).
void BpmfModel::Impl::CheckChainHealth(const TraceRow& row) const {
  BpmfChainSnapshot snapshot;
  snapshot.rmse_train = row.rmse_train;
  snapshot.informative =
      static_cast<double>(problem_.train_count) >=
      (static_cast<double>(problem_.rows) + problem_.cols) * config_.shape.width();
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
  // After an iteration where rows sat out, only the rows it stepped changed.
  if (lazy_ && !all_current_) return stepped_rows_finite_;
  const auto finite = [](const auto& theta) {
    return carousel::AllFinite(theta.data(), static_cast<std::size_t>(theta.size()));
  };
  for (const BpmfRowBlock& rb : rows_)
    if (!finite(rb.state.theta)) return false;
  for (const auto& [j, block] : cols_)
    if (!finite(block.theta)) return false;
  return true;
}

namespace {

// Posterior mean and variance from the sums over n samples.
void MeanVar(double n, const Eigen::MatrixXd& sum, const Eigen::MatrixXd& sum_sq,
             Eigen::MatrixXd& mean, Eigen::MatrixXd& var) {
  mean = n > 0 ? Eigen::MatrixXd(sum / n) : Eigen::MatrixXd::Zero(sum.rows(), sum.cols());
  var = n > 0 ? Eigen::MatrixXd((sum_sq / n - mean.cwiseProduct(mean)).cwiseMax(0.0))
              : Eigen::MatrixXd::Zero(sum.rows(), sum.cols());
}

}  // namespace

MfPosterior BpmfModel::Impl::Posterior() {
  ByteWriter out;
  for (const BpmfRowBlock& rb : rows_) {
    out.PutVector(rb.test_index);
    out.PutVector(rb.pred_sum);
    out.PutVector(rb.pred_sum_sq);
  }
  const Matrix& h = GatherColumns();
  const std::vector<std::string> parts = comm_->GatherToRoot(out.Take());
  MfPosterior post;
  if (comm_->rank() != 0) return post;

  const double n = static_cast<double>(collected_);
  post.samples = collected_;
  post.moment_draws = MomentDraws();
  post.pred_mean.assign(problem_.test_count, 0.0);
  post.pred_sd.assign(problem_.test_count, 0.0);
  for (const std::string& part : parts) {
    ByteReader in(part);
    for (int block = 0; block < layout_->blocks_per_rank(); ++block) {
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
  // Column-major copies (exact) so that MeanVar evaluates exactly the expressions it always did.
  MeanVar(static_cast<double>(post.moment_draws), Eigen::MatrixXd(h_sum_),
          Eigen::MatrixXd(h_sum_sq_), post.h_mean, post.h_var);
  post.h_last = h;
  return post;
}

std::optional<Error> BpmfModel::Impl::GatherUserSlices(
    std::uint32_t rows_per_slice, std::size_t packed_row_bytes,
    const std::function<void(ByteWriter&, const BpmfRowBlock&, Eigen::Index)>& pack,
    const std::function<void(std::uint32_t, std::uint32_t, const std::vector<std::string>&)>&
        unpack) {
  // This rank's users in global order: (global row, row block, local row).
  struct Held {
    std::uint32_t row;
    std::uint32_t block;
    std::uint32_t local;
  };
  std::vector<Held> held;
  for (std::size_t b = 0; b < rows_.size(); ++b) {
    const auto& members = grid_->rows().Members(rows_[b].id);
    for (std::size_t r = 0; r < members.size(); ++r)
      held.push_back({members[r], static_cast<std::uint32_t>(b), static_cast<std::uint32_t>(r)});
  }
  std::sort(held.begin(), held.end(), [](const Held& a, const Held& b) { return a.row < b.row; });
  std::optional<Error> failure;
  std::size_t next = 0;
  for (std::uint32_t first = 0; first < problem_.rows; first += rows_per_slice) {
    const std::uint32_t end = std::min<std::uint32_t>(problem_.rows, first + rows_per_slice);
    ByteWriter out;
    std::vector<std::uint32_t> rows;
    const std::size_t begin = next;
    for (; next < held.size() && held[next].row < end; ++next) rows.push_back(held[next].row);
    out.Reserve(ByteWriter::ArrayBytes<std::uint32_t>(rows.size()) +
                rows.size() * packed_row_bytes);
    out.PutVector(rows);
    for (std::size_t k = begin; k < next; ++k) pack(out, rows_[held[k].block], held[k].local);
    const std::vector<std::string> parts = comm_->GatherToRoot(out.Take());
    if (comm_->rank() != 0 || failure) continue;
    try {
      unpack(first, end, parts);
    } catch (const Error& e) {
      failure = e;  // the other ranks are in the next slice's gather: finish the rounds first
    }
  }
  return failure;
}

void BpmfModel::Impl::ForEachUserSlice(const std::function<void(const UserSlice&)>& consume,
                                       std::uint32_t rows_per_slice) {
  const int width = config_.shape.width();
  const double n = static_cast<double>(MomentDraws());
  // By default about 16 MiB of sums per slice on rank 0.
  const std::uint32_t slice =
      rows_per_slice > 0
          ? rows_per_slice
          : std::max<std::uint32_t>(
                1, static_cast<std::uint32_t>((std::size_t{16} << 20) /
                                              (16 * static_cast<std::size_t>(width))));
  const auto pack = [&](ByteWriter& out, const BpmfRowBlock& rb, Eigen::Index r) {
    out.PutArray(rb.sum.row(r).data(), static_cast<std::size_t>(width));  // all row-major
    out.PutArray(rb.sum_sq.row(r).data(), static_cast<std::size_t>(width));
    out.PutArray(rb.state.theta.row(r).data(), static_cast<std::size_t>(width));
  };
  const auto unpack = [&](std::uint32_t first, std::uint32_t end,
                          const std::vector<std::string>& parts) {
    const auto m = static_cast<Eigen::Index>(end - first);
    Eigen::MatrixXd sum(m, width), sum_sq(m, width);
    UserSlice users;
    users.first = first;
    users.last.resize(m, width);
    for (const std::string& part : parts) {
      ByteReader in(part);
      for (std::uint32_t row : in.GetVector<std::uint32_t>()) {
        const Eigen::Index r = row - first;
        Eigen::VectorXd v(width);
        in.GetArray(v.data(), static_cast<std::size_t>(width));
        sum.row(r) = v;
        in.GetArray(v.data(), static_cast<std::size_t>(width));
        sum_sq.row(r) = v;
        Eigen::VectorXf f(width);
        in.GetArray(f.data(), static_cast<std::size_t>(width));
        users.last.row(r) = f;
      }
    }
    MeanVar(n, sum, sum_sq, users.mean, users.var);
    consume(users);
  };
  const std::size_t w = static_cast<std::size_t>(width);
  const std::size_t packed =
      2 * ByteWriter::ArrayBytes<double>(w) + ByteWriter::ArrayBytes<float>(w);
  const std::optional<Error> failure = GatherUserSlices(slice, packed, pack, unpack);
  RunCollectively(*comm_, [&] {
    if (failure) throw *failure;
  });
}

}  // namespace carousel
