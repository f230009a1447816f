// SAM as a tile model: set-up, one iteration (supplement Alg. 3 with main Eq. 10), travel
// and checkpoints. See sam_model.hpp.
#include "carousel/model/sam/sam_model.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "carousel/model/sam/sam_gradient.hpp"
#include "carousel/model/sam/topic_proportions.hpp"
#include "carousel/util/byte_buffer.hpp"
#include "carousel/util/error.hpp"
#include "carousel/util/keyed_rng.hpp"
#include "sam_model_impl.hpp"

namespace carousel {
namespace {

// MALA's acceptance rate that burn-in steers epsilon to (Roberts and Rosenthal 1998).
constexpr double kTargetAcceptance = 0.574;

DocumentsView ViewOf(const SamDocuments& d) {
  return {d.size(), d.start.data(), d.word.data(), d.value.data()};
}

}  // namespace

SamModel::Impl::Impl(const SamConfig& config, const TfIdfCorpus& share, const SamSurvey& survey)
    : config_(config),
      share_(share),
      survey_(survey),
      sampler_(config.sampler, config.friction, config.thermostat_initial),
      // The scale of eta's posterior is about 1 / sqrt(kappa1) (the likelihood's curvature);
      // burn-in adapts epsilon from there.
      theta_step_(1.0 / std::sqrt(config.kappa1 + config.alpha)) {}

double SamModel::Impl::q() const {
  return std::min(1.0, config_.minibatch / static_cast<double>(survey_.counts.train_documents));
}

SamRowBlock& SamModel::Impl::Row(int id) {
  return rows_[static_cast<std::size_t>(id - layout_->FirstRowBlock(comm_->rank()))];
}

std::vector<std::uint64_t> SamModel::Impl::Attach(const TileRun& run) {
  comm_ = run.comm;
  grid_ = run.grid;
  layout_ = run.layout;
  seconds_running_ = run.seconds_running;
  reduction_ = std::make_unique<OrderedReduction>(*comm_);
  const SamHeldOut& h = survey_.held_out;
  for (int i : run.row_blocks) {
    SamRowBlock rb;
    rb.id = i;
    std::vector<std::uint32_t> documents = grid_->rows().Members(i);
    std::sort(documents.begin(), documents.end());
    for (std::uint32_t d : documents) {
      if (SamRoleOf(share_, d, config_) != SamRole::kTrain) continue;
      const std::uint64_t begin = share_.doc_start[d], end = share_.doc_start[d + 1];
      rb.train.Add(d, share_.word.data() + begin, share_.value.data() + begin, end - begin);
    }
    // gamma_k = alpha: theta at its prior mean.
    rb.eta = Eigen::MatrixXd::Constant(static_cast<Eigen::Index>(K()),
                                       static_cast<Eigen::Index>(rb.train.size()),
                                       std::log(config_.alpha));
    for (std::size_t p = 0; p < h.ids.size(); ++p)
      if (h.row_block[p] == i) rb.held_out.push_back(p);
    rb.log_pred_sum.assign(rb.held_out.size(), -HUGE_VAL);
    rows_.push_back(std::move(rb));
  }
  // Column blocks do not travel, so the stratum schedule does not matter; equal weights.
  return std::vector<std::uint64_t>(static_cast<std::size_t>(B()), 1);
}

// Every topic starts at m plus an isotropic perturbation of about its own length, keyed by
// word so that it does not depend on the blocks; FinishInit normalises the rows.
SamColBlock SamModel::Impl::FreshBlock(int j) const {
  const auto& words = grid_->cols().Members(j);
  SamColBlock block;
  const Eigen::Index k = static_cast<Eigen::Index>(K());
  const Eigen::Index n = static_cast<Eigen::Index>(words.size());
  block.sphere.x.resize(k, n);
  block.sphere.v = Eigen::MatrixXd::Zero(k, n);
  block.beta_sum = Eigen::MatrixXd::Zero(k, n);
  const double noise = 1.0 / std::sqrt(static_cast<double>(V()));
  for (Eigen::Index c = 0; c < n; ++c) {
    KeyedStream rng(config_.chain.seed, Purpose::kInitCol, words[static_cast<std::size_t>(c)], 0);
    const double m = survey_.mean_direction[words[static_cast<std::size_t>(c)]];
    for (Eigen::Index r = 0; r < k; ++r) block.sphere.x(r, c) = m + noise * rng.normal();
  }
  return block;
}

void SamModel::Impl::FinishInit() {
  sampler_.Init(HeldBlocks(), config_.chain.seed, *reduction_);
}

SphereBlocks SamModel::Impl::HeldBlocks() {
  SphereBlocks blocks;
  for (auto& [j, block] : cols_) blocks.push_back({static_cast<std::uint64_t>(j), &block.sphere});
  return blocks;
}

// Each training document of a row block enters the minibatch with probability q; the gaps
// between chosen documents are geometric, keyed by (row block, iteration). Every rank then
// has every chosen document, in row-block order.
SamMinibatch SamModel::Impl::ShareMinibatch(std::uint64_t t) const {
  const double p = q();
  ByteWriter out;
  for (const SamRowBlock& rb : rows_) {
    const std::size_t n = rb.train.size();
    KeyedStream rng(config_.chain.seed, Purpose::kMinibatch, static_cast<std::uint64_t>(rb.id), t);
    const double log_miss = p < 1.0 ? std::log1p(-p) : 0.0;
    for (double position = -1.0;;) {
      position += p < 1.0 ? 1.0 + std::floor(std::log(rng.uniform()) / log_miss) : 1.0;
      if (position >= static_cast<double>(n)) break;
      const std::size_t d = static_cast<std::size_t>(position);
      const std::uint64_t begin = rb.train.start[d], end = rb.train.start[d + 1];
      out.Put<std::int64_t>(rb.id);
      out.Put<std::uint64_t>(d);
      out.Put<std::uint32_t>(rb.train.ids[d]);
      out.PutArray(rb.train.word.data() + begin, end - begin);
      out.PutArray(rb.train.value.data() + begin, end - begin);
    }
  }
  SamMinibatch batch;
  for (const std::string& part : comm_->AllGather(out.Take())) {
    ByteReader in(part);
    while (!in.done()) {
      batch.row_block.push_back(static_cast<int>(in.Get<std::int64_t>()));
      batch.local.push_back(static_cast<std::size_t>(in.Get<std::uint64_t>()));
      const std::uint32_t id = in.Get<std::uint32_t>();
      const std::vector<std::uint32_t> words = in.GetVector<std::uint32_t>();
      const std::vector<double> values = in.GetVector<double>();
      batch.docs.Add(id, words.data(), values.data(), words.size());
    }
  }
  return batch;
}

std::vector<double> SamModel::Impl::SumDocumentProducts(
    const DocumentsView& docs, std::size_t extra,
    const std::function<void(int, double*)>& add_extra) {
  const std::size_t k = K(), n = docs.size;
  const std::size_t width = n * k + k * k + extra;
  std::vector<const SamColBlock*> held(static_cast<std::size_t>(B()), nullptr);
  KeyedPartials partials;
  for (const auto& [j, block] : cols_) {
    held[static_cast<std::size_t>(j)] = &block;
    std::vector<double>& p = partials[j];
    p.assign(width, 0.0);
    const Eigen::MatrixXd gram = block.sphere.x * block.sphere.x.transpose();
    std::copy(gram.data(), gram.data() + k * k, p.data() + n * k);
    if (extra > 0) add_extra(j, p.data() + n * k + k * k);
  }
  const BlockPartition& cols = grid_->cols();
  for (std::size_t i = 0; i < n; ++i)
    for (std::uint64_t e = docs.start[i]; e < docs.start[i + 1]; ++e) {
      const std::uint32_t w = docs.word[e];
      const int j = cols.BlockOf(w);
      const SamColBlock* block = held[static_cast<std::size_t>(j)];
      if (!block) continue;
      const double* x = block->sphere.x.col(cols.LocalIndex(w)).data();
      double* s = partials[j].data() + i * k;
      for (std::size_t r = 0; r < k; ++r) s[r] += docs.value[e] * x[r];
    }
  return OrderedSum(*comm_, partials, width);
}

// grad U at the current x of `blocks` (main Eq. 10; the derivation is in sam_model.hpp).
void SamModel::Impl::Gradient(const SamMinibatch& batch, std::uint64_t t,
                              const SphereBlocks& blocks, std::vector<Eigen::MatrixXd>& grads) {
  const std::size_t k = K(), n = batch.docs.size();
  const Eigen::Index ki = static_cast<Eigen::Index>(k);
  const BlockPartition& cols = grid_->cols();
  // 1. s_d and G over all column blocks, and |mbar|^2.
  const std::vector<double> products =
      SumDocumentProducts(ViewOf(batch.docs), 1, [&](int j, double* out) {
        const Eigen::MatrixXd& x = cols_.at(j).sphere.x;
        const auto& words = cols.Members(j);
        double sum = 0.0;
        for (Eigen::Index c = 0; c < x.cols(); ++c) {
          const double mbar =
              config_.kappa0 * survey_.mean_direction[words[c]] + config_.sigma * x.col(c).sum();
          sum += mbar * mbar;
        }
        out[0] = sum;
      });
  const Eigen::Map<const Eigen::MatrixXd> gram(products.data() + n * k, ki, ki);
  const Eigen::MatrixXd gram_matrix = gram;
  const double mbar_norm = std::sqrt(products[n * k + k * k]);

  // 2. Each owner draws its documents' theta; the moments go to every rank.
  const std::size_t width = n * k + k * k + 2;
  KeyedPartials moments;
  for (const SamRowBlock& rb : rows_) moments[rb.id].assign(width, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    const int id = batch.row_block[i];
    if (layout_->RankOfRowBlock(id) != comm_->rank()) continue;
    SamRowBlock& rb = Row(id);
    Eigen::VectorXd eta = rb.eta.col(static_cast<Eigen::Index>(batch.local[i]));
    ProportionsTarget target;
    target.s = products.data() + i * k;
    target.gram = &gram_matrix;
    target.alpha = config_.alpha;
    target.kappa1 = config_.kappa1;
    const ProportionsMoments m = SampleProportions(target, eta, config_.theta_steps, theta_step_,
                                                   config_.chain.seed, batch.docs.ids[i], t);
    rb.eta.col(static_cast<Eigen::Index>(batch.local[i])) = eta;
    std::vector<double>& p = moments[id];
    std::copy(m.theta_over_n.data(), m.theta_over_n.data() + k, p.data() + i * k);
    for (std::size_t e = 0; e < k * k; ++e) p[n * k + e] += m.c_theta_theta.data()[e];
    p[n * k + k * k] += m.accepted;
    p[n * k + k * k + 1] += m.proposed;
  }
  const std::vector<double> total = OrderedSum(*comm_, moments, width);
  const double accepted = total[n * k + k * k], proposed = total[n * k + k * k + 1];
  accepted_ += static_cast<std::uint64_t>(accepted);
  proposed_ += static_cast<std::uint64_t>(proposed);
  // epsilon towards MALA's optimal acceptance with a diminishing gain (the conditional of
  // theta sharpens as the topics separate, so a step fixed after burn-in mixes ever more
  // slowly). Each MALA step is exact for any epsilon, and adaptation whose gain vanishes
  // keeps the chain ergodic (Roberts and Rosenthal 2007, diminishing adaptation).
  if (proposed > 0)
    theta_step_ *= std::exp(0.2 / std::sqrt(1.0 + static_cast<double>(t) / 100.0) *
                            (accepted / proposed - kTargetAcceptance));

  // 3. The gradient of each held block.
  SamGradientInputs in;
  in.theta_over_n = total.data();
  in.c_theta_theta = Eigen::Map<const Eigen::MatrixXd>(total.data() + n * k, ki, ki);
  in.scale = config_.kappa1 / q();
  in.prior = config_.sigma * VmfMeanResultantLength(static_cast<int>(V()), mbar_norm) / mbar_norm;
  in.kappa0 = config_.kappa0;
  in.sigma = config_.sigma;
  std::map<int, std::vector<BlockEntry>> entries;
  for (const SphereBlockRef& ref : blocks) entries[static_cast<int>(ref.id)];
  for (std::size_t i = 0; i < n; ++i)
    for (std::uint64_t e = batch.docs.start[i]; e < batch.docs.start[i + 1]; ++e) {
      const std::uint32_t w = batch.docs.word[e];
      const auto it = entries.find(cols.BlockOf(w));
      if (it != entries.end())
        it->second.push_back(
            {cols.LocalIndex(w), static_cast<std::uint32_t>(i), batch.docs.value[e]});
    }
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    const int j = static_cast<int>(blocks[b].id);
    std::vector<double> m_block;
    for (std::uint32_t w : cols.Members(j)) m_block.push_back(survey_.mean_direction[w]);
    SamBlockGradient(in, blocks[b].block->x, m_block, entries.at(j), grads[b]);
  }
}

void SamModel::Impl::UpdateTiles(std::uint64_t t) {
  const SamMinibatch batch = ShareMinibatch(t);
  sampler_.Step(HeldBlocks(), config_.step, config_.chain.seed, t, *reduction_,
                [&](const SphereBlocks& blocks, std::vector<Eigen::MatrixXd>& grads,
                    std::vector<Eigen::MatrixXd>*) { Gradient(batch, t, blocks, grads); });
}

std::string SamModel::Impl::Fingerprint() const {
  std::ostringstream s;
  s.precision(17);
  s << "documents=" << share_.documents << " words=" << share_.vocabulary.size()
    << " train=" << survey_.counts.train_documents
    << " held_out=" << survey_.counts.held_out_documents << " data_crc=" << std::hex
    << survey_.checksum << std::dec << " tiles=" << B() << " topics=" << config_.topics
    << " alpha=" << config_.alpha << " sigma=" << config_.sigma << " kappa0=" << config_.kappa0
    << " kappa1=" << config_.kappa1 << " sampler=" << sampler_.name() << " step=" << config_.step
    << " friction=" << config_.friction << " minibatch=" << config_.minibatch
    << " theta_steps=" << config_.theta_steps << " eval_draws=" << config_.eval_draws
    << " seed=" << config_.chain.seed << " split_seed=" << config_.chain.split_seed
    << " test_fraction=" << config_.test_fraction << " min_df=" << config_.tfidf.min_df
    << " max_df=" << config_.tfidf.max_df << " max_words=" << config_.tfidf.max_vocabulary;
  return s.str();
}

// ---- SamModel: the TileModel interface.

SamModel::SamModel(const SamConfig& config, const TfIdfCorpus& share, const SamSurvey& survey)
    : impl_(std::make_unique<Impl>(config, share, survey)) {}
SamModel::~SamModel() = default;

std::uint32_t SamModel::grid_rows() const {
  return impl_->share_.documents;
}
std::uint32_t SamModel::grid_cols() const {
  return static_cast<std::uint32_t>(impl_->share_.vocabulary.size());
}
std::vector<std::uint64_t> SamModel::Attach(const TileRun& run) {
  return impl_->Attach(run);
}
void SamModel::InitColBlock(int j) {
  impl_->cols_[j] = impl_->FreshBlock(j);
}
void SamModel::FinishInit() {
  impl_->FinishInit();
}
void SamModel::UpdateTiles(const IterationContext& ctx) {
  impl_->UpdateTiles(ctx.t);
}
void SamModel::EndIteration(const IterationContext&) {}

std::string SamModel::SaveColBlock(int j) const {
  const SamColBlock& block = impl_->cols_.at(j);
  ByteWriter out;
  out.PutArray(block.sphere.x.data(), static_cast<std::size_t>(block.sphere.x.size()));
  out.PutArray(block.sphere.v.data(), static_cast<std::size_t>(block.sphere.v.size()));
  out.PutArray(block.beta_sum.data(), static_cast<std::size_t>(block.beta_sum.size()));
  return out.Take();
}

void SamModel::RestoreColBlock(int j, const std::string& bytes) {
  SamColBlock block = impl_->FreshBlock(j);
  ByteReader in(bytes);
  in.GetArray(block.sphere.x.data(), static_cast<std::size_t>(block.sphere.x.size()));
  in.GetArray(block.sphere.v.data(), static_cast<std::size_t>(block.sphere.v.size()));
  in.GetArray(block.beta_sum.data(), static_cast<std::size_t>(block.beta_sum.size()));
  impl_->cols_[j] = std::move(block);
}

std::string SamModel::TakeColBlock(int j) {
  std::string bytes = SaveColBlock(j);
  impl_->cols_.erase(j);
  return bytes;
}
void SamModel::PutColBlock(int j, const std::string& bytes) {
  RestoreColBlock(j, bytes);
}
std::size_t SamModel::ColBlockBytes(int j) const {
  const std::size_t n = impl_->K() * impl_->grid_->cols().Members(j).size();
  return 3 * (sizeof(std::uint64_t) + n * sizeof(double));
}

std::string SamModel::SaveRowBlock(int id) const {
  const SamRowBlock& rb = impl_->rows_[static_cast<std::size_t>(
      id - impl_->layout_->FirstRowBlock(impl_->comm_->rank()))];
  ByteWriter out;
  out.PutArray(rb.eta.data(), static_cast<std::size_t>(rb.eta.size()));
  out.PutVector(rb.log_pred_sum);
  return out.Take();
}

void SamModel::RestoreRowBlock(int id, const std::string& bytes) {
  SamRowBlock& rb = impl_->Row(id);
  ByteReader in(bytes);
  in.GetArray(rb.eta.data(), static_cast<std::size_t>(rb.eta.size()));
  in.GetArray(rb.log_pred_sum.data(), rb.log_pred_sum.size());
}

std::string SamModel::SaveGlobal() const {
  const Impl& m = *impl_;
  ByteWriter out;
  out.Put<double>(m.sampler_.thermostat());
  out.Put<double>(m.theta_step_);
  out.Put<std::uint64_t>(m.accepted_);
  out.Put<std::uint64_t>(m.proposed_);
  out.Put<std::uint64_t>(m.collected_);
  out.Put<double>(m.eval_seconds_);
  out.PutVector(m.trace_);
  out.PutVector(m.draws_.values());
  return out.Take();
}

void SamModel::RestoreGlobal(const std::string& bytes) {
  Impl& m = *impl_;
  ByteReader in(bytes);
  m.sampler_.set_thermostat(in.Get<double>());
  m.theta_step_ = in.Get<double>();
  m.accepted_ = in.Get<std::uint64_t>();
  m.proposed_ = in.Get<std::uint64_t>();
  m.collected_ = in.Get<std::uint64_t>();
  m.eval_seconds_ = in.Get<double>();
  m.trace_ = in.GetVector<SamTraceRow>();
  m.draws_.set_values(in.GetVector<double>());
  m.cols_.clear();
}

bool SamModel::AllFinite() const {
  const Impl& m = *impl_;
  if (!std::isfinite(m.sampler_.thermostat())) return false;
  for (const auto& [j, block] : m.cols_)
    if (!block.sphere.x.allFinite() || !block.sphere.v.allFinite()) return false;
  for (const SamRowBlock& rb : m.rows_)
    if (!rb.eta.allFinite()) return false;
  return true;
}

std::string SamModel::DivergenceHint(std::uint64_t t) const {
  std::ostringstream s;
  s << "the topics, their velocities or the thermostat left the finite numbers at iteration "
    << t + 1 << " (step " << impl_->config_.step << ", friction " << impl_->config_.friction
    << "); try a smaller --step";
  return s.str();
}

std::string SamModel::Fingerprint() const {
  return impl_->Fingerprint();
}
void SamModel::Evaluate(const EvaluationContext& ctx) {
  impl_->Evaluate(ctx);
}
const SamCounts& SamModel::counts() const {
  return impl_->survey_.counts;
}
const std::vector<SamTraceRow>& SamModel::trace() const {
  return impl_->trace_;
}
const DrawsTable& SamModel::draws() const {
  return impl_->draws_;
}
std::uint64_t SamModel::samples() const {
  return impl_->collected_;
}
double SamModel::seconds_sampling() const {
  return impl_->seconds_sampling();
}
std::vector<double> SamModel::TopicMeanDirections() {
  return impl_->TopicMeanDirections();
}

ModelFootprint SamModel::footprint() const {
  const Impl& m = *impl_;
  ModelFootprint f;
  for (const SamRowBlock& rb : m.rows_) {
    f.data_bytes += rb.train.word.size() * (sizeof(std::uint32_t) + sizeof(double));
    f.state_bytes += static_cast<std::uint64_t>(rb.eta.size()) * sizeof(double);
  }
  f.data_bytes += m.survey_.held_out.word.size() * (sizeof(std::uint32_t) + sizeof(double));
  for (const auto& [j, block] : m.cols_)
    f.state_bytes += 3 * static_cast<std::uint64_t>(block.sphere.x.size()) * sizeof(double);
  return f;
}

}  // namespace carousel
