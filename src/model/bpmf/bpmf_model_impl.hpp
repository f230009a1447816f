// BpmfModel's state and steps, shared by its source files: set-up, checkpoints and the
// TileModel interface (bpmf_model.cpp), one iteration (bpmf_step.cpp), evaluation and
// posterior summaries (bpmf_evaluation.cpp), the kept draws (bpmf_draws.cpp) and the saved
// samples (bpmf_samples.cpp). Private to src/model/bpmf/.
#pragma once

#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "carousel/model/bpmf/bpmf.hpp"
#include "carousel/model/bpmf/bpmf_model.hpp"
#include "carousel/model/draws_table.hpp"
#include "carousel/sampler/sampler.hpp"
#include "carousel/util/byte_buffer.hpp"
#include "carousel/util/error.hpp"

namespace carousel {

// The columns of BpmfModel's draws for these options (bpmf_draws.cpp).
std::vector<std::string> BpmfDrawColumns(const MfConfig& config, bool has_test);

// Posterior moment sums, in the factors' own (row-major) order so that each evaluation adds
// a sample in one contiguous pass without a converted copy (AccumulateMoments). Checkpoints
// keep them column-major, as they always were (PutColMajor, GetColMajor in bpmf_model.cpp).
using MomentMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// sum += x and sum_sq += x * x elementwise, in double: the same sums, element by element, as
// sum += x.cast<double>() and sum_sq += (x.cast<double>()).cwiseProduct(...). (x * x of a float
// is exact in double, so a fused multiply-add cannot change sum_sq either.)
void AccumulateMoments(const Matrix& x, MomentMatrix& sum, MomentMatrix& sum_sq);

// Everything one row-block carries: it never leaves its rank during a run.
struct BpmfRowBlock {
  int id = 0;
  BlockState state;
  Matrix lik;                             // this iteration's likelihood gradient
  std::vector<TileRatings> tiles;         // indexed by column block
  Eigen::VectorXf degree;                 // ratings of each row, for data-aware metrics
  MomentMatrix sum, sum_sq;               // posterior moments over collected samples
  std::vector<TestRating> test;           // row = local row (or kUnknownId), col = global column
  std::vector<std::uint32_t> test_index;  // position in the whole test set
  std::vector<double> pred_sum, pred_sum_sq;
  // sum_r n_r theta_rc^2 (c < K) and sum_r n_r (last) over the block's rows, for the
  // expected-Fisher information (UpdateInformationPerDatum; checkpointed).
  std::vector<double> weighted_squares;
  // The last iteration's minibatch (with deferred noise: that of the first iteration after
  // the last flush), for rmse_train and tau's conditional.
  double minibatch_sse = 0.0;
  double minibatch_count = 0.0;
};

struct BpmfModel::Impl {
  // What one iteration needs besides the blocks: stratum, step and the scaled gradient.
  struct IterationPlan {
    std::uint64_t t;
    int stratum, next;
    double step, batch, scale;
    Eigen::VectorXf prior_w, prior_h;
    const Eigen::VectorXf* information_w = nullptr;  // null unless the metric needs them
    const Eigen::VectorXf* information_h = nullptr;
  };

  Impl(const MfConfig& config, const MfProblem& problem, TileShare share);

  int B() const { return grid_->blocks(); }
  bool IsMine(int row_block) const { return layout_->RankOfRowBlock(row_block) == comm_->rank(); }
  BpmfRowBlock& Row(int id) {
    return rows_[static_cast<std::size_t>(id - layout_->FirstRowBlock(comm_->rank()))];
  }
  const BpmfRowBlock& Row(int id) const {
    return rows_[static_cast<std::size_t>(id - layout_->FirstRowBlock(comm_->rank()))];
  }

  std::vector<std::uint64_t> Attach(const TileRun& run);
  std::vector<std::uint64_t> StratumSizes() const;
  void BuildRowBlocks();
  void InitialiseRowBlocks();
  BlockState FreshBlock(const std::vector<std::uint32_t>& members, Purpose purpose) const;
  std::string Fingerprint() const;

  void Plan(const IterationContext& ctx);
  TileGradientResult TileLikelihood(const IterationPlan& plan, BpmfRowBlock& rb, int j,
                                    const Matrix& w, const Matrix& h, Matrix& lik_w, Matrix& lik_h,
                                    CurvatureSubset* curvature = nullptr,
                                    RowDriftSink* w_sink = nullptr) const;
  // The minibatch entries of tile (row block, j) at iteration t: the same on every rank.
  Subsample Minibatch(const IterationPlan& plan, int row_block, int j) const;
  NoiseKey RowNoise(const IterationPlan& plan, const BpmfRowBlock& rb) const;
  NoiseKey ColNoise(const IterationPlan& plan, int j) const;
  // Keys of the composed steps of rows brought to iteration `now` (lazy_rows.hpp).
  NoiseKey RowCatchUp(std::uint64_t now, int row_block) const;
  NoiseKey ColCatchUp(std::uint64_t now, int j) const;
  void StepRowsWithData(BlockState& block, const BlockGradient& gradient, const NoiseKey& noise,
                        const std::vector<std::uint32_t>& rows);
  void DriftRowsWithData(BlockState& block, const BlockGradient& gradient,
                         const std::vector<std::uint32_t>& rows, double* moment_change);
  // Every clock of a block stepped whole at iteration t becomes t + 1 (lazy_ only).
  void StepWholeBlock(BlockState& block, const BlockGradient& gradient, const NoiseKey& noise);
  bool coupled() const {
    return sampler_->pre_sum_count() > 0 || sampler_->post_sum_count() > 0 ||
           sampler_->needs_gradient_after_step();
  }
  // Rows without data sit out iteration t (DESIGN.md section 9): the sampler composes its
  // prior-only steps, it is not coupled across blocks, and the step size is constant from t
  // on (a composed span needs one step size; the warm-up's iterations step every row).
  bool RowsSitOutAt(std::uint64_t t) const {
    return lazy_ && config_.step.c == 0.0 && t >= config_.step.warmup;
  }
  // Brings every row of this rank's row blocks and held column blocks to iteration `now`
  // (lazy_rows.hpp); local. Before anything reads every row: the precisions' Gibbs step,
  // evaluations, the posterior summaries.
  void BringUpToDate(std::uint64_t now);
  // Throws Error(kCheckpoint) unless a restored block carries clocks exactly when lazy_.
  void CheckClocks(const BlockState& block) const;
  void UpdateTiles(const IterationContext& ctx);
  void LocalColumnSteps();
  void LocalRowSteps();
  void CoupledStep();
  // Collective: the sums of squares and the scaled minibatch SSE over all blocks.
  HyperStats GatherHyperStats() const;
  // The precisions' Gibbs step at iteration t, then the move along the scale ridge when
  // ridge_; every row must be current.
  void ResampleHyper(std::uint64_t t);
  // Multiplies the factor columns of W by c and divides those of H by it, on the blocks
  // this rank holds (bpmf_ridge.hpp).
  void ScaleFactors(double c);
  void UpdateInformationPerDatum();
  void AddWeightedSquares(const Matrix& theta, const Eigen::VectorXf& count,
                          const std::vector<std::uint32_t>* rows, double sign, double* v) const;
  void Evaluate(const EvaluationContext& ctx);
  void CheckChainHealth(const TraceRow& row) const;
  // Collective: appends this evaluation's draw to draws_ on rank 0 (bpmf_draws.cpp).
  void KeepDraw(const TraceRow& row, double sse_train, double n_train, const Matrix& h);
  // Collective: all of H, on every rank, in gathered_h_ (kept between calls: no allocation).
  const Matrix& GatherColumns();
  bool AllFinite() const;
  std::string SaveGlobal() const;
  void RestoreGlobal(const std::string& bytes);
  std::string SaveRowBlock(int id) const;
  void RestoreRowBlock(int id, const std::string& bytes);
  MfPosterior Posterior();
  void ForEachUserSlice(const std::function<void(const UserSlice&)>& consume,
                        std::uint32_t rows_per_slice);
  // Collective: the users in global order, in slices [first, end) of `rows_per_slice`. For
  // each slice every rank writes the ascending list of the rows it holds there and then,
  // for each, what `pack` adds (its row block and local row), `packed_row_bytes` bytes;
  // rank 0 gets every rank's part, in rank order, in `unpack`. The first Error `unpack` throws is
  // returned (rank 0; no later slice is unpacked) once every slice has been gathered, so that the
  // ranks stay in step: the caller raises it collectively.
  std::optional<Error> GatherUserSlices(
      std::uint32_t rows_per_slice, std::size_t packed_row_bytes,
      const std::function<void(ByteWriter&, const BpmfRowBlock&, Eigen::Index)>& pack,
      const std::function<void(std::uint32_t first, std::uint32_t end,
                               const std::vector<std::string>& parts)>& unpack);
  // --keep-samples (bpmf_samples.cpp): the iterations to take, and taking one (collective).
  void PlanSamples();
  void TakeSample(std::uint64_t iteration, const Matrix& h);

  MfConfig config_;
  const MfProblem& problem_;
  TileShare share_;  // this rank's training ratings until the tiles hold them
  Communicator* comm_ = nullptr;
  const TileGrid* grid_ = nullptr;
  const RankLayout* layout_ = nullptr;
  std::function<double()> seconds_running_;
  std::unique_ptr<Sampler> sampler_;
  std::vector<CurvatureSubset> curvature_;  // CoupledStep's scratch, one per local tile

  std::vector<BpmfRowBlock> rows_;
  std::map<int, BlockState> cols_;           // column blocks this rank holds now
  std::vector<Eigen::VectorXf> col_degree_;  // ratings of each item, by column block
  BpmfHyper hyper_;
  // ExpectedFisherMetric's tau m_c for row blocks (partner: H) and column blocks (partner: W),
  // from the current sample at the start of every iteration when the metric needs them.
  bool needs_information_ = false;
  Eigen::VectorXf information_w_, information_h_;
  // Rows without data may sit out iterations (RowsSitOutAt), and blocks carry row clocks.
  bool lazy_ = false;
  // Rows with data take only the drift, and the noise waits for BringUpToDate (deferred
  // noise, Sampler::defers_noise): the noise of iterations noise_since_ .. now is owed.
  bool deferred_ = false;
  std::uint64_t noise_since_ = 0;  // checkpointed
  // Every row is brought up to date (its noise drawn) at least every noise_every_ iterations
  // (DeferredNoiseSpan).
  std::uint64_t noise_every_ = 1;
  // The exact move along the W/H scale ridge follows each Gibbs step of the precisions.
  bool ridge_ = false;
  // Every row stands at the next iteration (after an iteration that stepped every row, or
  // BringUpToDate; checkpointed).
  bool all_current_ = true;
  std::uint64_t now_ = 0;            // iterations run (checkpointed)
  bool stepped_rows_finite_ = true;  // every row stepped so far was finite (lazy_ only)
  double sd_train_;                  // RMSE of predicting mu for every training rating
  // Share of the test predictions at the clip range at the last evaluation (NaN: no test).
  double clipped_share_ = std::numeric_limits<double>::quiet_NaN();
  std::uint64_t collected_ = 0;
  // Whether kept draw `c` (counted from 1) enters the factors' moments, and how many of the
  // collected_ draws have (MfConfig::moments_every).
  bool TakesMoments(std::uint64_t c) const { return (c - 1) % config_.moments_every == 0; }
  std::uint64_t MomentDraws() const {
    return collected_ == 0 ? 0 : (collected_ - 1) / config_.moments_every + 1;
  }
  MomentMatrix h_sum_, h_sum_sq_;  // rank 0: posterior moments of H
  Matrix gathered_h_;              // GatherColumns' result
  Matrix gather_scratch_;          // GatherColumns' one received column block
  std::vector<TraceRow> trace_;
  DrawsTable draws_;                          // rank 0: the kept draws (BpmfDrawColumns)
  std::unique_ptr<IterationPlan> plan_;       // of the iteration under way
  std::vector<std::uint64_t> sample_plan_;    // iterations to take a sample at (ascending)
  std::vector<std::uint64_t> samples_taken_;  // iterations of the samples taken (checkpointed)
  MfSampleSink* sample_sink_ = nullptr;       // rank 0
};

}  // namespace carousel
