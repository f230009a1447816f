// AmfModel: alpha-stable NMF with mirroring on the tile engine (amf_model.hpp; HAMCMC
// Sec. 4.2, Eq. 14-15).
#include "carousel/model/amf/amf_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

#include "carousel/comm/ordered_sum.hpp"
#include "carousel/io/text_output.hpp"
#include "carousel/model/amf/amf_pieces.hpp"
#include "carousel/model/coupled_step.hpp"
#include "carousel/model/sample_plan.hpp"
#include "carousel/sampler/block_codec.hpp"
#include "carousel/util/byte_buffer.hpp"
#include "carousel/util/error.hpp"
#include "carousel/util/keyed_rng.hpp"

namespace carousel {
namespace {

// Phi's initial draw is keyed apart from the iterations' steps (iteration t uses t).
constexpr std::uint64_t kPhiInitIteration = std::numeric_limits<std::uint64_t>::max();

// Welford's update of a sum and a sum of squared deviations with draw number n (from 1):
// the deviation from the mean before and after the draw, in double.
void AddDraw(Eigen::MatrixXd& sum, Eigen::MatrixXd& m2, const Eigen::MatrixXd& x, std::uint64_t n) {
  if (n <= 1) {
    sum += x;  // the first draw: no deviation yet
    return;
  }
  const Eigen::MatrixXd before = x - sum / static_cast<double>(n - 1);
  sum += x;
  m2.array() += before.array() * (x - sum / static_cast<double>(n)).array();
}

}  // namespace

AmfModel::AmfModel(const AmfConfig& config, const MfProblem& problem, TileShare share)
    : config_(config),
      problem_(problem),
      share_(std::move(share)),
      sampler_(MakeSampler(config.sampler)),
      zero_precision_(Eigen::VectorXf::Zero(config.rank)),
      fixed_cols_(config.fixed_w.cols()) {
  if (fixed_cols_ > config.rank || (fixed_cols_ > 0 && config.fixed_w.rows() != problem.rows))
    throw Error(ExitCode::kInternal, "AmfModel: the fixed columns do not fit W");
  if (config.reconstruct &&
      (fixed_cols_ == 0 || problem.train_count != std::uint64_t{problem.rows} * problem.cols))
    throw Error(ExitCode::kInternal, "AmfModel: reconstruction needs dense data and fixed rows");
  // FNV-1a over the fixed values' bits: a resumed run must fix the same W.
  fixed_crc_ = 1469598103934665603ULL;
  for (Eigen::Index i = 0; i < config.fixed_w.size(); ++i) {
    std::uint32_t bits;
    const float f = config.fixed_w.data()[i];
    std::memcpy(&bits, &f, sizeof bits);
    fixed_crc_ = (fixed_crc_ ^ bits) * 1099511628211ULL;
  }
  // The model has no metric, so HAMCMC's Fisher H^0 (which needs one for its first step)
  // cannot be built; the registry refuses it before this, this is the model's own guard.
  if (sampler_->needs_fisher_after_step())
    throw SettingError("initial-metric", "carousel amf supplies no Fisher information");
  if (config.keep_samples > 0)
    sample_plan_ = SpreadSamples(config.chain.Resolved(), config.keep_samples);
}
AmfModel::~AmfModel() = default;

int AmfModel::B() const {
  return grid_->blocks();
}
AmfModel::RowBlock& AmfModel::Row(int id) {
  return rows_[static_cast<std::size_t>(id - layout_->FirstRowBlock(comm_->rank()))];
}
const AmfModel::RowBlock& AmfModel::Row(int id) const {
  return rows_[static_cast<std::size_t>(id - layout_->FirstRowBlock(comm_->rank()))];
}

std::uint64_t AmfModel::EntryId(const RowBlock& rb, int j, std::size_t r, std::uint32_t c) const {
  const std::uint64_t i = grid_->rows().Members(rb.id)[r];
  const std::uint64_t col = grid_->cols().Members(j)[c];
  return i * problem_.cols + col;
}

BlockState AmfModel::FreshBlock(const std::vector<std::uint32_t>& members, Purpose purpose,
                                const Matrix* leading) const {
  // Started near zero, v = (WH)_ij is tiny and the gradient x^2 v^(-2/alpha - 1) / (alpha Phi)
  // throws the factors far out, from where the chain takes long to return. So every factor
  // starts at the level c with K c^2 = mean(x)^alpha (|X| is of order v^(1/alpha), Eq. 14),
  // times a log-normal jitter exp(init_sd z).
  const double level = std::sqrt(
      std::pow(std::max(static_cast<double>(problem_.mu), 1e-3), config_.alpha) / config_.rank);
  BlockState block;
  block.theta = Matrix::Zero(static_cast<Eigen::Index>(members.size()), config_.rank);
  for (std::size_t r = 0; r < members.size(); ++r) {
    KeyedStream stream(config_.chain.seed, purpose, members[r], 0);
    for (int f = 0; f < config_.rank; ++f)
      block.theta(static_cast<Eigen::Index>(r), f) =
          static_cast<float>(level * std::exp(config_.init_sd * stream.normal()));
  }
  // Held columns (--fix-rows) are in place before the sampler's state is made from theta
  // (HAMCMC keeps past samples: its first gradient points must hold them too).
  if (leading != nullptr) block.theta.leftCols(leading->cols()) = *leading;
  sampler_->InitAux(block);
  return block;
}

std::vector<std::uint64_t> AmfModel::Attach(const TileRun& run) {
  comm_ = run.comm;
  grid_ = run.grid;
  layout_ = run.layout;
  seconds_running_ = run.seconds_running;
  if (problem_.tiles != B() || problem_.stratum_sizes.size() != static_cast<std::size_t>(B()))
    throw Error(ExitCode::kInternal, "AmfModel: the problem was summarised for another grid");
  const int first = layout_->FirstRowBlock(comm_->rank());
  rows_.resize(static_cast<std::size_t>(layout_->blocks_per_rank()));
  constexpr std::size_t kParts = TileShare::kPartsPerTile;
  if (share_.first_row_block != first || share_.parts.size() != rows_.size() * B() * kParts)
    throw Error(ExitCode::kInternal, "AmfModel: the share is another rank's");
  // The tiles as BPMF builds them (bpmf_model.cpp), with Phi beside each entry.
  for (std::size_t k = 0; k < rows_.size(); ++k) {
    RowBlock& rb = rows_[k];
    rb.id = first + static_cast<int>(k);
    const std::size_t n = grid_->rows().Members(rb.id).size();
    rb.tiles.resize(static_cast<std::size_t>(B()));
    rb.phi.resize(static_cast<std::size_t>(B()));
    for (int j = 0; j < B(); ++j) {
      TileRatings& tile = rb.tiles[j];
      tile.row_start.assign(n + 1, 0);
      std::vector<LocalRating>* parts = &share_.parts[(k * B() + j) * kParts];
      for (std::size_t p = 0; p < kParts; ++p) {
        std::vector<LocalRating>& ratings = parts[p];
        if (!std::is_sorted(ratings.begin(), ratings.end(), LocalOrder))
          std::sort(ratings.begin(), ratings.end(), LocalOrder);
        for (const LocalRating& r : ratings) tile.row_start[r.row + 1]++;
      }
      for (std::size_t r = 0; r < n; ++r) tile.row_start[r + 1] += tile.row_start[r];
      for (std::size_t p = 0; p < kParts; ++p) {
        for (const LocalRating& r : parts[p]) {
          tile.col.push_back(r.col);
          tile.value.push_back(r.value);
        }
        std::vector<LocalRating>().swap(parts[p]);
      }
      std::vector<double>& phi = rb.phi[j];
      phi.resize(tile.size());
      for (std::size_t r = 0; r < n; ++r)
        for (std::uint32_t e = tile.row_start[r]; e < tile.row_start[r + 1]; ++e) {
          KeyedStream stream(config_.chain.seed, Purpose::kStable, EntryId(rb, j, r, tile.col[e]),
                             kPhiInitIteration);
          phi[e] = AmfPhiPrior(config_.alpha, stream);
        }
    }
    const auto& members = grid_->rows().Members(rb.id);
    rb.fixed.resize(static_cast<Eigen::Index>(members.size()), fixed_cols_);
    for (std::size_t r = 0; r < members.size(); ++r)
      rb.fixed.row(static_cast<Eigen::Index>(r)) = config_.fixed_w.row(members[r]);
    rb.state = FreshBlock(members, Purpose::kInitRow, &rb.fixed);
    rb.lik = Matrix::Zero(rb.state.theta.rows(), rb.state.theta.cols());
    rb.sum = Eigen::MatrixXd::Zero(rb.state.theta.rows(), rb.state.theta.cols());
    rb.m2 = rb.sum;
    if (config_.reconstruct)
      for (const TileRatings& tile : rb.tiles) rb.recon.emplace_back(tile.size(), 0.0);
  }
  config_.fixed_w = Eigen::MatrixXf();  // each rank keeps its own rows only (rb.fixed)
  if (comm_->rank() == 0) h_sum_ = h_m2_ = Eigen::MatrixXd::Zero(problem_.cols, config_.rank);
  return problem_.stratum_sizes;
}

void AmfModel::InitColBlock(int j) {
  cols_[j] = FreshBlock(grid_->cols().Members(j), Purpose::kInitCol);
}

// Reflection at 0 (HAMCMC Sec. 4.2): the sampler's proposal replaced by its absolute value,
// with the sampler's memory of the step made consistent (Sampler::MirrorAtZero).
void AmfModel::Mirror(BlockState& block) const {
  if (config_.fault == AmfFault::kClipAtZero)
    block.theta = block.theta.cwiseMax(0.0f);
  else
    sampler_->MirrorAtZero(block);
}

bool AmfModel::coupled() const {
  return sampler_->pre_sum_count() > 0 || sampler_->post_sum_count() > 0 ||
         sampler_->needs_gradient_after_step();
}

// One pass over tile (rb, j) of the stratum. With w_phi, h_phi: first the Metropolis step
// of every Phi_ij at the current v = (WH)_ij from them (Eq. 15, prior proposal). Then the
// gradient of sum log N(x; 0, Phi v^(2/alpha)) at (w, h) (the sampler's gradient point),
// into lik_w, lik_h, with the Exponential priors' constant -lambda folded in (header).
void AmfModel::TilePass(RowBlock& rb, int j, const Matrix* w_phi, const Matrix* h_phi,
                        const Matrix& w, const Matrix& h, Matrix& lik_w, Matrix& lik_h) {
  const int k = config_.rank;
  const TileRatings& tile = rb.tiles[j];
  std::vector<double>& phi = rb.phi[j];
  const bool same_point = w_phi == &w && h_phi == &h;
  lik_w.setZero(w.rows(), w.cols());
  lik_h.setZero(h.rows(), h.cols());
  const std::size_t n = tile.row_start.size() - 1;
  for (std::size_t r = 0; r < n; ++r) {
    const auto row = static_cast<Eigen::Index>(r);
    const float* wr = w.row(row).data();
    for (std::uint32_t e = tile.row_start[r]; e < tile.row_start[r + 1]; ++e) {
      const std::uint32_t c = tile.col[e];
      const double x = tile.value[e];
      const double v = AmfScale(wr, h.row(c).data(), k);
      if (w_phi) {
        // Phi_ij | x, W, H: one Metropolis step with the prior as proposal (Eq. 15), at the
        // current W, H (HAMCMC's gradient point theta_{t-M} is not the current sample).
        const double v_now =
            same_point ? v : AmfScale(w_phi->row(row).data(), h_phi->row(c).data(), k);
        KeyedStream stream(config_.chain.seed, Purpose::kStable, EntryId(rb, j, r, c), t_);
        bool accepted = false;
        phi[e] = AmfPhiMetropolisStep(phi[e], x, v_now, config_.alpha, stream, PhiFault::kNone,
                                      &accepted, config_.likelihood);
        rb.accepted += accepted ? 1.0 : 0.0;
        rb.proposed += 1.0;
      }
      // d log N(x; 0, Phi v^(2/alpha)) / dv, then dv/dW_ik = H_kj, dv/dH_kj = W_ik.
      const float d = static_cast<float>(
          AmfEntryLogLikelihoodDv(x, v, phi[e], config_.alpha, config_.likelihood));
      lik_w.row(row) += d * h.row(c);
      lik_h.row(c) += d * w.row(row);
    }
  }
  // The Exponential priors' constant gradient -lambda, folded into the scaled sums (header).
  lik_w.array() -= static_cast<float>(config_.lambda_w / scale_);
  lik_h.array() -= static_cast<float>(config_.lambda_h / scale_);
  lik_w.leftCols(fixed_cols_).setZero();  // --fix-rows: no drift on the fixed columns
}

NoiseKey AmfModel::RowNoise(const RowBlock& rb) const {
  return NoiseKey{config_.chain.seed, Purpose::kNoiseRow, t_, &grid_->rows().Members(rb.id)};
}
NoiseKey AmfModel::ColNoise(int j) const {
  return NoiseKey{config_.chain.seed, Purpose::kNoiseCol, t_, &grid_->cols().Members(j)};
}

// The fixed columns of W (--fix-rows) put back after the row block's step (and its
// mirroring), through the sampler so that its state follows (HAMCMC's s_t).
void AmfModel::HoldFixed(RowBlock& rb) const {
  if (fixed_cols_ > 0) sampler_->HoldLeadingColumns(rb.state, rb.fixed);
}

void AmfModel::UpdateTiles(const IterationContext& ctx) {
  t_ = ctx.t;
  step_ = config_.step.At(ctx.t);
  const double stratum = static_cast<double>(ctx.stratum_size);
  batch_ = std::max(stratum, 1.0);
  scale_ = static_cast<double>(problem_.train_count) / batch_;
  if (coupled()) {
    CoupledStep(ctx);
    return;
  }
  // Samplers whose blocks update independently: the column blocks first, so that they
  // travel while the row blocks are updated (UpdateRows).
  Matrix lik_h;
  for (RowBlock& rb : rows_) {
    const int j = grid_->ColBlockInStratum(rb.id, ctx.stratum);
    BlockState& col = cols_.at(j);
    TilePass(rb, j, &rb.state.theta, &col.theta, rb.state.theta, col.theta, rb.lik, lik_h);
    sampler_->Step(col, BlockGradient{lik_h, scale_, batch_, zero_precision_}, step_, ColNoise(j));
    Mirror(col);
  }
}

void AmfModel::UpdateRows(const IterationContext&) {
  if (coupled()) return;  // CoupledStep moved them
  for (RowBlock& rb : rows_) {
    sampler_->Step(rb.state, BlockGradient{rb.lik, scale_, batch_, zero_precision_}, step_,
                   RowNoise(rb));
    Mirror(rb.state);
    HoldFixed(rb);
  }
}

// Samplers coupled across blocks (HAMCMC, SGNHT): every W and H block of the stratum through
// the Sampler protocol (model/coupled_step.hpp), keyed by row-block id 0..B-1 and column
// block B..2B-1 for the ordered sums, as BPMF. The gradient is taken at the sampler's
// gradient point (HAMCMC: theta_{t-M}); Phi's step stays at the current W, H.
//
// Mirroring comes right after StepWithSums and before AfterStep. The paper "applies
// mirroring at the end of each iteration" (HAMCMC Sec. 4.2; the reflected diffusion of
// Patterson and Teh 2013, Sec. 3.2): the sample theta_t is |proposal|. HAMCMC's L-BFGS pairs
// are made of samples, s_t = theta_t - theta_{t-M} and y_t = grad U~(theta_t) -
// grad U~(theta_{t-M}), so both must see the mirrored theta_t: MirrorAtZero moves the stored
// s_t with it, and the gradient after the step is taken at |proposal|. Mirroring after
// AfterStep would build the Hessian approximation from points the chain never visits
// (negative entries, where Eq. 15's v may not even be positive).
void AmfModel::CoupledStep(const IterationContext& ctx) {
  lik_h_.resize(rows_.size());
  std::vector<int> col_of(rows_.size());
  std::vector<CoupledBlock> blocks;
  blocks.reserve(2 * rows_.size());
  for (std::size_t i = 0; i < rows_.size(); ++i) {
    RowBlock& rb = rows_[i];
    const int j = col_of[i] = grid_->ColBlockInStratum(rb.id, ctx.stratum);
    BlockState& col = cols_.at(j);
    TilePass(rb, j, &rb.state.theta, &col.theta, sampler_->GradientPoint(rb.state),
             sampler_->GradientPoint(col), rb.lik, lik_h_[i]);
    blocks.push_back(
        {rb.id, &rb.state, BlockGradient{rb.lik, scale_, batch_, zero_precision_}, RowNoise(rb)});
    blocks.push_back(
        {B() + j, &col, BlockGradient{lik_h_[i], scale_, batch_, zero_precision_}, ColNoise(j)});
  }
  CoupledStepHooks hooks;
  hooks.after_move = [this](BlockState& block) {
    Mirror(block);
    for (RowBlock& rb : rows_)
      if (&rb.state == &block) HoldFixed(rb);
  };
  // The gradient at the new, mirrored point on the same minibatch (the whole tile) and the
  // same Phi; no Phi step.
  Matrix lik_w_new, lik_h_new;
  hooks.gradients_after_step = [&](std::size_t i, GradientsAfterStep& out) {
    RowBlock& rb = rows_[i];
    const int j = col_of[i];
    TilePass(rb, j, nullptr, nullptr, rb.state.theta, cols_.at(j).theta, lik_w_new, lik_h_new);
    out.at_new_point.push_back(BlockGradient{lik_w_new, scale_, batch_, zero_precision_});
    out.at_new_point.push_back(BlockGradient{lik_h_new, scale_, batch_, zero_precision_});
  };
  RunCoupledStep(*sampler_, *comm_, blocks, 2, step_, hooks);
}

std::string AmfModel::TakeColBlock(int j) {
  const auto it = cols_.find(j);
  if (it == cols_.end()) throw Error(ExitCode::kInternal, "column block not held here");
  std::string bytes = EncodeBlock(it->second);
  cols_.erase(it);
  return bytes;
}
void AmfModel::PutColBlock(int j, const std::string& bytes) {
  cols_[j] = DecodeBlock(bytes);
}
std::size_t AmfModel::ColBlockBytes(int j) const {
  const auto rows = static_cast<Eigen::Index>(grid_->cols().Members(j).size());
  return EncodedBlockSize(rows, config_.rank, sampler_->aux_count());
}

// All of H on every rank, items as rows in the input's order.
Matrix AmfModel::GatherColumns() {
  ByteWriter out;
  out.Put<std::int64_t>(static_cast<std::int64_t>(cols_.size()));
  for (const auto& [j, block] : cols_) {
    out.Put<std::int64_t>(j);
    out.PutArray(block.theta.data(), static_cast<std::size_t>(block.theta.size()));
  }
  Matrix h(problem_.cols, config_.rank);
  for (const std::string& part : comm_->AllGather(out.Take())) {
    ByteReader in(part);
    for (auto n = in.Get<std::int64_t>(); n > 0; --n) {
      const int j = static_cast<int>(in.Get<std::int64_t>());
      const auto& members = grid_->cols().Members(j);
      Matrix theta(static_cast<Eigen::Index>(members.size()), config_.rank);
      in.GetArray(theta.data(), static_cast<std::size_t>(theta.size()));
      for (std::size_t r = 0; r < members.size(); ++r)
        h.row(members[r]) = theta.row(static_cast<Eigen::Index>(r));
    }
  }
  return h;
}

// The log-likelihood of every training entry given W, H, Phi (Eq. 15) and the Phi acceptance
// rate, summed by row block in id order (OrderedSum): the same bits at any rank count.
void AmfModel::Evaluate(const EvaluationContext& ctx) {
  collected_ = ctx.collected;
  const Matrix h = GatherColumns();
  const int k = config_.rank;
  enum { kLogLik, kAccepted, kProposed, kWidth };
  KeyedPartials partials;
  for (RowBlock& rb : rows_) {
    std::vector<double> v(kWidth, 0.0);
    const auto& col_blocks = grid_->cols();
    for (int j = 0; j < B(); ++j) {
      const TileRatings& tile = rb.tiles[j];
      const auto& members = col_blocks.Members(j);
      const bool reconstruct = ctx.collect && config_.reconstruct;
      for (std::size_t r = 0; r + 1 < tile.row_start.size(); ++r) {
        const float* wr = rb.state.theta.row(static_cast<Eigen::Index>(r)).data();
        for (std::uint32_t e = tile.row_start[r]; e < tile.row_start[r + 1]; ++e) {
          const float* hc = h.row(members[tile.col[e]]).data();
          const double vij = AmfScale(wr, hc, k);
          v[kLogLik] += AmfEntryLogLikelihood(tile.value[e], vij, rb.phi[j][e], config_.alpha,
                                              config_.likelihood);
          if (!reconstruct) continue;
          // The alpha-Wiener mask of the fixed part (amf_model.hpp), times |x|.
          double fixed = 0.0;
          for (int f = 0; f < fixed_cols(); ++f) fixed += static_cast<double>(wr[f]) * hc[f];
          rb.recon[j][e] += fixed / vij * std::abs(static_cast<double>(tile.value[e]));
        }
      }
    }
    v[kAccepted] = rb.accepted;
    v[kProposed] = rb.proposed;
    rb.accepted = rb.proposed = 0.0;
    partials[rb.id] = v;
    if (ctx.collect) AddDraw(rb.sum, rb.m2, rb.state.theta.cast<double>(), ctx.collected);
  }
  const std::vector<double> total = OrderedSum(*comm_, partials, kWidth);
  if (ctx.collect && std::binary_search(sample_plan_.begin(), sample_plan_.end(), ctx.iteration))
    TakeSample(ctx.iteration, h);
  if (comm_->rank() != 0) return;
  if (ctx.collect) AddDraw(h_sum_, h_m2_, h.cast<double>(), ctx.collected);
  AmfTraceRow row;
  row.iteration = ctx.iteration;
  row.seconds = seconds_running_();
  row.log_likelihood = total[kLogLik];
  row.acceptance = total[kProposed] > 0 ? total[kAccepted] / total[kProposed]
                                        : std::numeric_limits<double>::quiet_NaN();
  row.samples = collected_;
  trace_.push_back(row);
}

bool AmfModel::AllFinite() const {
  for (const RowBlock& rb : rows_)
    if (!rb.state.theta.allFinite()) return false;
  for (const auto& [j, block] : cols_)
    if (!block.theta.allFinite()) return false;
  return true;
}

std::string AmfModel::DivergenceHint(std::uint64_t t) const {
  return "NaN or infinity in W or H. Reduce --step (now " + io::FormatReal(config_.step.At(t)) +
         ") or use --sampler psgld";
}

std::string AmfModel::Fingerprint() const {
  std::ostringstream s;
  s << "amf rows=" << problem_.rows << " cols=" << problem_.cols
    << " entries=" << problem_.train_count << " data_crc=" << std::hex << problem_.train_checksum
    << std::dec << " tiles=" << B() << " rank=" << config_.rank
    << " alpha=" << io::FormatReal(config_.alpha) << " sampler=" << sampler_->name()
    << " likelihood=" << (config_.likelihood == AmfLikelihood::kComplex ? "complex" : "real")
    << " fixed_cols=" << fixed_cols_ << " fixed_crc=" << std::hex << fixed_crc_ << std::dec
    << " reconstruct=" << config_.reconstruct << " seed=" << config_.chain.seed;
  return s.str();
}

std::string AmfModel::SaveRowBlock(int id) const {
  const RowBlock& rb = Row(id);
  ByteWriter out;
  out.PutBytes(EncodeBlock(rb.state));
  for (const std::vector<double>& phi : rb.phi) out.PutVector(phi);
  out.PutArray(rb.sum.data(), static_cast<std::size_t>(rb.sum.size()));
  out.PutArray(rb.m2.data(), static_cast<std::size_t>(rb.m2.size()));
  for (const std::vector<double>& recon : rb.recon) out.PutVector(recon);
  out.Put(rb.accepted);
  out.Put(rb.proposed);
  return out.Take();
}

void AmfModel::RestoreRowBlock(int id, const std::string& bytes) {
  RowBlock& rb = Row(id);
  ByteReader in(bytes);
  rb.state = DecodeBlock(in.GetBytes());
  for (std::size_t j = 0; j < rb.phi.size(); ++j) {
    std::vector<double> phi = in.GetVector<double>();
    if (phi.size() != rb.phi[j].size())
      throw Error(ExitCode::kCheckpoint, "checkpoint: Phi does not match the data");
    rb.phi[j] = std::move(phi);
  }
  in.GetArray(rb.sum.data(), static_cast<std::size_t>(rb.sum.size()));
  in.GetArray(rb.m2.data(), static_cast<std::size_t>(rb.m2.size()));
  for (std::vector<double>& recon : rb.recon) {
    std::vector<double> saved = in.GetVector<double>();
    if (saved.size() != recon.size())
      throw Error(ExitCode::kCheckpoint, "checkpoint: the reconstruction does not match the data");
    recon = std::move(saved);
  }
  rb.accepted = in.Get<double>();
  rb.proposed = in.Get<double>();
}

std::string AmfModel::SaveColBlock(int j) const {
  return EncodeBlock(cols_.at(j));
}
void AmfModel::RestoreColBlock(int j, const std::string& bytes) {
  cols_[j] = DecodeBlock(bytes);
}

std::string AmfModel::SaveGlobal() const {
  ByteWriter out;
  out.PutVector(sampler_->global_state());
  out.Put(collected_);
  out.PutArray(h_sum_.data(), static_cast<std::size_t>(h_sum_.size()));
  out.PutArray(h_m2_.data(), static_cast<std::size_t>(h_m2_.size()));
  out.PutVector(trace_);
  out.PutVector(samples_taken_);
  return out.Take();
}

void AmfModel::RestoreGlobal(const std::string& bytes) {
  ByteReader in(bytes);
  sampler_->set_global_state(in.GetVector<double>());
  collected_ = in.Get<std::uint64_t>();
  Eigen::MatrixXd sum(problem_.cols, config_.rank);
  in.GetArray(sum.data(), static_cast<std::size_t>(sum.size()));
  Eigen::MatrixXd m2(problem_.cols, config_.rank);
  in.GetArray(m2.data(), static_cast<std::size_t>(m2.size()));
  if (comm_->rank() == 0) {
    h_sum_ = std::move(sum);
    h_m2_ = std::move(m2);
  }
  trace_ = in.GetVector<AmfTraceRow>();
  // A checkpoint written before amf saved samples has none.
  samples_taken_ = in.done() ? std::vector<std::uint64_t>() : in.GetVector<std::uint64_t>();
  cols_.clear();
}

Eigen::MatrixXd AmfModel::GatherRowBlocks(
    const std::function<const Eigen::MatrixXd&(const RowBlock&)>& of, int cols) {
  ByteWriter out;
  out.Put<std::int64_t>(static_cast<std::int64_t>(rows_.size()));
  for (const RowBlock& rb : rows_) {
    out.Put<std::int64_t>(rb.id);
    out.PutArray(of(rb).data(), static_cast<std::size_t>(of(rb).size()));
  }
  const std::vector<std::string> parts = comm_->GatherToRoot(out.Take());
  if (comm_->rank() != 0) return {};
  Eigen::MatrixXd all = Eigen::MatrixXd::Zero(problem_.rows, cols);
  for (const std::string& part : parts) {
    ByteReader in(part);
    for (auto m = in.Get<std::int64_t>(); m > 0; --m) {
      const int id = static_cast<int>(in.Get<std::int64_t>());
      const auto& members = grid_->rows().Members(id);
      Eigen::MatrixXd block(static_cast<Eigen::Index>(members.size()), cols);
      in.GetArray(block.data(), static_cast<std::size_t>(block.size()));
      for (std::size_t r = 0; r < members.size(); ++r)
        all.row(members[r]) = block.row(static_cast<Eigen::Index>(r));
    }
  }
  return all;
}

void AmfModel::PosteriorMeans(Eigen::MatrixXd& w_mean, Eigen::MatrixXd& h_mean) {
  const double n =
      collected_ > 0 ? static_cast<double>(collected_) : std::numeric_limits<double>::quiet_NaN();
  Eigen::MatrixXd w_sum = GatherRowBlocks(
      [](const RowBlock& rb) -> const Eigen::MatrixXd& { return rb.sum; }, config_.rank);
  if (comm_->rank() != 0) return;
  w_mean = w_sum / n;
  h_mean = (h_sum_ / n).transpose();  // K x J
}

void AmfModel::PosteriorVariances(Eigen::MatrixXd& w_var, Eigen::MatrixXd& h_var) {
  const double n =
      collected_ > 0 ? static_cast<double>(collected_) : std::numeric_limits<double>::quiet_NaN();
  Eigen::MatrixXd w_m2 = GatherRowBlocks(
      [](const RowBlock& rb) -> const Eigen::MatrixXd& { return rb.m2; }, config_.rank);
  if (comm_->rank() != 0) return;
  w_var = w_m2 / n;
  h_var = (h_m2_ / n).transpose();  // K x J
}

// Dense data only (the constructor checks): every tile is full, so entry e of tile (rb, j)
// is local row e / |cols of j|, local column e % |cols of j|.
void AmfModel::Reconstruction(Eigen::MatrixXd& out) {
  if (!config_.reconstruct) throw Error(ExitCode::kInternal, "AmfModel: no reconstruction kept");
  const double n =
      collected_ > 0 ? static_cast<double>(collected_) : std::numeric_limits<double>::quiet_NaN();
  ByteWriter bytes;
  bytes.Put<std::int64_t>(static_cast<std::int64_t>(rows_.size()));
  for (const RowBlock& rb : rows_) {
    bytes.Put<std::int64_t>(rb.id);
    for (const std::vector<double>& recon : rb.recon) bytes.PutVector(recon);
  }
  const std::vector<std::string> parts = comm_->GatherToRoot(bytes.Take());
  if (comm_->rank() != 0) return;
  out = Eigen::MatrixXd::Zero(problem_.rows, problem_.cols);
  for (const std::string& part : parts) {
    ByteReader in(part);
    for (auto m = in.Get<std::int64_t>(); m > 0; --m) {
      const int id = static_cast<int>(in.Get<std::int64_t>());
      const auto& rows = grid_->rows().Members(id);
      for (int j = 0; j < B(); ++j) {
        const auto& cols = grid_->cols().Members(j);
        const std::vector<double> recon = in.GetVector<double>();
        if (recon.size() != rows.size() * cols.size())
          throw Error(ExitCode::kInternal, "AmfModel: a tile of the reconstruction is not full");
        for (std::size_t e = 0; e < recon.size(); ++e)
          out(rows[e / cols.size()], cols[e % cols.size()]) = recon[e] / n;
      }
    }
  }
}

}  // namespace carousel
