#include "carousel/model/bpmf/bpmf_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <sstream>

#include "carousel/comm/ordered_sum.hpp"
#include "carousel/io/text_output.hpp"
#include "carousel/model/bpmf/bpmf_health.hpp"
#include "carousel/sampler/block_codec.hpp"
#include "carousel/sampler/diagonal_metric.hpp"
#include "carousel/sampler/sampler.hpp"
#include "carousel/util/byte_buffer.hpp"
#include "carousel/util/crc64.hpp"
#include "carousel/util/error.hpp"

namespace carousel {
namespace {

// Everything one row-block carries: it never leaves its rank during a run.
struct RowBlock {
  int id = 0;
  BlockState state;
  Matrix lik;                             // this iteration's likelihood gradient
  std::vector<TileRatings> tiles;         // indexed by column block
  Eigen::VectorXf degree;                 // ratings of each row, for data-aware metrics
  Eigen::MatrixXd sum, sum_sq;            // posterior moments over collected samples
  std::vector<TestRating> test;           // row = local row (or kUnknownId), col = global column
  std::vector<std::uint32_t> test_index;  // position in MfProblem::test
  std::vector<double> pred_sum, pred_sum_sq;
  double minibatch_sse = 0.0;  // the last iteration's minibatch, for rmse_train
  double minibatch_count = 0.0;
};

std::vector<double> HyperToVector(const BpmfHyper& h) {
  return {h.tau, h.lambda_w, h.lambda_h, h.lambda_b, h.lambda_c};
}
BpmfHyper HyperFromVector(const std::vector<double>& v) {
  if (v.size() != 5) throw Error(ExitCode::kCheckpoint, "checkpoint: bad hyperparameters");
  return BpmfHyper{v[0], v[1], v[2], v[3], v[4]};
}

// Keys the curvature subset's hash apart from the minibatch's ("curvatur").
constexpr std::uint64_t kCurvatureSalt = 0x6375727661747572ULL;

double MeanPredictorRmse(const RatingMatrix& train, float mu) {
  double sse = 0.0;
  for (const Rating& r : train.entries) sse += (r.value - mu) * static_cast<double>(r.value - mu);
  return train.entries.empty() ? 0.0 : std::sqrt(sse / static_cast<double>(train.entries.size()));
}

}  // namespace

struct BpmfModel::Impl {
  Impl(const MfConfig& config, const MfProblem& problem)
      : config_(config),
        problem_(problem),
        sampler_(MakeSampler(config.sampler)),
        hyper_(config.priors.initial),
        sd_train_(MeanPredictorRmse(problem.train, problem.mu)) {
    needs_information_ =
        config.sampler.metric && config.sampler.metric->needs_information_per_datum();
  }

  int B() const { return grid_->blocks(); }
  bool IsMine(int row_block) const { return layout_->RankOfRowBlock(row_block) == comm_->rank(); }
  RowBlock& Row(int id) {
    return rows_[static_cast<std::size_t>(id - layout_->FirstRowBlock(comm_->rank()))];
  }
  const RowBlock& Row(int id) const {
    return rows_[static_cast<std::size_t>(id - layout_->FirstRowBlock(comm_->rank()))];
  }

  std::vector<std::uint64_t> Attach(const TileRun& run);
  std::vector<std::uint64_t> StratumSizes() const;
  void BuildRowBlocks();
  void InitialiseRowBlocks();
  BlockState FreshBlock(const std::vector<std::uint32_t>& members, Purpose purpose) const;
  std::string Fingerprint() const;

  struct IterationPlan;
  void Plan(const IterationContext& ctx);
  TileGradientResult TileLikelihood(const IterationPlan& plan, RowBlock& rb, int j, const Matrix& w,
                                    const Matrix& h, Matrix& lik_w, Matrix& lik_h,
                                    CurvatureSubset* curvature = nullptr) const;
  // The minibatch entries of tile (row block, j) at iteration t: the same on every rank.
  Subsample Minibatch(const IterationPlan& plan, int row_block, int j) const;
  NoiseKey RowNoise(const IterationPlan& plan, const RowBlock& rb) const;
  NoiseKey ColNoise(const IterationPlan& plan, int j) const;
  bool coupled() const {
    return sampler_->pre_sum_count() > 0 || sampler_->post_sum_count() > 0 ||
           sampler_->needs_gradient_after_step();
  }
  void UpdateTiles(const IterationContext& ctx);
  void LocalColumnSteps();
  void LocalRowSteps();
  void CoupledStep();
  void ResampleHyper(std::uint64_t t);
  void UpdateInformationPerDatum();
  void Evaluate(const EvaluationContext& ctx);
  void CheckChainHealth(const TraceRow& row) const;
  Matrix GatherColumns();
  bool AllFinite() const;
  std::string SaveGlobal() const;
  void RestoreGlobal(const std::string& bytes);
  std::string SaveRowBlock(int id) const;
  void RestoreRowBlock(int id, const std::string& bytes);
  MfPosterior Posterior();

  MfConfig config_;
  const MfProblem& problem_;
  Communicator* comm_ = nullptr;
  const TileGrid* grid_ = nullptr;
  const RankLayout* layout_ = nullptr;
  std::function<double()> seconds_running_;
  std::unique_ptr<Sampler> sampler_;
  std::vector<CurvatureSubset> curvature_;  // CoupledStep's scratch, one per local tile

  std::vector<RowBlock> rows_;
  std::map<int, BlockState> cols_;           // column blocks this rank holds now
  std::vector<Eigen::VectorXf> col_degree_;  // ratings of each item, by column block
  BpmfHyper hyper_;
  // ExpectedFisherMetric's tau m_c for row blocks (partner: H) and column blocks (partner: W),
  // from the current sample at the start of every iteration when the metric needs them.
  bool needs_information_ = false;
  Eigen::VectorXf information_w_, information_h_;
  double sd_train_;  // RMSE of predicting mu for every training rating
  // Share of the test predictions at the clip range at the last evaluation (NaN: no test).
  double clipped_share_ = std::numeric_limits<double>::quiet_NaN();
  std::uint64_t collected_ = 0;
  Eigen::MatrixXd h_sum_, h_sum_sq_;  // rank 0: posterior moments of H
  std::vector<TraceRow> trace_;
  std::unique_ptr<IterationPlan> plan_;  // of the iteration under way
};

std::vector<std::uint64_t> BpmfModel::Impl::Attach(const TileRun& run) {
  comm_ = run.comm;
  grid_ = run.grid;
  layout_ = run.layout;
  seconds_running_ = run.seconds_running;
  BuildRowBlocks();
  InitialiseRowBlocks();
  return StratumSizes();
}

std::vector<std::uint64_t> BpmfModel::Impl::StratumSizes() const {
  std::vector<std::uint64_t> sizes(static_cast<std::size_t>(B()), 0);
  for (const Rating& r : problem_.train.entries) {
    const int i = grid_->rows().BlockOf(r.row), j = grid_->cols().BlockOf(r.col);
    sizes[static_cast<std::size_t>(((j - i) % B() + B()) % B())]++;
  }
  return sizes;
}

void BpmfModel::Impl::BuildRowBlocks() {
  const int first = layout_->FirstRowBlock(comm_->rank());
  rows_.resize(static_cast<std::size_t>(layout_->blocks_per_rank()));
  // Bucket this rank's ratings by tile, then sort each tile by (row, column) so the
  // gradient pass walks W row by row and the entry order is fixed.
  struct Entry {
    std::uint32_t row, col;
    float value;
  };
  std::vector<std::vector<std::vector<Entry>>> buckets(rows_.size(),
                                                       std::vector<std::vector<Entry>>(B()));
  for (const Rating& r : problem_.train.entries) {
    const int i = grid_->rows().BlockOf(r.row);
    if (!IsMine(i)) continue;
    buckets[static_cast<std::size_t>(i - first)][grid_->cols().BlockOf(r.col)].push_back(
        {grid_->rows().LocalIndex(r.row), grid_->cols().LocalIndex(r.col), r.value});
  }
  for (std::size_t k = 0; k < rows_.size(); ++k) {
    RowBlock& rb = rows_[k];
    rb.id = first + static_cast<int>(k);
    const std::size_t n = grid_->rows().Members(rb.id).size();
    rb.tiles.resize(static_cast<std::size_t>(B()));
    for (int j = 0; j < B(); ++j) {
      auto& entries = buckets[k][j];
      std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
        return a.row != b.row ? a.row < b.row : a.col < b.col;
      });
      TileRatings& tile = rb.tiles[j];
      tile.row_start.assign(n + 1, 0);
      for (const Entry& e : entries) tile.row_start[e.row + 1]++;
      for (std::size_t r = 0; r < n; ++r) tile.row_start[r + 1] += tile.row_start[r];
      tile.col.reserve(entries.size());
      tile.value.reserve(entries.size());
      for (const Entry& e : entries) {
        tile.col.push_back(e.col);
        tile.value.push_back(e.value);
      }
      std::vector<Entry>().swap(entries);
    }
  }
  for (RowBlock& rb : rows_) {
    rb.degree =
        Eigen::VectorXf::Zero(static_cast<Eigen::Index>(grid_->rows().Members(rb.id).size()));
    for (const TileRatings& tile : rb.tiles)
      for (Eigen::Index r = 0; r < rb.degree.size(); ++r)
        rb.degree[r] += static_cast<float>(tile.row_start[r + 1] - tile.row_start[r]);
  }
  col_degree_.resize(static_cast<std::size_t>(B()));
  for (int j = 0; j < B(); ++j)
    col_degree_[j] =
        Eigen::VectorXf::Zero(static_cast<Eigen::Index>(grid_->cols().Members(j).size()));
  for (const Rating& r : problem_.train.entries)
    col_degree_[grid_->cols().BlockOf(r.col)][grid_->cols().LocalIndex(r.col)] += 1.0f;
  // Test ratings go with their user's row-block; unknown users with row-block 0.
  for (std::uint32_t k = 0; k < problem_.test.size(); ++k) {
    const TestRating& t = problem_.test[k];
    const int i = t.row == kUnknownId ? 0 : grid_->rows().BlockOf(t.row);
    if (!IsMine(i)) continue;
    RowBlock& rb = rows_[static_cast<std::size_t>(i - first)];
    rb.test.push_back(
        {t.row == kUnknownId ? kUnknownId : grid_->rows().LocalIndex(t.row), t.col, t.value});
    rb.test_index.push_back(k);
  }
}

BlockState BpmfModel::Impl::FreshBlock(const std::vector<std::uint32_t>& members,
                                       Purpose purpose) const {
  const int k = config_.shape.rank;
  BlockState block;
  block.theta = Matrix::Zero(static_cast<Eigen::Index>(members.size()), config_.shape.width());
  for (std::size_t r = 0; r < members.size(); ++r) {
    KeyedStream stream(config_.seed, purpose, members[r], 0);
    for (int f = 0; f < k; ++f)
      block.theta(static_cast<Eigen::Index>(r), f) =
          static_cast<float>(config_.init_sd * stream.normal());
  }
  sampler_->InitAux(block);
  return block;
}

void BpmfModel::Impl::InitialiseRowBlocks() {
  for (RowBlock& rb : rows_) {
    const auto& members = grid_->rows().Members(rb.id);
    rb.state = FreshBlock(members, Purpose::kInitRow);
    rb.lik = Matrix::Zero(rb.state.theta.rows(), rb.state.theta.cols());
    rb.sum = Eigen::MatrixXd::Zero(rb.state.theta.rows(), rb.state.theta.cols());
    rb.sum_sq = rb.sum;
    rb.pred_sum.assign(rb.test.size(), 0.0);
    rb.pred_sum_sq.assign(rb.test.size(), 0.0);
  }
  if (comm_->rank() == 0) {
    h_sum_ = Eigen::MatrixXd::Zero(problem_.train.cols, config_.shape.width());
    h_sum_sq_ = h_sum_;
  }
}

// What one iteration needs besides the blocks: stratum, step and the scaled gradient.
struct BpmfModel::Impl::IterationPlan {
  std::uint64_t t;
  int stratum, next;
  double step, batch, scale;
  Eigen::VectorXf prior_w, prior_h;
  const Eigen::VectorXf* information_w = nullptr;  // null unless the metric needs them
  const Eigen::VectorXf* information_h = nullptr;
};

void BpmfModel::Impl::Plan(const IterationContext& ctx) {
  plan_ = std::make_unique<IterationPlan>();
  IterationPlan& plan = *plan_;
  plan.t = ctx.t;
  plan.stratum = ctx.stratum;
  plan.next = ctx.next;
  plan.step = config_.step.At(ctx.t);
  plan.batch = config_.minibatch * static_cast<double>(ctx.stratum_size);
  plan.scale =
      plan.batch > 0 ? static_cast<double>(problem_.train.entries.size()) / plan.batch : 0.0;
  plan.prior_w = PriorPrecision(config_.shape, hyper_.lambda_w, hyper_.lambda_b);
  plan.prior_h = PriorPrecision(config_.shape, hyper_.lambda_h, hyper_.lambda_c);
  if (needs_information_) {
    plan.information_w = &information_w_;
    plan.information_h = &information_h_;
  }
}

// Likelihood gradients of tile (rb, j) at the given points, into rb.lik and lik_h.
TileGradientResult BpmfModel::Impl::TileLikelihood(const IterationPlan& plan, RowBlock& rb, int j,
                                                   const Matrix& w, const Matrix& h, Matrix& lik_w,
                                                   Matrix& lik_h,
                                                   CurvatureSubset* curvature) const {
  lik_w.setZero(w.rows(), w.cols());
  lik_h.setZero(h.rows(), h.cols());
  return AccumulateTileGradient(rb.tiles[j], w, h, config_.shape, problem_.mu,
                                static_cast<float>(hyper_.tau), Minibatch(plan, rb.id, j), lik_w,
                                lik_h, curvature);
}

Subsample BpmfModel::Impl::Minibatch(const IterationPlan& plan, int row_block, int j) const {
  return Subsample::For(config_.minibatch, config_.seed,
                        static_cast<std::uint64_t>(grid_->TileId(row_block, j)), plan.t);
}

NoiseKey BpmfModel::Impl::RowNoise(const IterationPlan& plan, const RowBlock& rb) const {
  return NoiseKey{config_.seed, Purpose::kNoiseRow, plan.t, &grid_->rows().Members(rb.id)};
}

NoiseKey BpmfModel::Impl::ColNoise(const IterationPlan& plan, int j) const {
  return NoiseKey{config_.seed, Purpose::kNoiseCol, plan.t, &grid_->cols().Members(j)};
}

void BpmfModel::Impl::UpdateTiles(const IterationContext& ctx) {
  if (needs_information_) UpdateInformationPerDatum();
  Plan(ctx);
  if (coupled())
    CoupledStep();
  else
    LocalColumnSteps();
}

// Samplers whose blocks update independently: the column blocks are updated first, so that
// they travel while the row-blocks are updated (LocalRowSteps).
void BpmfModel::Impl::LocalColumnSteps() {
  const IterationPlan& plan = *plan_;
  Matrix lik_h;
  for (RowBlock& rb : rows_) {
    const int j = grid_->ColBlockInStratum(rb.id, plan.stratum);
    BlockState& col = cols_.at(j);
    const TileGradientResult result =
        TileLikelihood(plan, rb, j, rb.state.theta, col.theta, rb.lik, lik_h);
    rb.minibatch_sse = result.sse;
    rb.minibatch_count = static_cast<double>(result.count);
    sampler_->Step(col,
                   BlockGradient{lik_h, plan.scale, plan.batch, plan.prior_h, &col_degree_[j],
                                 nullptr, plan.information_h},
                   plan.step, ColNoise(plan, j));
  }
}

void BpmfModel::Impl::LocalRowSteps() {
  const IterationPlan& plan = *plan_;
  for (RowBlock& rb : rows_)
    sampler_->Step(rb.state,
                   BlockGradient{rb.lik, plan.scale, plan.batch, plan.prior_w, &rb.degree, nullptr,
                                 plan.information_w},
                   plan.step, RowNoise(plan, rb));
}

// Samplers coupled across blocks (HAMCMC, SGNHT): all gradients first, then the sums
// over every block of the whole parameter vector (keyed by block id: row-blocks 0..B-1,
// column blocks B..2B-1, added in that order), the steps, the gradients at the new point
// if the sampler wants them, and the sums after the step.
void BpmfModel::Impl::CoupledStep() {
  const IterationPlan& plan = *plan_;
  struct Pair {
    RowBlock* rb;
    int j;
    BlockState* col;
    Matrix lik_h;
  };
  std::vector<Pair> pairs;
  for (RowBlock& rb : rows_) {
    const int j = grid_->ColBlockInStratum(rb.id, plan.stratum);
    pairs.push_back({&rb, j, &cols_.at(j), Matrix()});
  }
  // With --curvature-fraction < 1 the first pass also takes the gradient on the curvature
  // subset S of each tile (same residuals, same loads), and after the step only S is visited
  // again: the second pass costs that fraction of a full one.
  const bool subset = sampler_->needs_gradient_after_step() && config_.curvature_fraction < 1.0;
  std::vector<CurvatureSubset>& curvature = curvature_;  // kept: its buffers are reused
  if (subset) curvature.resize(pairs.size());
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    Pair& p = pairs[i];
    if (subset)
      curvature[i].subset =
          SystematicSubset::For(config_.curvature_fraction, config_.seed ^ kCurvatureSalt,
                                static_cast<std::uint64_t>(grid_->TileId(p.rb->id, p.j)), plan.t);
    const TileGradientResult result = TileLikelihood(
        plan, *p.rb, p.j, sampler_->GradientPoint(p.rb->state), sampler_->GradientPoint(*p.col),
        p.rb->lik, p.lik_h, subset ? &curvature[i] : nullptr);
    p.rb->minibatch_sse = result.sse;
    p.rb->minibatch_count = static_cast<double>(result.count);
  }
  auto w_gradient = [&](Pair& p) {
    return BlockGradient{p.rb->lik,     plan.scale, plan.batch,        plan.prior_w,
                         &p.rb->degree, nullptr,    plan.information_w};
  };
  auto h_gradient = [&](Pair& p) {
    return BlockGradient{p.lik_h,           plan.scale, plan.batch,        plan.prior_h,
                         &col_degree_[p.j], nullptr,    plan.information_h};
  };

  const auto pre_width = static_cast<std::size_t>(sampler_->pre_sum_count());
  std::vector<double> pre;
  if (pre_width > 0) {
    KeyedPartials partials;
    for (Pair& p : pairs) {
      auto& w = partials[p.rb->id];
      w.assign(pre_width, 0.0);
      sampler_->PreSums(p.rb->state, w_gradient(p), RowNoise(plan, *p.rb), w.data());
      auto& h = partials[B() + p.j];
      h.assign(pre_width, 0.0);
      sampler_->PreSums(*p.col, h_gradient(p), ColNoise(plan, p.j), h.data());
    }
    pre = OrderedSum(*comm_, partials, pre_width);
  }
  for (Pair& p : pairs) {
    sampler_->StepWithSums(p.rb->state, w_gradient(p), plan.step, RowNoise(plan, *p.rb),
                           pre.data());
    sampler_->StepWithSums(*p.col, h_gradient(p), plan.step, ColNoise(plan, p.j), pre.data());
  }
  if (sampler_->needs_gradient_after_step()) {
    // On the curvature subset S, which holds each minibatch entry with probability
    // 1 / stride, so (N / |minibatch|) stride scales its sums to unbiased estimates of the
    // minibatch's. Without a subset the pass has stride 1: the same bits as the gradient
    // pass (FusedPassMatchesSeparatePasses).
    const bool fisher_wanted = sampler_->needs_fisher_after_step();
    Matrix lik_w_new, lik_h_new;
    FisherSums fisher;
    for (std::size_t i = 0; i < pairs.size(); ++i) {
      Pair& p = pairs[i];
      const Matrix& w_new = p.rb->state.theta;
      const Matrix& h_new = p.col->theta;
      lik_w_new.setZero(w_new.rows(), w_new.cols());
      lik_h_new.setZero(h_new.rows(), h_new.cols());
      AccumulateSubsetGradient(p.rb->tiles[p.j], subset ? curvature[i].subset : SystematicSubset{},
                               Minibatch(plan, p.rb->id, p.j), w_new, h_new, config_.shape,
                               problem_.mu, static_cast<float>(hyper_.tau), lik_w_new, lik_h_new,
                               fisher_wanted ? &fisher : nullptr);
      const Matrix* fisher_w = fisher_wanted ? &fisher.w : nullptr;
      const Matrix* fisher_h = fisher_wanted ? &fisher.h : nullptr;
      const double scale =
          subset ? plan.scale * static_cast<double>(curvature[i].subset.stride) : plan.scale;
      const BlockGradient w_at_new{lik_w_new,    scale,         plan.batch,
                                   plan.prior_w, &p.rb->degree, fisher_w};
      const BlockGradient h_at_new{lik_h_new,         scale,   plan.batch, plan.prior_h,
                                   &col_degree_[p.j], fisher_h};
      if (subset) {
        const CurvatureSubset& cs = curvature[i];
        sampler_->AfterStep(
            p.rb->state, w_at_new,
            BlockGradient{cs.lik_w, scale, plan.batch, plan.prior_w, &p.rb->degree});
        sampler_->AfterStep(
            *p.col, h_at_new,
            BlockGradient{cs.lik_h, scale, plan.batch, plan.prior_h, &col_degree_[p.j]});
      } else {
        sampler_->AfterStep(p.rb->state, w_at_new);
        sampler_->AfterStep(*p.col, h_at_new);
      }
    }
  }
  const auto post_width = static_cast<std::size_t>(sampler_->post_sum_count());
  std::vector<double> post;
  if (post_width > 0) {
    KeyedPartials partials;
    for (Pair& p : pairs) {
      partials[p.rb->id].assign(post_width, 0.0);
      sampler_->PostSums(p.rb->state, partials[p.rb->id].data());
      partials[B() + p.j].assign(post_width, 0.0);
      sampler_->PostSums(*p.col, partials[B() + p.j].data());
    }
    post = OrderedSum(*comm_, partials, post_width);
  }
  sampler_->EndIteration(pre.data(), post.data(), plan.step);
}

void BpmfModel::Impl::ResampleHyper(std::uint64_t t) {
  // Partial sums keyed by row-block id (0..B-1) and column-block id (B..2B-1).
  enum { kSse, kCount, kSq, kBiasSq, kRows, kWidth };
  const int k = config_.shape.rank;
  auto block_sums = [&](const Matrix& theta, double sse, double count) {
    std::vector<double> v(kWidth, 0.0);
    v[kSse] = sse;
    v[kCount] = count;
    v[kSq] = theta.leftCols(k).cast<double>().squaredNorm();
    if (config_.shape.bias) v[kBiasSq] = theta.col(k).cast<double>().squaredNorm();
    v[kRows] = static_cast<double>(theta.rows());
    return v;
  };
  KeyedPartials row_part, col_part;
  for (const RowBlock& rb : rows_)
    row_part[rb.id] = block_sums(rb.state.theta, rb.minibatch_sse, rb.minibatch_count);
  for (const auto& [j, block] : cols_) col_part[j] = block_sums(block.theta, 0.0, 0.0);
  const std::vector<double> w = OrderedSum(*comm_, row_part, kWidth);
  const std::vector<double> h = OrderedSum(*comm_, col_part, kWidth);

  HyperStats stats;
  // The minibatch SSE, scaled to the whole training set (the same N / |minibatch| scaling
  // as the gradient), stands in for the full-data SSE in tau's conditional.
  const double n = static_cast<double>(problem_.train.entries.size());
  stats.n = n;
  stats.sse = w[kCount] > 0 ? w[kSse] * n / w[kCount] : 0.0;
  stats.w2 = w[kSq];
  stats.w_count = w[kRows] * k;
  stats.b2 = w[kBiasSq];
  stats.b_count = w[kRows];
  stats.h2 = h[kSq];
  stats.h_count = h[kRows] * k;
  stats.c2 = h[kBiasSq];
  stats.c_count = h[kRows];
  KeyedStream stream(config_.seed, Purpose::kHyper, 0, t);
  hyper_ = SampleHyper(config_.priors, stats, stream);
}

// m_c = sum_r n_r theta_rc^2 / sum_r n_r over each side's rows (bpmf_metric.hpp), in one
// ordered reduction of 2 (width + 1) numbers: row blocks fill the first half, column
// blocks the second.
void BpmfModel::Impl::UpdateInformationPerDatum() {
  const int width = config_.shape.width(), k = config_.shape.rank;
  const auto half = static_cast<std::size_t>(width + 1);
  auto weighted_squares = [&](const Matrix& theta, const Eigen::VectorXf& count,
                              std::size_t offset) {
    std::vector<double> v(2 * half, 0.0);
    for (Eigen::Index r = 0; r < theta.rows(); ++r) {
      const double n = count[r];
      for (int c = 0; c < k; ++c)
        v[offset + c] += n * theta(r, c) * static_cast<double>(theta(r, c));
      v[offset + width] += n;
    }
    return v;
  };
  KeyedPartials partials;
  for (const RowBlock& rb : rows_) partials[rb.id] = weighted_squares(rb.state.theta, rb.degree, 0);
  for (const auto& [j, block] : cols_)
    partials[B() + j] = weighted_squares(block.theta, col_degree_[j], half);
  const std::vector<double> total = OrderedSum(*comm_, partials, 2 * half);
  // The partner of a row is a column and vice versa; a bias's information per rating is tau.
  auto information = [&](std::size_t partner) {
    Eigen::VectorXf info = Eigen::VectorXf::Constant(width, static_cast<float>(hyper_.tau));
    const double count = std::max(total[partner + width], 1.0);
    for (int c = 0; c < k; ++c)
      info[c] = static_cast<float>(hyper_.tau * total[partner + c] / count);
    return info;
  };
  information_w_ = information(half);
  information_h_ = information(0);
}

Matrix BpmfModel::Impl::GatherColumns() {
  ByteWriter out;
  out.Put<std::int64_t>(static_cast<std::int64_t>(cols_.size()));
  for (const auto& [j, block] : cols_) {
    out.Put<std::int64_t>(j);
    out.PutArray(block.theta.data(), static_cast<std::size_t>(block.theta.size()));
  }
  Matrix h(problem_.train.cols, config_.shape.width());
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
  for (RowBlock& rb : rows_) {
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
  for (const RowBlock& rb : rows_)
    if (!rb.state.theta.allFinite()) return false;
  for (const auto& [j, block] : cols_)
    if (!block.theta.allFinite()) return false;
  return true;
}

MfPosterior BpmfModel::Impl::Posterior() {
  const int width = config_.shape.width();
  ByteWriter out;
  out.Put<std::int64_t>(static_cast<std::int64_t>(rows_.size()));
  for (const RowBlock& rb : rows_) {
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
  const Eigen::Index users = problem_.train.rows;
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

std::string BpmfModel::Impl::SaveRowBlock(int id) const {
  const RowBlock& rb = Row(id);
  ByteWriter row;
  row.PutBytes(EncodeBlock(rb.state));
  row.PutArray(rb.sum.data(), static_cast<std::size_t>(rb.sum.size()));
  row.PutArray(rb.sum_sq.data(), static_cast<std::size_t>(rb.sum_sq.size()));
  row.PutVector(rb.pred_sum);
  row.PutVector(rb.pred_sum_sq);
  row.Put(rb.minibatch_sse);
  row.Put(rb.minibatch_count);
  return row.Take();
}

void BpmfModel::Impl::RestoreRowBlock(int id, const std::string& bytes) {
  RowBlock& rb = Row(id);
  ByteReader in(bytes);
  rb.state = DecodeBlock(in.GetBytes());
  in.GetArray(rb.sum.data(), static_cast<std::size_t>(rb.sum.size()));
  in.GetArray(rb.sum_sq.data(), static_cast<std::size_t>(rb.sum_sq.size()));
  rb.pred_sum = in.GetVector<double>();
  rb.pred_sum_sq = in.GetVector<double>();
  rb.minibatch_sse = in.Get<double>();
  rb.minibatch_count = in.Get<double>();
  if (rb.pred_sum.size() != rb.test.size())
    throw Error(ExitCode::kCheckpoint, "checkpoint: test predictions do not match");
}

// Hyperparameters, the sampler's global state, the samples collected, rank 0's moments of H
// and the trace.
std::string BpmfModel::Impl::SaveGlobal() const {
  ByteWriter out;
  out.PutVector(HyperToVector(hyper_));
  out.PutVector(sampler_->global_state());
  out.Put(collected_);
  out.PutArray(h_sum_.data(), static_cast<std::size_t>(h_sum_.size()));
  out.PutArray(h_sum_sq_.data(), static_cast<std::size_t>(h_sum_sq_.size()));
  out.PutVector(trace_);
  return out.Take();
}

void BpmfModel::Impl::RestoreGlobal(const std::string& bytes) {
  ByteReader in(bytes);
  hyper_ = HyperFromVector(in.GetVector<double>());
  sampler_->set_global_state(in.GetVector<double>());
  collected_ = in.Get<std::uint64_t>();
  // Every rank reads rank 0's moments of H; only rank 0 keeps them.
  Eigen::MatrixXd sum(problem_.train.cols, config_.shape.width()), sum_sq(sum.rows(), sum.cols());
  in.GetArray(sum.data(), static_cast<std::size_t>(sum.size()));
  in.GetArray(sum_sq.data(), static_cast<std::size_t>(sum_sq.size()));
  if (comm_->rank() == 0) {
    h_sum_ = std::move(sum);
    h_sum_sq_ = std::move(sum_sq);
  }
  trace_ = in.GetVector<TraceRow>();
  cols_.clear();  // the blocks held at the restored stratum come next (RestoreColBlock)
}

std::string BpmfModel::Impl::Fingerprint() const {
  std::ostringstream s;
  s << "rows=" << problem_.train.rows << " cols=" << problem_.train.cols
    << " ratings=" << problem_.train.entries.size() << " test=" << problem_.test.size()
    << " data_crc=" << std::hex << (Crc64Of(problem_.train.entries) ^ Crc64Of(problem_.test))
    << std::dec << " tiles=" << B() << " rank=" << config_.shape.rank
    << " bias=" << config_.shape.bias << " sampler=" << sampler_->name()
    << " seed=" << config_.seed;
  return s.str();
}

// ---- BpmfModel: the TileModel interface over Impl.

BpmfModel::BpmfModel(const MfConfig& config, const MfProblem& problem)
    : problem_(problem), impl_(std::make_unique<Impl>(config, problem)) {}
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
  if (c.priors.sample_hyper && (ctx.t + 1) % c.hyper_every == 0) impl_->ResampleHyper(ctx.t);
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
  return EncodedBlockSize(rows, impl_->config_.shape.width(), impl_->sampler_->aux_count());
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
}
std::string BpmfModel::SaveGlobal() const {
  return impl_->SaveGlobal();
}
void BpmfModel::RestoreGlobal(const std::string& bytes) {
  impl_->RestoreGlobal(bytes);
}
std::uint64_t BpmfModel::ratings_held() const {
  std::uint64_t n = 0;
  for (const RowBlock& rb : impl_->rows_)
    for (const TileRatings& tile : rb.tiles) n += tile.size();
  return n;
}
const std::vector<TraceRow>& BpmfModel::trace() const {
  return impl_->trace_;
}
MfPosterior BpmfModel::Posterior() {
  return impl_->Posterior();
}

}  // namespace carousel
