// DpmixModel's evaluation (the held-out log predictive of the sample and of the collected
// samples, and what the collected samples add up) and the posterior summaries: the
// predictive of given observations, the components' posterior means and the clusters.
#include <algorithm>
#include <chrono>
#include <cmath>

#include "carousel/comm/ordered_sum.hpp"
#include "carousel/util/byte_buffer.hpp"
#include "carousel/util/error.hpp"
#include "dpmix_model_impl.hpp"

namespace carousel {
namespace {

double LogAddExp(double a, double b) {
  if (a == -INFINITY) return b;
  if (b == -INFINITY) return a;
  const double m = std::max(a, b);
  return m + std::log1p(std::exp(-std::fabs(a - b)));
}

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

}  // namespace

using dpmix_detail::kNoComponent;
using dpmix_detail::Observations;
using dpmix_detail::RowBlock;

void DpmixModel::Impl::Evaluate(const EvaluationContext& ctx) {
  const auto start = std::chrono::steady_clock::now();
  collected_ = ctx.collected;
  RefreshTotals();
  const double total = Total();
  std::vector<std::vector<double>> loglik(rows_.size());
  for (std::size_t r = 0; r < rows_.size(); ++r) loglik[r].assign(rows_[r].held.size() * K(), 0.0);
  Tour(ctx.home_stratum, [&](std::size_t r, int j, const double* theta) {
    RowBlock& rb = rows_[r];
    const std::size_t W = Words(j), Bs = static_cast<std::size_t>(B());
    if (ctx.collect && j == rb.id)
      for (std::size_t k = 0; k < K(); ++k)
        for (std::size_t w = 0; w < W; ++w)
          rb.phi_sum[k * W + w] += theta[k * W + w] / theta_total_[k];
    const Observations& obs = rb.held;
    for (std::size_t o = 0; o < obs.size(); ++o) {
      double* ll = loglik[r].data() + o * K();
      for (std::uint64_t e = obs.start[o * Bs + j]; e < obs.start[o * Bs + j + 1]; ++e)
        for (std::size_t k = 0; k < K(); ++k)
          ll[k] += obs.cnt[e] * std::log(theta[k * W + obs.cat[e]]);
    }
  });
  KeyedPartials partials;
  for (std::size_t r = 0; r < rows_.size(); ++r) {
    RowBlock& rb = rows_[r];
    auto& sums = partials[rb.id];
    sums.assign(2, 0.0);
    for (std::size_t o = 0; o < rb.held.size(); ++o) {
      const double* ll = loglik[r].data() + o * K();
      double lp = std::log(g_rest_ / total) + rb.held.log_dirmult[o];
      double best = lp;
      rb.held_best[o] = kNoComponent;
      for (std::size_t k = 0; k < K(); ++k) {
        const double term = std::log(g_[k] / total) + ll[k] -
                            rb.held.n[o] * std::log(theta_total_[k]) + rb.held.log_coef[o];
        if (term > best) {
          best = term;
          rb.held_best[o] = serial_[k];
        }
        lp = LogAddExp(lp, term);
      }
      sums[0] += lp;
      if (ctx.collect) {
        rb.log_pred_sum[o] = LogAddExp(rb.log_pred_sum[o], lp);
        sums[1] += rb.log_pred_sum[o] - std::log(static_cast<double>(collected_));
      }
    }
    if (ctx.collect)
      for (std::size_t o = 0; o < rb.train.size(); ++o) rb.mode[o][rb.z[o]]++;
  }
  const std::vector<double> sums = OrderedSum(*comm_, partials, 2);
  if (ctx.collect)
    for (std::size_t k = 0; k < K(); ++k) {
      w_sum_[k] += g_[k] / total;
      present_[k] += 1.0;
    }
  eval_seconds_ += Seconds(start);
  DpmixTraceRow row;
  row.iteration = ctx.iteration;
  row.seconds = seconds_running_() - eval_seconds_;
  const double n = static_cast<double>(survey_.held_out);
  row.log_pred_sample = n > 0 ? sums[0] / n : std::nan("");
  row.log_pred = ctx.collect ? (n > 0 ? sums[1] / n : std::nan("")) : row.log_pred_sample;
  row.occupied = K();
  row.alpha = alpha_;
  row.samples = collected_;
  trace_.push_back(row);
}

std::vector<double> DpmixModel::LogPredictive(
    const std::vector<std::vector<std::uint32_t>>& xs) const {
  const Impl& m = *impl_;
  if (static_cast<int>(m.cols_.size()) != m.B())
    throw Error(ExitCode::kInternal, "dpmix: LogPredictive needs every column block here");
  const std::size_t K = m.K();
  std::vector<double> total(K, 0.0);
  for (const auto& [j, theta] : m.cols_)
    for (std::size_t k = 0; k < K; ++k)
      for (std::size_t w = 0; w < m.Words(j); ++w) total[k] += theta[k * m.Words(j) + w];
  const double G = m.Total(), a = m.config_.a, d = static_cast<double>(m.corpus_.vocabulary);
  std::vector<double> out;
  for (const auto& x : xs) {
    double n = 0, coef = 0, dm = 0;
    std::vector<double> ll(K, 0.0);
    for (std::uint32_t c = 0; c < x.size(); ++c) {
      if (x[c] == 0) continue;
      n += x[c];
      coef -= std::lgamma(x[c] + 1.0);
      dm += std::lgamma(a + x[c]) - std::lgamma(a);
      const int j = m.grid_->cols().BlockOf(c);
      const std::size_t W = m.Words(j), w = m.grid_->cols().LocalIndex(c);
      for (std::size_t k = 0; k < K; ++k)
        ll[k] += x[c] * std::log(m.cols_.at(j)[k * W + w] / total[k]);
    }
    coef += std::lgamma(n + 1.0);
    double lp = std::log(m.g_rest_ / G) + dm + std::lgamma(d * a) - std::lgamma(d * a + n) + coef;
    for (std::size_t k = 0; k < K; ++k) lp = LogAddExp(lp, std::log(m.g_[k] / G) + ll[k] + coef);
    out.push_back(lp);
  }
  return out;
}

std::vector<double> DpmixModel::ComponentMeans() {
  Impl& m = *impl_;
  const std::size_t K = m.K(), V = m.corpus_.vocabulary;
  ByteWriter out;
  out.Put<std::int64_t>(static_cast<std::int64_t>(m.rows_.size()));
  for (const RowBlock& rb : m.rows_) {
    out.Put<std::int64_t>(rb.id);
    out.PutVector(rb.phi_sum);
  }
  const std::vector<std::string> parts = m.comm_->GatherToRoot(out.Take());
  if (m.comm_->rank() != 0) return {};
  std::vector<double> table(K * (1 + V), 0.0);
  for (std::size_t k = 0; k < K; ++k)
    table[k * (1 + V)] = m.w_sum_[k] / std::max(m.present_[k], 1.0);
  for (const std::string& part : parts) {
    ByteReader in(part);
    for (auto n = in.Get<std::int64_t>(); n > 0; --n) {
      const int id = static_cast<int>(in.Get<std::int64_t>());
      const std::vector<double> sums = in.GetVector<double>();
      const auto& members = m.grid_->cols().Members(id);
      for (std::size_t k = 0; k < K; ++k)
        for (std::size_t w = 0; w < members.size(); ++w)
          table[k * (1 + V) + 1 + members[w]] =
              sums[k * members.size() + w] / std::max(m.present_[k], 1.0);
    }
  }
  return table;
}

std::vector<DpmixCluster> DpmixModel::Clusters() {
  Impl& m = *impl_;
  struct Wire {
    std::uint32_t observation;
    std::uint32_t held_out;
    std::uint64_t serial;
    double share;
  };
  std::vector<Wire> mine;
  for (const RowBlock& rb : m.rows_) {
    for (std::size_t o = 0; o < rb.train.size(); ++o) {
      std::uint64_t best = rb.z[o];
      std::uint32_t count = 0, seen = 0;
      for (const auto& [s, c] : rb.mode[o]) {
        seen += c;
        if (c > count) best = s, count = c;
      }
      mine.push_back({rb.train.id[o], 0, best, seen > 0 ? double(count) / seen : 1.0});
    }
    for (std::size_t o = 0; o < rb.held.size(); ++o)
      mine.push_back({rb.held.id[o], 1, rb.held_best[o], 1.0});
  }
  const std::vector<std::string> parts = m.comm_->GatherToRoot(PodBytes(mine));
  if (m.comm_->rank() != 0) return {};
  std::vector<Wire> all;
  for (const std::string& part : parts) AppendPods(part, all);
  std::sort(all.begin(), all.end(),
            [](const Wire& a, const Wire& b) { return a.observation < b.observation; });
  std::vector<DpmixCluster> clusters;
  for (const Wire& w : all) {
    DpmixCluster c;
    c.observation = w.observation;
    c.held_out = w.held_out != 0;
    c.share = w.share;
    const auto it = std::lower_bound(m.serial_.begin(), m.serial_.end(), w.serial);
    if (it != m.serial_.end() && *it == w.serial) c.component = it - m.serial_.begin();
    clusters.push_back(c);
  }
  return clusters;
}

}  // namespace carousel
