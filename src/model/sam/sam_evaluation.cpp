// SamModel's evaluation: the held-out log-perplexity of main paper Sec. 5.3 with its Monte
// Carlo error, and the posterior mean directions of the topics. See sam_model.hpp.
#include <algorithm>
#include <chrono>
#include <cmath>

#include "carousel/util/byte_buffer.hpp"
#include "carousel/util/keyed_rng.hpp"
#include "carousel/util/log_bessel.hpp"
#include "sam_model_impl.hpp"

namespace carousel {
namespace {

double LogAddExp(double a, double b) {
  if (a == -HUGE_VAL) return b;
  if (b == -HUGE_VAL) return a;
  const double m = std::max(a, b);
  return m + std::log(std::exp(a - m) + std::exp(b - m));
}

// log pi(v_d | beta) = log c_V(kappa1) + log mean_n exp(kappa1 s' theta_n / |beta' theta_n|)
// over theta_n ~ Dir(alpha) (Sec. 5.3), and the delta-method variance of that estimate:
// Var(log mean w) ~ Var(w) / (N mean(w)^2). The draws are keyed by the document alone, so
// every evaluation uses the same ones and differences between samples of beta are not
// blurred by new theta noise.
struct HeldOutLikelihood {
  double log_likelihood = 0.0;
  double variance = 0.0;
};

HeldOutLikelihood EstimateHeldOut(const double* s, const Eigen::MatrixXd& gram,
                                  double log_normaliser, const SamConfig& config,
                                  std::uint32_t document) {
  const Eigen::Index k = gram.rows();
  const int draws = config.eval_draws;
  const Eigen::Map<const Eigen::VectorXd> sv(s, k);
  KeyedStream rng(config.chain.seed, Purpose::kPriorProportions, document, 0);
  std::vector<double> ell(static_cast<std::size_t>(draws));
  Eigen::VectorXd theta(k);
  for (int n = 0; n < draws; ++n) {
    for (Eigen::Index r = 0; r < k; ++r) theta(r) = rng.gamma(config.alpha);
    theta /= theta.sum();
    ell[static_cast<std::size_t>(n)] =
        config.kappa1 * sv.dot(theta) / std::sqrt(theta.dot(gram * theta));
  }
  const double top = *std::max_element(ell.begin(), ell.end());
  double sum = 0.0, sum2 = 0.0;
  for (double l : ell) {
    const double w = std::exp(l - top);
    sum += w;
    sum2 += w * w;
  }
  const double mean = sum / draws;
  const double var_w = draws > 1 ? (sum2 - draws * mean * mean) / (draws - 1) : 0.0;
  return {log_normaliser + top + std::log(mean), std::max(0.0, var_w) / (draws * mean * mean)};
}

}  // namespace

void SamModel::Impl::Evaluate(const EvaluationContext& ctx) {
  const auto start = std::chrono::steady_clock::now();
  const SamHeldOut& h = survey_.held_out;
  const std::size_t k = K(), n = h.ids.size();
  const Eigen::Index ki = static_cast<Eigen::Index>(k);
  const DocumentsView view{n, h.start.data(), h.word.data(), h.value.data()};
  const std::vector<double> products = SumDocumentProducts(view, 0, nullptr);
  const Eigen::MatrixXd gram = Eigen::Map<const Eigen::MatrixXd>(products.data() + n * k, ki, ki);
  const double log_normaliser = LogVmfNormaliser(static_cast<int>(V()), config_.kappa1);
  if (ctx.collect) {
    collected_ = ctx.collected;
    for (auto& [j, block] : cols_) block.beta_sum += block.sphere.x;
  }

  // Per row block: sum of log pi(v_d | beta), of its variance, and of the log of the
  // average over the collected samples.
  KeyedPartials parts;
  for (SamRowBlock& rb : rows_) {
    std::vector<double>& p = parts[rb.id];
    p.assign(3, 0.0);
    for (std::size_t i = 0; i < rb.held_out.size(); ++i) {
      const std::size_t d = rb.held_out[i];
      const HeldOutLikelihood e =
          EstimateHeldOut(products.data() + d * k, gram, log_normaliser, config_, h.ids[d]);
      if (ctx.collect) rb.log_pred_sum[i] = LogAddExp(rb.log_pred_sum[i], e.log_likelihood);
      p[0] += e.log_likelihood;
      p[1] += e.variance;
      p[2] += collected_ > 0 ? rb.log_pred_sum[i] - std::log(static_cast<double>(collected_))
                             : e.log_likelihood;
    }
  }
  const std::vector<double> total = OrderedSum(*comm_, parts, 3);
  const double documents = static_cast<double>(n);
  SamTraceRow row;
  row.iteration = ctx.iteration;
  row.seconds = seconds_sampling();
  row.log_perplexity = -total[2] / documents;
  row.log_perplexity_sample = -total[0] / documents;
  row.log_perplexity_se = std::sqrt(total[1]) / documents;
  row.samples = collected_;
  row.theta_acceptance =
      proposed_ > 0 ? static_cast<double>(accepted_) / static_cast<double>(proposed_) : 0.0;
  row.theta_step = theta_step_;
  row.thermostat = sampler_.thermostat();
  accepted_ = proposed_ = 0;
  if (comm_->rank() == 0) {
    trace_.push_back(row);
    if (ctx.collect) draws_.Add({total[0], row.log_perplexity_sample, row.thermostat});
  }
  eval_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The mean of the collected samples of each topic (the current topics before any), then
// normalised: a direction on the sphere, as the samples are.
std::vector<double> SamModel::Impl::TopicMeanDirections() {
  const std::size_t k = K();
  KeyedPartials norms;
  std::map<int, Eigen::MatrixXd> means;
  for (const auto& [j, block] : cols_) {
    Eigen::MatrixXd mean =
        collected_ > 0 ? Eigen::MatrixXd(block.beta_sum / collected_) : block.sphere.x;
    std::vector<double>& p = norms[j];
    p.resize(k);
    for (std::size_t r = 0; r < k; ++r) p[r] = mean.row(static_cast<Eigen::Index>(r)).squaredNorm();
    means[j] = std::move(mean);
  }
  const std::vector<double> total = OrderedSum(*comm_, norms, k);
  ByteWriter out;
  for (auto& [j, mean] : means) {
    for (std::size_t r = 0; r < k; ++r)
      mean.row(static_cast<Eigen::Index>(r)) /= std::sqrt(total[r]);
    out.Put<std::int64_t>(j);
    out.PutArray(mean.data(), static_cast<std::size_t>(mean.size()));
  }
  const std::vector<std::string> parts = comm_->GatherToRoot(out.Take());
  std::vector<double> directions;
  if (comm_->rank() != 0) return directions;
  directions.assign(k * V(), 0.0);
  for (const std::string& part : parts) {
    ByteReader in(part);
    while (!in.done()) {
      const int j = static_cast<int>(in.Get<std::int64_t>());
      const std::vector<double> values = in.GetVector<double>();
      const auto& words = grid_->cols().Members(j);
      for (std::size_t c = 0; c < words.size(); ++c)
        for (std::size_t r = 0; r < k; ++r) directions[r * V() + words[c]] = values[c * k + r];
    }
  }
  return directions;
}

}  // namespace carousel
