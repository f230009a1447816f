// DpmixModel: the minibatched slice sampler of dpmix_model.hpp on the tile engine. Here:
// construction, the row-blocks' observations, the TileModel interface over Impl,
// checkpoints and the fingerprint; the iteration is in dpmix_step.cpp, the evaluation and
// posterior summaries in dpmix_evaluation.cpp, the survey of the data in dpmix_survey.cpp.
#include "carousel/model/dpmix/dpmix_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>

#include "carousel/sampler/scir.hpp"
#include "carousel/sampler/simplex_sgrld.hpp"
#include "carousel/util/byte_buffer.hpp"
#include "carousel/util/error.hpp"
#include "carousel/util/keyed_rng.hpp"
#include "dpmix_model_impl.hpp"

namespace carousel {

using dpmix_detail::kNoComponent;
using dpmix_detail::Observations;
using dpmix_detail::Role;
using dpmix_detail::RoleOf;
using dpmix_detail::RowBlock;
using dpmix_detail::SurveyRows;

namespace {

void PutObsState(ByteWriter& out, const RowBlock& rb) {
  out.PutVector(rb.z);
  std::vector<std::uint64_t> flat;
  for (const auto& m : rb.mode) {
    flat.push_back(m.size());
    for (const auto& [s, c] : m) {
      flat.push_back(s);
      flat.push_back(c);
    }
  }
  out.PutVector(flat);
  out.PutVector(rb.log_pred_sum);
  out.PutVector(rb.held_best);
  out.PutVector(rb.phi_sum);
}

}  // namespace

Observations DpmixModel::Impl::Build(const std::vector<std::uint32_t>& ids) const {
  Observations o;
  o.id = ids;
  const std::size_t Bs = static_cast<std::size_t>(B());
  o.start.assign(ids.size() * Bs + 1, 0);
  const double d_cat = static_cast<double>(corpus_.vocabulary), a = config_.a;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const std::uint32_t d = ids[i];
    std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>> by_block(Bs);
    double n = 0.0, log_coef = 0.0, log_dm = 0.0;
    for (std::uint64_t e = corpus_.doc_start[d]; e < corpus_.doc_start[d + 1]; ++e) {
      const std::uint32_t w = corpus_.word[e], c = corpus_.count[e];
      by_block[static_cast<std::size_t>(grid_->cols().BlockOf(w))].push_back(
          {grid_->cols().LocalIndex(w), c});
      n += c;
      log_coef -= std::lgamma(c + 1.0);
      log_dm += std::lgamma(a + c) - std::lgamma(a);
    }
    log_coef += std::lgamma(n + 1.0);
    log_dm += std::lgamma(d_cat * a) - std::lgamma(d_cat * a + n) + log_coef;
    for (std::size_t j = 0; j < Bs; ++j) {
      for (const auto& [w, c] : by_block[j]) {
        o.cat.push_back(w);
        o.cnt.push_back(c);
      }
      o.start[i * Bs + j + 1] = o.cat.size();
    }
    o.n.push_back(n);
    o.log_coef.push_back(log_coef);
    o.log_dirmult.push_back(log_dm);
  }
  return o;
}

std::vector<std::uint64_t> DpmixModel::Impl::Attach(const TileRun& run) {
  comm_ = run.comm;
  grid_ = run.grid;
  layout_ = run.layout;
  seconds_running_ = run.seconds_running;
  survey_ = given_survey_ ? *given_survey_ : SurveyRows(corpus_, config_, grid_, 0, B());
  if (survey_.train == 0) return survey_.stratum_sizes;  // the command reports it
  alpha_ = config_.alpha_shape / config_.alpha_rate;     // the prior mean, until FinishInit
  for (int k = 0; k < config_.init_components; ++k) serial_.push_back(next_serial_++);
  g_.assign(K(), 1.0);
  m_.assign(K(), 0.0);
  w_sum_.assign(K(), 0.0);
  present_.assign(K(), 0.0);
  for (int b : run.row_blocks) {
    RowBlock rb;
    rb.id = b;
    std::vector<std::uint32_t> train, held;
    for (std::uint32_t d : grid_->rows().Members(b)) {
      const Role role = RoleOf(corpus_, d, config_.test_fraction, config_.chain.split_seed);
      if (role == Role::kTrain) train.push_back(d);
      if (role == Role::kHeldOut) held.push_back(d);
    }
    rb.train = Build(train);
    rb.held = Build(held);
    for (std::uint32_t d : train)  // spread over the initial components, keyed by id
      rb.z.push_back(KeyedStream(config_.chain.seed, Purpose::kInitRow, d, 0).below(K()));
    rb.mode.resize(train.size());
    rb.log_pred_sum.assign(held.size(), -INFINITY);
    rb.held_best.assign(held.size(), kNoComponent);
    rb.phi_sum.assign(K() * Words(b), 0.0);
    rows_.push_back(std::move(rb));
  }
  return survey_.stratum_sizes;
}

std::string DpmixModel::Impl::Fingerprint() const {
  std::ostringstream s;
  s << "observations=" << corpus_.documents << " categories=" << corpus_.vocabulary
    << " entries=" << survey_.entries << " held_out=" << survey_.held_out
    << " data_crc=" << std::hex << survey_.checksum << std::dec << " tiles=" << B()
    << " sampler=" << SimplexSamplerName(config_.sampler) << " seed=" << config_.chain.seed
    << " split_seed=" << config_.chain.split_seed;
  return s.str();
}

// ---- DpmixModel over Impl.

DpmixModel::DpmixModel(const DpmixConfig& config, const Corpus& corpus)
    : impl_(std::make_unique<Impl>(config, corpus, std::nullopt)) {}
DpmixModel::DpmixModel(const DpmixConfig& config, const Corpus& share, const DpmixSurvey& survey)
    : impl_(std::make_unique<Impl>(config, share, survey)) {}
DpmixModel::~DpmixModel() = default;

std::uint32_t DpmixModel::grid_rows() const {
  return impl_->corpus_.documents;
}
std::uint32_t DpmixModel::grid_cols() const {
  return impl_->corpus_.vocabulary;
}
std::vector<std::uint64_t> DpmixModel::Attach(const TileRun& run) {
  return impl_->Attach(run);
}
void DpmixModel::InitColBlock(int j) {
  std::vector<double>& theta = impl_->cols_[j];
  theta.clear();
  for (std::uint64_t s : impl_->serial_) impl_->AppendFreshRow(j, theta, s);
}
// The initial weights: g_k ~ Gamma(m_k, 1) and g_rest ~ Gamma(alpha, 1), the draw (D1) of
// the header given the initial allocations; empty initial components are dropped.
void DpmixModel::FinishInit() {
  Impl& m = *impl_;
  if (m.survey_.train == 0) return;
  m.CountAllocations();
  KeyedStream rng(m.config_.chain.seed, Purpose::kDpWeights, 1, 0);
  for (std::size_t k = 0; k < m.K(); ++k) m.g_[k] = m.m_[k] > 0 ? rng.gamma(m.m_[k]) : 0.0;
  m.g_rest_ = std::max(rng.gamma(m.alpha_), kScirFloor);
  for (std::size_t k = m.K(); k-- > 0;)
    if (m.m_[k] == 0.0) m.RemoveComponent(k);
  m.RefreshTotals();
}
void DpmixModel::UpdateTiles(const IterationContext& ctx) {
  impl_->Iterate(ctx.t, ctx.stratum);
}
std::string DpmixModel::TakeColBlock(int j) {
  const auto it = impl_->cols_.find(j);
  if (it == impl_->cols_.end()) throw Error(ExitCode::kInternal, "column block not held here");
  std::string bytes(reinterpret_cast<const char*>(it->second.data()),
                    it->second.size() * sizeof(double));
  impl_->cols_.erase(it);
  return bytes;
}
void DpmixModel::PutColBlock(int j, const std::string& bytes) {
  std::vector<double> theta(impl_->K() * impl_->Words(j));
  if (bytes.size() != theta.size() * sizeof(double))
    throw Error(ExitCode::kCheckpoint,
                "dpmix: component block " + std::to_string(j) + " of unexpected size");
  std::memcpy(theta.data(), bytes.data(), bytes.size());
  impl_->cols_[j] = std::move(theta);
}
std::size_t DpmixModel::ColBlockBytes(int j) const {
  return impl_->K() * impl_->Words(j) * sizeof(double);
}
void DpmixModel::Evaluate(const EvaluationContext& ctx) {
  impl_->Evaluate(ctx);
}
bool DpmixModel::AllFinite() const {
  return impl_->finite_;
}
std::string DpmixModel::DivergenceHint(std::uint64_t t) const {
  return "NaN or infinity in the component parameters or weights at step " +
         std::to_string(impl_->config_.step.At(t)) +
         "; reduce --step or use --sampler scir, which has no discretisation error";
}
std::string DpmixModel::Fingerprint() const {
  return impl_->Fingerprint();
}
std::string DpmixModel::SaveRowBlock(int id) const {
  for (const RowBlock& rb : impl_->rows_)
    if (rb.id == id) {
      ByteWriter out;
      PutObsState(out, rb);
      return out.Take();
    }
  throw Error(ExitCode::kInternal, "dpmix: row-block not held here");
}
void DpmixModel::RestoreRowBlock(int id, const std::string& bytes) {
  for (RowBlock& rb : impl_->rows_) {
    if (rb.id != id) continue;
    ByteReader in(bytes);
    auto z = in.GetVector<std::uint64_t>();
    const auto flat = in.GetVector<std::uint64_t>();
    auto log_pred_sum = in.GetVector<double>();
    auto held_best = in.GetVector<std::uint64_t>();
    auto phi_sum = in.GetVector<double>();
    if (z.size() != rb.z.size() || log_pred_sum.size() != rb.log_pred_sum.size() ||
        phi_sum.size() != impl_->K() * impl_->Words(id))
      throw Error(ExitCode::kCheckpoint, "checkpoint: dpmix row-block does not match the data");
    for (std::uint64_t s : z) impl_->IndexOf(s);  // every allocation names a component
    rb.z = std::move(z);
    std::size_t at = 0;
    for (auto& m : rb.mode) {
      m.clear();
      for (std::uint64_t n = flat.at(at++); n > 0; --n, at += 2)
        m[flat.at(at)] = static_cast<std::uint32_t>(flat.at(at + 1));
    }
    rb.log_pred_sum = std::move(log_pred_sum);
    rb.held_best = std::move(held_best);
    rb.phi_sum = std::move(phi_sum);
    return;
  }
  throw Error(ExitCode::kInternal, "dpmix: row-block not held here");
}
std::string DpmixModel::SaveColBlock(int j) const {
  const auto& theta = impl_->cols_.at(j);
  return std::string(reinterpret_cast<const char*>(theta.data()), theta.size() * sizeof(double));
}
void DpmixModel::RestoreColBlock(int j, const std::string& bytes) {
  PutColBlock(j, bytes);
}
std::string DpmixModel::SaveGlobal() const {
  const Impl& m = *impl_;
  ByteWriter out;
  out.PutVector(m.serial_);
  out.PutVector(m.g_);
  out.Put(m.g_rest_);
  out.Put(m.alpha_);
  out.Put(m.next_serial_);
  out.PutVector(m.m_);
  out.PutVector(m.w_sum_);
  out.PutVector(m.present_);
  out.Put(m.collected_);
  out.Put(m.eval_seconds_);
  out.PutVector(m.trace_);
  return out.Take();
}
void DpmixModel::RestoreGlobal(const std::string& bytes) {
  Impl& m = *impl_;
  ByteReader in(bytes);
  m.serial_ = in.GetVector<std::uint64_t>();
  m.g_ = in.GetVector<double>();
  m.g_rest_ = in.Get<double>();
  m.alpha_ = in.Get<double>();
  m.next_serial_ = in.Get<std::uint64_t>();
  m.m_ = in.GetVector<double>();
  m.w_sum_ = in.GetVector<double>();
  m.present_ = in.GetVector<double>();
  m.collected_ = in.Get<std::uint64_t>();
  m.eval_seconds_ = in.Get<double>();
  m.trace_ = in.GetVector<DpmixTraceRow>();
  const std::size_t K = m.serial_.size();
  if (m.g_.size() != K || m.m_.size() != K || m.w_sum_.size() != K || m.present_.size() != K)
    throw Error(ExitCode::kCheckpoint, "checkpoint: dpmix components do not match");
  m.theta_total_.clear();
  m.cols_.clear();  // the blocks held at the restored stratum come next
}

const DpmixSurvey& DpmixModel::survey() const {
  return impl_->survey_;
}
const std::vector<DpmixTraceRow>& DpmixModel::trace() const {
  return impl_->trace_;
}
double DpmixModel::alpha() const {
  return impl_->alpha_;
}
std::size_t DpmixModel::occupied() const {
  return impl_->K();
}
std::vector<double> DpmixModel::weights() const {
  const double total = impl_->Total();
  std::vector<double> w;
  for (double g : impl_->g_) w.push_back(g / total);
  w.push_back(impl_->g_rest_ / total);
  return w;
}
std::vector<std::uint64_t> DpmixModel::serials() const {
  return impl_->serial_;
}
std::vector<std::uint64_t> DpmixModel::Allocations() const {
  std::vector<std::uint64_t> z(impl_->corpus_.documents, kNoComponent);
  for (const RowBlock& rb : impl_->rows_)
    for (std::size_t o = 0; o < rb.train.size(); ++o) z[rb.train.id[o]] = rb.z[o];
  return z;
}

double DpmixModel::seconds_sampling() const {
  return impl_->seconds_running_() - impl_->eval_seconds_;
}

}  // namespace carousel
