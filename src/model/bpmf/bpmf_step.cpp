// One iteration of BpmfModel: the minibatch gradients of the stratum's tiles, the block
// updates by the sampler (independent or coupled across blocks), the Gibbs steps of the
// hyperparameters and the expected Fisher information the metric may need.
#include <algorithm>
#include <cmath>
#include <optional>

#include "bpmf_model_impl.hpp"
#include "carousel/comm/ordered_sum.hpp"
#include "carousel/model/bpmf/bpmf_ridge.hpp"
#include "carousel/model/coupled_step.hpp"
#include "carousel/sampler/diagonal_metric.hpp"
#include "carousel/sampler/lazy_rows.hpp"
#include "carousel/util/all_finite.hpp"

namespace carousel {
namespace {

// Keys the curvature subset's hash apart from the minibatch's ("curvatur").
constexpr std::uint64_t kCurvatureSalt = 0x6375727661747572ULL;

// The sum over theta's rows of each column's squares, in double: column c's running sum in
// row order. Eigen's squaredNorm of the block cast to double was one serial chain of double
// additions (Eigen 3.4 does not vectorise the cast), 23 ms for 480k rows of K = 32 at every
// hyperparameter step; one sum per column is as many independent chains, which the compiler
// vectorises, and still a fixed function of the block.
std::vector<double> ColumnSquares(const Matrix& theta) {
  const Eigen::Index width = theta.cols();
  std::vector<double> sums(static_cast<std::size_t>(width), 0.0);
  double* __restrict s = sums.data();
  for (Eigen::Index r = 0; r < theta.rows(); ++r) {
    const float* __restrict x = theta.row(r).data();
    for (Eigen::Index c = 0; c < width; ++c)
      s[c] += static_cast<double>(x[c]) * static_cast<double>(x[c]);
  }
  return sums;
}

}  // namespace

void BpmfModel::Impl::Plan(const IterationContext& ctx) {
  plan_ = std::make_unique<IterationPlan>();
  IterationPlan& plan = *plan_;
  plan.t = ctx.t;
  plan.stratum = ctx.stratum;
  plan.next = ctx.next;
  plan.step = config_.step.At(ctx.t);
  plan.batch = config_.minibatch * static_cast<double>(ctx.stratum_size);
  plan.scale = plan.batch > 0 ? static_cast<double>(problem_.train_count) / plan.batch : 0.0;
  plan.prior_w = PriorPrecision(config_.shape, hyper_.lambda_w, hyper_.lambda_b);
  plan.prior_h = PriorPrecision(config_.shape, hyper_.lambda_h, hyper_.lambda_c);
  if (needs_information_) {
    plan.information_w = &information_w_;
    plan.information_h = &information_h_;
  }
}

// Likelihood gradients of tile (rb, j) at the given points, into rb.lik and lik_h.
TileGradientResult BpmfModel::Impl::TileLikelihood(const IterationPlan& plan, BpmfRowBlock& rb,
                                                   int j, const Matrix& w, const Matrix& h,
                                                   Matrix& lik_w, Matrix& lik_h,
                                                   CurvatureSubset* curvature,
                                                   RowDriftSink* w_sink) const {
  if (RowsSitOutAt(plan.t)) {  // the pass below adds to the rows with data only
    const TileRatings& tile = rb.tiles[j];
    lik_w.resize(w.rows(), w.cols());
    lik_h.resize(h.rows(), h.cols());
    if (!w_sink)
      for (std::uint32_t r : tile.rows_with_data) lik_w.row(r).setZero();
    for (std::uint32_t c : tile.cols_with_data) lik_h.row(c).setZero();
  } else {
    lik_w.setZero(w.rows(), w.cols());
    lik_h.setZero(h.rows(), h.cols());
  }
  return AccumulateTileGradient(rb.tiles[j], w, h, config_.shape, problem_.mu,
                                static_cast<float>(hyper_.tau), Minibatch(plan, rb.id, j), lik_w,
                                lik_h, curvature, w_sink);
}

Subsample BpmfModel::Impl::Minibatch(const IterationPlan& plan, int row_block, int j) const {
  return Subsample::For(config_.minibatch, config_.chain.seed,
                        static_cast<std::uint64_t>(grid_->TileId(row_block, j)), plan.t);
}

NoiseKey BpmfModel::Impl::RowNoise(const IterationPlan& plan, const BpmfRowBlock& rb) const {
  return NoiseKey{config_.chain.seed, Purpose::kNoiseRow, plan.t, &grid_->rows().Members(rb.id)};
}

NoiseKey BpmfModel::Impl::ColNoise(const IterationPlan& plan, int j) const {
  return NoiseKey{config_.chain.seed, Purpose::kNoiseCol, plan.t, &grid_->cols().Members(j)};
}

void BpmfModel::Impl::UpdateTiles(const IterationContext& ctx) {
  const bool sit_out = RowsSitOutAt(ctx.t);
  if (!sit_out) {
    BringUpToDate(ctx.t);      // an iteration that steps every row starts from them all
    noise_since_ = ctx.t + 1;  // and draws every row's noise
  }
  if (needs_information_) UpdateInformationPerDatum();
  all_current_ = !sit_out;
  Plan(ctx);
  if (coupled())
    CoupledStep();
  else
    LocalColumnSteps();
}

namespace {

// Whether the listed rows of theta are finite (the rows a lazy iteration stepped).
bool RowsFinite(const Matrix& theta, const std::vector<std::uint32_t>& rows) {
  for (std::uint32_t r : rows)
    if (!AllFinite(theta.row(r).data(), static_cast<std::size_t>(theta.cols()))) return false;
  return true;
}

}  // namespace

// Steps the rows of `block` with data in the tile (after bringing them to plan.t, before the
// gradient was taken) and advances their clocks past plan.t.
void BpmfModel::Impl::StepRowsWithData(BlockState& block, const BlockGradient& gradient,
                                       const NoiseKey& noise,
                                       const std::vector<std::uint32_t>& rows) {
  sampler_->StepRows(block, gradient, plan_->step, noise, rows);
  for (std::uint32_t r : rows) block.row_clock[r] = plan_->t + 1;
  stepped_rows_finite_ = stepped_rows_finite_ && RowsFinite(block.theta, rows);
}

// With deferred noise: the drift only; the noise and the prior-only drift of the steps the
// rows sat out wait for BringUpToDate. moment_change: as Sampler::DriftRows.
void BpmfModel::Impl::DriftRowsWithData(BlockState& block, const BlockGradient& gradient,
                                        const std::vector<std::uint32_t>& rows,
                                        double* moment_change) {
  const bool finite = sampler_->DriftRows(block, gradient, plan_->step, rows, moment_change);
  stepped_rows_finite_ = stepped_rows_finite_ && finite;
}

void BpmfModel::Impl::StepWholeBlock(BlockState& block, const BlockGradient& gradient,
                                     const NoiseKey& noise) {
  sampler_->Step(block, gradient, plan_->step, noise);
  if (lazy_) std::fill(block.row_clock.begin(), block.row_clock.end(), plan_->t + 1);
}

// Samplers whose blocks update independently: the column blocks are updated first, so that
// they travel while the row-blocks are updated (LocalRowSteps). Where rows without data sit
// out, the rows and columns with data in the tile are first brought to this iteration (their
// gradient is taken there), and only they are stepped; with deferred noise they are not
// brought up to date first, and take the drift only.
void BpmfModel::Impl::LocalColumnSteps() {
  const IterationPlan& plan = *plan_;
  const bool sit_out = RowsSitOutAt(plan.t);
  Matrix lik_h;
  for (BpmfRowBlock& rb : rows_) {
    const int j = grid_->ColBlockInStratum(rb.id, plan.stratum);
    BlockState& col = cols_.at(j);
    const TileRatings& tile = rb.tiles[j];
    if (sit_out) {                           // prior only: no likelihood term (scale 0)
      if (needs_information_ && !deferred_)  // they enter again after their step (LocalRowSteps)
        AddWeightedSquares(rb.state.theta, rb.degree, &tile.rows_with_data, -1.0,
                           rb.weighted_squares.data());
      if (!deferred_) {
        CatchUpRows(
            *sampler_, rb.state,
            BlockGradient{rb.lik, 0.0, 0.0, plan.prior_w, &rb.degree, nullptr, plan.information_w},
            plan.step, RowCatchUp(plan.t, rb.id), &tile.rows_with_data, plan.t);
        CatchUpRows(*sampler_, col,
                    BlockGradient{lik_h, 0.0, 0.0, plan.prior_h, &col_degree_[j], nullptr,
                                  plan.information_h},
                    plan.step, ColCatchUp(plan.t, j), &tile.cols_with_data, plan.t);
      }
    }
    // With deferred noise a row of W drifts as soon as its gradient is summed (in the cache;
    // the same bits as drifting it after the pass, which reads only its old value).
    const BlockGradient row_gradient{rb.lik,     plan.scale, plan.batch,        plan.prior_w,
                                     &rb.degree, nullptr,    plan.information_w};
    double* moment = needs_information_ ? rb.weighted_squares.data() : nullptr;
    const bool fused = sit_out && deferred_;
    std::optional<RowDriftSink> drift_w;
    if (fused) drift_w.emplace(*sampler_, rb.state, row_gradient, plan.step, moment);
    const TileGradientResult result = TileLikelihood(plan, rb, j, rb.state.theta, col.theta, rb.lik,
                                                     lik_h, nullptr, fused ? &*drift_w : nullptr);
    if (drift_w) stepped_rows_finite_ = stepped_rows_finite_ && drift_w->finite();
    // With deferred noise the residuals between flushes are taken at points that lack the
    // span's noise, and fit the ratings better than the chain's state does: tau's conditional
    // (GatherHyperStats) and rmse_train read the SSE of the first iteration after a flush,
    // whose residuals are those of the flushed state (measured: tau 1.42 against 1.23 on 25M
    // ratings at 16 tiles when every iteration's SSE was read).
    if (!fused || plan.t == noise_since_) {
      rb.minibatch_sse = result.sse;
      rb.minibatch_count = static_cast<double>(result.count);
    }
    const BlockGradient col_gradient{lik_h,           plan.scale, plan.batch,        plan.prior_h,
                                     &col_degree_[j], nullptr,    plan.information_h};
    if (sit_out && deferred_)
      DriftRowsWithData(col, col_gradient, tile.cols_with_data, nullptr);
    else if (sit_out)
      StepRowsWithData(col, col_gradient, ColNoise(plan, j), tile.cols_with_data);
    else
      StepWholeBlock(col, col_gradient, ColNoise(plan, j));
  }
}

void BpmfModel::Impl::LocalRowSteps() {
  const IterationPlan& plan = *plan_;
  const bool sit_out = RowsSitOutAt(plan.t);
  for (BpmfRowBlock& rb : rows_) {
    const BlockGradient gradient{rb.lik,     plan.scale, plan.batch,        plan.prior_w,
                                 &rb.degree, nullptr,    plan.information_w};
    if (sit_out) {
      const int j = grid_->ColBlockInStratum(rb.id, plan.stratum);
      if (deferred_) continue;  // the rows drifted with their gradient (LocalColumnSteps)
      StepRowsWithData(rb.state, gradient, RowNoise(plan, rb), rb.tiles[j].rows_with_data);
      if (needs_information_)
        AddWeightedSquares(rb.state.theta, rb.degree, &rb.tiles[j].rows_with_data, 1.0,
                           rb.weighted_squares.data());
    } else {
      StepWholeBlock(rb.state, gradient, RowNoise(plan, rb));
    }
  }
}

NoiseKey BpmfModel::Impl::RowCatchUp(std::uint64_t now, int row_block) const {
  return NoiseKey{config_.chain.seed, Purpose::kCatchUpRow, now, &grid_->rows().Members(row_block)};
}

NoiseKey BpmfModel::Impl::ColCatchUp(std::uint64_t now, int j) const {
  return NoiseKey{config_.chain.seed, Purpose::kCatchUpCol, now, &grid_->cols().Members(j)};
}

// The steps the rows sat out used the current precisions and step (the precisions change
// only once every row is current; the step is constant where rows sit out); the metric is
// the current one (DESIGN.md section 9). With deferred noise every row takes the prior-only
// drift it missed and the noise of the iterations since the last flush.
void BpmfModel::Impl::BringUpToDate(std::uint64_t now) {
  if (all_current_ || !lazy_) return;
  const double step = config_.step.At(now);
  const Eigen::VectorXf prior_w = PriorPrecision(config_.shape, hyper_.lambda_w, hyper_.lambda_b);
  const Eigen::VectorXf prior_h = PriorPrecision(config_.shape, hyper_.lambda_h, hyper_.lambda_c);
  const Eigen::VectorXf* information_w = needs_information_ ? &information_w_ : nullptr;
  const Eigen::VectorXf* information_h = needs_information_ ? &information_h_ : nullptr;
  if (deferred_) {
    const std::uint64_t noise_steps = now - noise_since_;
    for (BpmfRowBlock& rb : rows_)
      sampler_->FlushRows(
          rb.state, BlockGradient{rb.lik, 0.0, 0.0, prior_w, &rb.degree, nullptr, information_w},
          step, RowCatchUp(now, rb.id), now, noise_steps);
    for (auto& [j, block] : cols_)
      sampler_->FlushRows(
          block,
          BlockGradient{block.theta, 0.0, 0.0, prior_h, &col_degree_[j], nullptr, information_h},
          step, ColCatchUp(now, j), now, noise_steps);
    noise_since_ = now;
    all_current_ = true;
    return;
  }
  for (BpmfRowBlock& rb : rows_)
    CatchUpRows(*sampler_, rb.state,
                BlockGradient{rb.lik, 0.0, 0.0, prior_w, &rb.degree, nullptr, information_w}, step,
                RowCatchUp(now, rb.id), nullptr, now);
  for (auto& [j, block] : cols_)
    CatchUpRows(
        *sampler_, block,
        BlockGradient{block.theta, 0.0, 0.0, prior_h, &col_degree_[j], nullptr, information_h},
        step, ColCatchUp(now, j), nullptr, now);
  all_current_ = true;
}

// Samplers coupled across blocks (HAMCMC, SGNHT): all gradients first, then the
// protocol of RunCoupledStep (model/coupled_step.hpp) over every block of the whole
// parameter vector, keyed by block id for its ordered sums (row-blocks 0..B-1, column
// blocks B..2B-1), with the gradients at the new point from one pass per tile.
void BpmfModel::Impl::CoupledStep() {
  const IterationPlan& plan = *plan_;
  struct Pair {
    BpmfRowBlock* rb;
    int j;
    BlockState* col;
    Matrix lik_h;
  };
  std::vector<Pair> pairs;
  pairs.reserve(rows_.size());  // the blocks' gradients below point into the pairs
  for (BpmfRowBlock& rb : rows_) {
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
          SystematicSubset::For(config_.curvature_fraction, config_.chain.seed ^ kCurvatureSalt,
                                static_cast<std::uint64_t>(grid_->TileId(p.rb->id, p.j)), plan.t);
    const TileGradientResult result = TileLikelihood(
        plan, *p.rb, p.j, sampler_->GradientPoint(p.rb->state), sampler_->GradientPoint(*p.col),
        p.rb->lik, p.lik_h, subset ? &curvature[i] : nullptr);
    p.rb->minibatch_sse = result.sse;
    p.rb->minibatch_count = static_cast<double>(result.count);
  }
  std::vector<CoupledBlock> blocks;
  blocks.reserve(2 * pairs.size());
  for (Pair& p : pairs) {
    blocks.push_back({p.rb->id, &p.rb->state,
                      BlockGradient{p.rb->lik, plan.scale, plan.batch, plan.prior_w, &p.rb->degree,
                                    nullptr, plan.information_w},
                      RowNoise(plan, *p.rb)});
    blocks.push_back({B() + p.j, p.col,
                      BlockGradient{p.lik_h, plan.scale, plan.batch, plan.prior_h,
                                    &col_degree_[p.j], nullptr, plan.information_h},
                      ColNoise(plan, p.j)});
  }

  // After the step, on the curvature subset S, which holds each minibatch entry with
  // probability 1 / stride, so (N / |minibatch|) stride scales its sums to unbiased
  // estimates of the minibatch's. Without a subset the pass has stride 1: the same bits as
  // the gradient pass (FusedPassMatchesSeparatePasses).
  const bool fisher_wanted = sampler_->needs_fisher_after_step();
  Matrix lik_w_new, lik_h_new;
  FisherSums fisher;
  CoupledStepHooks hooks;
  hooks.gradients_after_step = [&](std::size_t i, GradientsAfterStep& out) {
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
    out.at_new_point.push_back(
        BlockGradient{lik_w_new, scale, plan.batch, plan.prior_w, &p.rb->degree, fisher_w});
    out.at_new_point.push_back(
        BlockGradient{lik_h_new, scale, plan.batch, plan.prior_h, &col_degree_[p.j], fisher_h});
    if (subset) {
      const CurvatureSubset& cs = curvature[i];
      out.at_gradient_point.push_back(
          BlockGradient{cs.lik_w, scale, plan.batch, plan.prior_w, &p.rb->degree});
      out.at_gradient_point.push_back(
          BlockGradient{cs.lik_h, scale, plan.batch, plan.prior_h, &col_degree_[p.j]});
    }
  };
  RunCoupledStep(*sampler_, *comm_, blocks, 2, plan.step, hooks);
}

HyperStats BpmfModel::Impl::GatherHyperStats() const {
  // Partial sums keyed by row-block id (0..B-1) and column-block id (B..2B-1).
  enum { kSse, kCount, kSq, kBiasSq, kRows, kWidth };
  const int k = config_.shape.rank;
  auto block_sums = [&](const Matrix& theta, double sse, double count) {
    std::vector<double> v(kWidth, 0.0);
    v[kSse] = sse;
    v[kCount] = count;
    const std::vector<double> squares = ColumnSquares(theta);
    for (int c = 0; c < k; ++c) v[kSq] += squares[static_cast<std::size_t>(c)];
    if (config_.shape.bias) v[kBiasSq] = squares[static_cast<std::size_t>(k)];
    v[kRows] = static_cast<double>(theta.rows());
    return v;
  };
  KeyedPartials row_part, col_part;
  for (const BpmfRowBlock& rb : rows_)
    row_part[rb.id] = block_sums(rb.state.theta, rb.minibatch_sse, rb.minibatch_count);
  for (const auto& [j, block] : cols_) col_part[j] = block_sums(block.theta, 0.0, 0.0);
  const std::vector<double> w = OrderedSum(*comm_, row_part, kWidth);
  const std::vector<double> h = OrderedSum(*comm_, col_part, kWidth);

  HyperStats stats;
  // The minibatch SSE, scaled to the whole training set (the same N / |minibatch| scaling
  // as the gradient), stands in for the full-data SSE in tau's conditional.
  const double n = static_cast<double>(problem_.train_count);
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
  return stats;
}

void BpmfModel::Impl::ResampleHyper(std::uint64_t t) {
  const HyperStats stats = GatherHyperStats();
  KeyedStream stream(config_.chain.seed, Purpose::kHyper, 0, t);
  hyper_ = SampleHyper(config_.priors, stats, stream);
  if (!ridge_) return;
  KeyedStream ridge(config_.chain.seed, Purpose::kScaleRidge, 0, t);
  ScaleFactors(MoveAlongScaleRidge(config_.priors, hyper_, ridge));
}

void BpmfModel::Impl::ScaleFactors(double c) {
  const int k = config_.shape.rank;
  const auto up = static_cast<float>(c), down = static_cast<float>(1.0 / c);
  for (BpmfRowBlock& rb : rows_) rb.state.theta.leftCols(k) *= up;
  for (auto& [j, block] : cols_) block.theta.leftCols(k) *= down;
}

// v[c] += sign n_r theta_rc^2 (c < K) and v[width] += sign n_r over the listed rows (null:
// all), n_r from `count`.
void BpmfModel::Impl::AddWeightedSquares(const Matrix& theta, const Eigen::VectorXf& count,
                                         const std::vector<std::uint32_t>* rows, double sign,
                                         double* v) const {
  const int width = config_.shape.width(), k = config_.shape.rank;
  const auto add = [&](Eigen::Index r) {
    const double n = count[r];
    for (int c = 0; c < k; ++c) v[c] += sign * (n * theta(r, c) * static_cast<double>(theta(r, c)));
    v[width] += sign * n;
  };
  if (rows) {
    for (std::uint32_t r : *rows) add(r);
  } else {
    for (Eigen::Index r = 0; r < theta.rows(); ++r) add(r);
  }
}

// m_c = sum_r n_r theta_rc^2 / sum_r n_r over each side's rows (bpmf_metric.hpp), in one
// ordered reduction of 2 (width + 1) numbers: row blocks fill the first half, column
// blocks the second. Where rows sit out, a row block's sums are kept up to date as its rows
// change (the rows of a tile leave them before their catch-up and enter again after their
// step), and recomputed from every row whenever every row is current; a column block's are
// recomputed each time (it is small). So the information follows the factors every
// iteration, at a cost that follows the data.
void BpmfModel::Impl::UpdateInformationPerDatum() {
  const int width = config_.shape.width(), k = config_.shape.rank;
  const auto half = static_cast<std::size_t>(width + 1);
  KeyedPartials partials;
  for (BpmfRowBlock& rb : rows_) {
    if (!lazy_ || all_current_) {  // from every row; else as kept up to date by the steps
      rb.weighted_squares.assign(half, 0.0);
      AddWeightedSquares(rb.state.theta, rb.degree, nullptr, 1.0, rb.weighted_squares.data());
    }
    std::vector<double> v(2 * half, 0.0);
    std::copy(rb.weighted_squares.begin(), rb.weighted_squares.end(), v.begin());
    partials[rb.id] = std::move(v);
  }
  for (const auto& [j, block] : cols_) {
    std::vector<double> v(2 * half, 0.0);
    AddWeightedSquares(block.theta, col_degree_[j], nullptr, 1.0, v.data() + half);
    partials[B() + j] = std::move(v);
  }
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

}  // namespace carousel
