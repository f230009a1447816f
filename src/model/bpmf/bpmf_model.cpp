#include "carousel/model/bpmf/bpmf_model.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "bpmf_model_impl.hpp"
#include "carousel/io/text_output.hpp"
#include "carousel/model/bpmf/mf_defaults.hpp"
#include "carousel/sampler/block_codec.hpp"
#include "carousel/sampler/diagonal_metric.hpp"
#include "carousel/util/byte_buffer.hpp"
#include "carousel/util/crc64.hpp"
#include "carousel/util/error.hpp"

namespace carousel {
namespace {

std::vector<double> HyperToVector(const BpmfHyper& h) {
  return {h.tau, h.lambda_w, h.lambda_h, h.lambda_b, h.lambda_c};
}
BpmfHyper HyperFromVector(const std::vector<double>& v) {
  if (v.size() != 5) throw Error(ExitCode::kCheckpoint, "checkpoint: bad hyperparameters");
  return BpmfHyper{v[0], v[1], v[2], v[3], v[4]};
}

// Checkpoints hold the moment sums column-major, as they did when the sums were kept so:
// checkpoints written before and after the change resume alike. Converting costs a copy per
// checkpoint, where keeping them column-major cost a converted copy per evaluation.
void PutColMajor(ByteWriter& out, const MomentMatrix& m) {
  const Eigen::MatrixXd col_major = m;
  out.PutArray(col_major.data(), static_cast<std::size_t>(col_major.size()));
}
void GetColMajor(ByteReader& in, MomentMatrix& m) {
  Eigen::MatrixXd col_major(m.rows(), m.cols());
  in.GetArray(col_major.data(), static_cast<std::size_t>(col_major.size()));
  m = col_major;
}

}  // namespace

BpmfModel::Impl::Impl(const MfConfig& config, const MfProblem& problem, TileShare share)
    : config_(config),
      problem_(problem),
      share_(std::move(share)),
      sampler_(MakeSampler(config.sampler)),
      hyper_(config.priors.initial),
      sd_train_(problem.sd_train),
      draws_(BpmfDrawColumns(config, problem.test_count > 0)) {
  needs_information_ =
      config.sampler.metric && config.sampler.metric->needs_information_per_datum();
  lazy_ = config.lazy_rows && sampler_->composes_prior_steps() && !coupled();
  deferred_ = lazy_ && config.deferred_noise && sampler_->defers_noise();
  noise_every_ = DeferredNoiseSpan(config.step.a);
  ridge_ = config.ridge_move && config.priors.sample_hyper && config.priors.b0 > 0.0 &&
           !sampler_->remembers_past_iterates();
}

std::vector<std::uint64_t> BpmfModel::Impl::Attach(const TileRun& run) {
  comm_ = run.comm;
  grid_ = run.grid;
  layout_ = run.layout;
  seconds_running_ = run.seconds_running;
  BuildRowBlocks();
  InitialiseRowBlocks();
  PlanSamples();
  return StratumSizes();
}

std::vector<std::uint64_t> BpmfModel::Impl::StratumSizes() const {
  if (problem_.tiles != B() || problem_.stratum_sizes.size() != static_cast<std::size_t>(B()))
    throw Error(ExitCode::kInternal, "BpmfModel: the problem was summarised for " +
                                         std::to_string(problem_.tiles) + " tiles, the run has " +
                                         std::to_string(B()));
  return problem_.stratum_sizes;
}

// Each tile is filled from its parts in LocalOrder (the loader delivers them so), each
// part freed once copied: the share and the tiles are never both whole.
void BpmfModel::Impl::BuildRowBlocks() {
  const int first = layout_->FirstRowBlock(comm_->rank());
  rows_.resize(static_cast<std::size_t>(layout_->blocks_per_rank()));
  constexpr std::size_t kParts = TileShare::kPartsPerTile;
  if (share_.first_row_block != first || share_.parts.size() != rows_.size() * B() * kParts)
    throw Error(ExitCode::kInternal, "BpmfModel: the share is another rank's");
  for (std::size_t k = 0; k < rows_.size(); ++k) {
    BpmfRowBlock& rb = rows_[k];
    rb.id = first + static_cast<int>(k);
    const std::size_t n = grid_->rows().Members(rb.id).size();
    rb.tiles.resize(static_cast<std::size_t>(B()));
    rb.degree = Eigen::VectorXf::Zero(static_cast<Eigen::Index>(n));
    for (int j = 0; j < B(); ++j) {
      TileRatings& tile = rb.tiles[j];
      tile.row_start.assign(n + 1, 0);
      std::vector<LocalRating>* parts = &share_.parts[(k * B() + j) * kParts];
      std::size_t size = 0;
      for (std::size_t p = 0; p < kParts; ++p) {
        std::vector<LocalRating>& ratings = parts[p];
        if (!std::is_sorted(ratings.begin(), ratings.end(), LocalOrder))
          std::sort(ratings.begin(), ratings.end(), LocalOrder);
        for (std::size_t e = 0; e < ratings.size(); ++e) {
          if (e > 0 && !LocalOrder(ratings[e - 1], ratings[e]))
            throw Error(ExitCode::kInternal, "BpmfModel: a (user, item) pair rated twice");
          tile.row_start[ratings[e].row + 1]++;
        }
        size += ratings.size();
      }
      for (std::size_t r = 0; r < n; ++r) {
        rb.degree[static_cast<Eigen::Index>(r)] += static_cast<float>(tile.row_start[r + 1]);
        tile.row_start[r + 1] += tile.row_start[r];
      }
      tile.col.reserve(size);
      tile.value.reserve(size);
      for (std::size_t p = 0; p < kParts; ++p) {
        for (const LocalRating& r : parts[p]) {
          tile.col.push_back(r.col);
          tile.value.push_back(r.value);
        }
        std::vector<LocalRating>().swap(parts[p]);
      }
      tile.FindRowsAndColumnsWithData(grid_->cols().Members(j).size());
    }
  }
  col_degree_.resize(static_cast<std::size_t>(B()));
  for (int j = 0; j < B(); ++j) {
    const auto& members = grid_->cols().Members(j);
    col_degree_[j] = Eigen::VectorXf::Zero(static_cast<Eigen::Index>(members.size()));
    for (std::size_t c = 0; c < members.size(); ++c)
      col_degree_[j][static_cast<Eigen::Index>(c)] =
          static_cast<float>(problem_.col_degree[members[c]]);
  }
  // Test ratings go with their user's row-block; unknown users with row-block 0.
  for (std::uint32_t k = 0; k < problem_.test.size(); ++k) {
    const TestRating& t = problem_.test[k];
    const int i = t.row == kUnknownId ? 0 : grid_->rows().BlockOf(t.row);
    if (!IsMine(i)) continue;
    BpmfRowBlock& rb = rows_[static_cast<std::size_t>(i - first)];
    rb.test.push_back(
        {t.row == kUnknownId ? kUnknownId : grid_->rows().LocalIndex(t.row), t.col, t.value});
    rb.test_index.push_back(static_cast<std::uint32_t>(problem_.test_index[k]));
  }
}

BlockState BpmfModel::Impl::FreshBlock(const std::vector<std::uint32_t>& members,
                                       Purpose purpose) const {
  const int k = config_.shape.rank;
  BlockState block;
  block.theta = Matrix::Zero(static_cast<Eigen::Index>(members.size()), config_.shape.width());
  for (std::size_t r = 0; r < members.size(); ++r) {
    KeyedStream stream(config_.chain.seed, purpose, members[r], 0);
    for (int f = 0; f < k; ++f)
      block.theta(static_cast<Eigen::Index>(r), f) =
          static_cast<float>(config_.init_sd * stream.normal());
  }
  sampler_->InitAux(block);
  if (lazy_) block.row_clock.assign(members.size(), 0);
  return block;
}

void BpmfModel::Impl::InitialiseRowBlocks() {
  for (BpmfRowBlock& rb : rows_) {
    const auto& members = grid_->rows().Members(rb.id);
    rb.state = FreshBlock(members, Purpose::kInitRow);
    rb.lik = Matrix::Zero(rb.state.theta.rows(), rb.state.theta.cols());
    rb.sum = MomentMatrix::Zero(rb.state.theta.rows(), rb.state.theta.cols());
    rb.sum_sq = rb.sum;
    rb.pred_sum.assign(rb.test.size(), 0.0);
    rb.pred_sum_sq.assign(rb.test.size(), 0.0);
  }
  if (comm_->rank() == 0) {
    h_sum_ = MomentMatrix::Zero(problem_.cols, config_.shape.width());
    h_sum_sq_ = h_sum_;
  }
}
std::string BpmfModel::Impl::SaveRowBlock(int id) const {
  const BpmfRowBlock& rb = Row(id);
  ByteWriter row;
  row.PutBytes(EncodeBlock(rb.state));
  PutColMajor(row, rb.sum);
  PutColMajor(row, rb.sum_sq);
  row.PutVector(rb.pred_sum);
  row.PutVector(rb.pred_sum_sq);
  row.Put(rb.minibatch_sse);
  row.Put(rb.minibatch_count);
  row.PutVector(rb.weighted_squares);
  return row.Take();
}

void BpmfModel::Impl::RestoreRowBlock(int id, const std::string& bytes) {
  BpmfRowBlock& rb = Row(id);
  ByteReader in(bytes);
  rb.state = DecodeBlock(in.GetBytes());
  CheckClocks(rb.state);
  GetColMajor(in, rb.sum);
  GetColMajor(in, rb.sum_sq);
  rb.pred_sum = in.GetVector<double>();
  rb.pred_sum_sq = in.GetVector<double>();
  rb.minibatch_sse = in.Get<double>();
  rb.minibatch_count = in.Get<double>();
  if (!in.done()) rb.weighted_squares = in.GetVector<double>();  // absent before rows sat out
  if (rb.pred_sum.size() != rb.test.size())
    throw Error(ExitCode::kCheckpoint, "checkpoint: test predictions do not match");
}

// Hyperparameters, the sampler's global state, the samples collected, rank 0's moments of H,
// the trace, the kept draws and the iterations of the samples taken (--keep-samples).
std::string BpmfModel::Impl::SaveGlobal() const {
  ByteWriter out;
  out.PutVector(HyperToVector(hyper_));
  out.PutVector(sampler_->global_state());
  out.Put(collected_);
  PutColMajor(out, h_sum_);
  PutColMajor(out, h_sum_sq_);
  out.PutVector(trace_);
  out.PutVector(draws_.values());
  out.PutVector(samples_taken_);
  // The metric's current information (rows brought up to date before the next iteration
  // use it: a resumed run's outputs), whether every row is current, the iterations run.
  out.PutArray(information_w_.data(), static_cast<std::size_t>(information_w_.size()));
  out.PutArray(information_h_.data(), static_cast<std::size_t>(information_h_.size()));
  out.Put<std::uint8_t>(all_current_ ? 1 : 0);
  out.Put(now_);
  out.Put(noise_since_);
  return out.Take();
}

void BpmfModel::Impl::RestoreGlobal(const std::string& bytes) {
  ByteReader in(bytes);
  hyper_ = HyperFromVector(in.GetVector<double>());
  sampler_->set_global_state(in.GetVector<double>());
  collected_ = in.Get<std::uint64_t>();
  // Every rank reads rank 0's moments of H; only rank 0 keeps them.
  MomentMatrix sum(problem_.cols, config_.shape.width()), sum_sq(sum.rows(), sum.cols());
  GetColMajor(in, sum);
  GetColMajor(in, sum_sq);
  if (comm_->rank() == 0) {
    h_sum_ = std::move(sum);
    h_sum_sq_ = std::move(sum_sq);
  }
  trace_ = in.GetVector<TraceRow>();
  draws_.set_values(in.GetVector<double>());
  // Checkpoints from before --keep-samples end here: no sample was taken.
  samples_taken_ = in.done() ? std::vector<std::uint64_t>() : in.GetVector<std::uint64_t>();
  if (!in.done()) {  // checkpoints from before rows could sit out end above
    const std::vector<float> w = in.GetVector<float>(), h = in.GetVector<float>();
    information_w_ =
        Eigen::Map<const Eigen::VectorXf>(w.data(), static_cast<Eigen::Index>(w.size()));
    information_h_ =
        Eigen::Map<const Eigen::VectorXf>(h.data(), static_cast<Eigen::Index>(h.size()));
    all_current_ = in.Get<std::uint8_t>() != 0;
    now_ = in.Get<std::uint64_t>();
  }
  if (!in.done()) noise_since_ = in.Get<std::uint64_t>();  // from deferred noise on
  cols_.clear();  // the blocks held at the restored stratum come next (RestoreColBlock)
}

void BpmfModel::Impl::CheckClocks(const BlockState& block) const {
  if (lazy_ != (block.row_clock.size() == static_cast<std::size_t>(block.theta.rows())))
    throw Error(ExitCode::kCheckpoint, "checkpoint: a block's row clocks do not match this run");
}

std::string BpmfModel::Impl::Fingerprint() const {
  std::ostringstream s;
  s << "rows=" << problem_.rows << " cols=" << problem_.cols << " ratings=" << problem_.train_count
    << " test=" << problem_.test_count << " data_crc=" << std::hex
    << (problem_.train_checksum ^ problem_.test_checksum) << std::dec << " tiles=" << B()
    << " rank=" << config_.shape.rank << " bias=" << config_.shape.bias
    << " sampler=" << sampler_->name() << " seed=" << config_.chain.seed;
  if (lazy_) s << " rows=with-data";  // rows without data sit out (checkpoints carry clocks)
  if (deferred_) s << " noise=deferred";
  if (ridge_) s << " ridge-move";
  // Item blocks cut by ratings hold other items than blocks of equal item counts: a
  // checkpoint of one must not resume on the other.
  if (!problem_.col_weights.empty()) s << " item_blocks=by-ratings";
  return s.str();
}

// ---- BpmfModel: the TileModel interface over Impl.

BpmfModel::BpmfModel(const MfConfig& config, const MfProblem& problem, TileShare share)
    : problem_(problem), impl_(std::make_unique<Impl>(config, problem, std::move(share))) {}
BpmfModel::~BpmfModel() = default;

std::vector<std::uint64_t> BpmfModel::Attach(const TileRun& run) {
  return impl_->Attach(run);
}
void BpmfModel::InitColBlock(int j) {
  impl_->cols_[j] = impl_->FreshBlock(impl_->grid_->cols().Members(j), Purpose::kInitCol);
}
void BpmfModel::UpdateTiles(const IterationContext& ctx) {
  impl_->UpdateTiles(ctx);
}
void BpmfModel::UpdateRows(const IterationContext&) {
  if (!impl_->coupled()) impl_->LocalRowSteps();
}
void BpmfModel::EndIteration(const IterationContext& ctx) {
  const MfConfig& c = impl_->config_;
  impl_->now_ = ctx.t + 1;
  if (impl_->deferred_ && impl_->RowsSitOutAt(ctx.t) && (ctx.t + 1) % impl_->noise_every_ == 0)
    impl_->BringUpToDate(ctx.t + 1);  // the noise of a span is drawn at its end
  if (c.priors.sample_hyper && (ctx.t + 1) % c.hyper_every == 0) {
    impl_->BringUpToDate(ctx.t + 1);  // the precisions' conditional reads every row
    impl_->ResampleHyper(ctx.t);
  }
}
std::string BpmfModel::TakeColBlock(int j) {
  const auto it = impl_->cols_.find(j);
  if (it == impl_->cols_.end()) throw Error(ExitCode::kInternal, "column block not held here");
  std::string bytes = EncodeBlock(it->second);
  impl_->cols_.erase(it);
  return bytes;
}
void BpmfModel::PutColBlock(int j, const std::string& bytes) {
  impl_->cols_[j] = DecodeBlock(bytes);
}
std::size_t BpmfModel::ColBlockBytes(int j) const {
  const auto rows = static_cast<Eigen::Index>(impl_->grid_->cols().Members(j).size());
  return EncodedBlockSize(rows, impl_->config_.shape.width(), impl_->sampler_->aux_count(),
                          impl_->lazy_);
}
void BpmfModel::Evaluate(const EvaluationContext& ctx) {
  impl_->Evaluate(ctx);
}
void BpmfModel::CheckHealth() const {
  impl_->CheckChainHealth(impl_->trace_.back());
}
bool BpmfModel::AllFinite() const {
  return impl_->AllFinite();
}
std::string BpmfModel::DivergenceHint(std::uint64_t t) const {
  return "NaN or infinity in the factors. Reduce --step (now " +
         io::FormatReal(impl_->config_.step.At(t)) +
         ") or use --sampler psgld, whose preconditioner adapts the step";
}
std::string BpmfModel::Fingerprint() const {
  return impl_->Fingerprint();
}
std::string BpmfModel::SaveRowBlock(int id) const {
  return impl_->SaveRowBlock(id);
}
void BpmfModel::RestoreRowBlock(int id, const std::string& bytes) {
  impl_->RestoreRowBlock(id, bytes);
}
std::string BpmfModel::SaveColBlock(int j) const {
  return EncodeBlock(impl_->cols_.at(j));
}
void BpmfModel::RestoreColBlock(int j, const std::string& bytes) {
  impl_->cols_[j] = DecodeBlock(bytes);
  impl_->CheckClocks(impl_->cols_[j]);
}
const DrawsTable& BpmfModel::draws() const {
  return impl_->draws_;
}
std::string BpmfModel::SaveGlobal() const {
  return impl_->SaveGlobal();
}
void BpmfModel::RestoreGlobal(const std::string& bytes) {
  impl_->RestoreGlobal(bytes);
}
std::uint64_t BpmfModel::ratings_held() const {
  std::uint64_t n = 0;
  for (const BpmfRowBlock& rb : impl_->rows_)
    for (const TileRatings& tile : rb.tiles) n += tile.size();
  return n;
}
namespace {

template <typename T>
std::uint64_t BytesOf(const std::vector<T>& v) {
  return v.capacity() * sizeof(T);
}
template <typename M>
std::uint64_t BytesOf(const M& m) {
  return static_cast<std::uint64_t>(m.size()) * sizeof(typename M::Scalar);
}
std::uint64_t BytesOf(const BlockState& b) {
  std::uint64_t n = BytesOf(b.theta);
  for (const Matrix& a : b.aux) n += BytesOf(a);
  return n;
}

}  // namespace

ModelFootprint BpmfModel::footprint() const {
  ModelFootprint f;
  for (const BpmfRowBlock& rb : impl_->rows_) {
    for (const TileRatings& tile : rb.tiles)
      f.data_bytes += BytesOf(tile.col) + BytesOf(tile.value) + BytesOf(tile.row_start);
    f.state_bytes += BytesOf(rb.state) + BytesOf(rb.lik) + BytesOf(rb.degree) + BytesOf(rb.sum) +
                     BytesOf(rb.sum_sq);
  }
  for (const auto& [j, block] : impl_->cols_) f.state_bytes += 2 * BytesOf(block);  // + gradient
  f.state_bytes += BytesOf(impl_->h_sum_) + BytesOf(impl_->h_sum_sq_);
  // The test ratings of this rank's row blocks (the problem's share, and the row blocks'
  // copies with their running prediction sums) are part of its data.
  f.data_bytes += BytesOf(problem_.test) + BytesOf(problem_.test_index);
  for (const BpmfRowBlock& rb : impl_->rows_)
    f.data_bytes +=
        BytesOf(rb.test) + BytesOf(rb.test_index) + BytesOf(rb.pred_sum) + BytesOf(rb.pred_sum_sq);
  // Held whole: the item degrees, H gathered for evaluations, and the grid's maps (block and
  // local index of every user and item, and the members).
  for (const Eigen::VectorXf& d : impl_->col_degree_) f.whole_bytes += BytesOf(d);
  f.whole_bytes += BytesOf(problem_.col_degree) + BytesOf(impl_->gathered_h_) +
                   BytesOf(impl_->gather_scratch_) +
                   3 * sizeof(std::uint32_t) * (std::uint64_t{problem_.rows} + problem_.cols);
  return f;
}

const std::vector<TraceRow>& BpmfModel::trace() const {
  return impl_->trace_;
}
const std::vector<std::uint64_t>& BpmfModel::samples_taken() const {
  return impl_->samples_taken_;
}
void BpmfModel::SetSampleSink(MfSampleSink* sink) {
  impl_->sample_sink_ = sink;
}
BpmfHyper BpmfModel::HyperPosteriorMean() const {
  std::vector<double> sum(5, 0.0);
  const auto n = static_cast<double>(ForEachKeptRow(impl_->trace_, [&](const TraceRow& row) {
    const std::vector<double> h = HyperToVector(row.hyper);
    for (std::size_t k = 0; k < sum.size(); ++k) sum[k] += h[k];
  }));
  if (n == 0.0)
    return BpmfHyper{std::nan(""), std::nan(""), std::nan(""), std::nan(""), std::nan("")};
  for (double& v : sum) v /= n;
  return HyperFromVector(sum);
}
double BpmfModel::NoiseVariancePosteriorMean() const {
  double sum = 0.0;
  const auto n = static_cast<double>(
      ForEachKeptRow(impl_->trace_, [&](const TraceRow& row) { sum += 1.0 / row.hyper.tau; }));
  return n > 0.0 ? sum / n : std::nan("");
}
MfPosterior BpmfModel::Posterior() {
  impl_->BringUpToDate(impl_->now_);  // the last sample of every row (after a stop, too)
  return impl_->Posterior();
}
void BpmfModel::ForEachUserSlice(const std::function<void(const UserSlice&)>& consume,
                                 std::uint32_t rows_per_slice) {
  impl_->BringUpToDate(impl_->now_);
  impl_->ForEachUserSlice(consume, rows_per_slice);
}

}  // namespace carousel
