// Alpha-stable non-negative matrix factorisation (HAMCMC paper Sec. 4.2, Eq. 14-15) as a tile
// model (DESIGN.md section 7), on BPMF's grid: rows of W stay with their row block, column
// blocks of H travel with their sampler state.
//
//   X_ij | W, H, Phi ~ N(0, Phi_ij v_ij^(2/alpha)),  v_ij = sum_k W_ik H_kj      (Eq. 15)
//   Phi_ij ~ S_{alpha/2}(2 cos(pi alpha / 4)^(2/alpha), 1, 0)                  (Eq. 15)
//
// Prior on W and H. The paper's generalised gamma is not pinned down; here every W_ik and
// H_kj is Exponential(rate lambda) (Gamma(1, lambda)), whose log density's gradient is the
// constant -lambda. The samplers take the prior as a Gaussian precision (BlockGradient), so
// the model folds -lambda into the likelihood sum instead (lik - lambda / scale, with
// precision 0): scale * lik_sum is then the gradient of the log posterior, as they expect.
//
// Per iteration, for each tile of the stratum held here:
//   1. one Metropolis step of Phi_ij for every entry of the tile, proposal from the prior
//      (AmfPhiMetropolisStep), keyed by (seed, kStable, entry, t) with entry = i * J + j in
//      the input's dense ids, so the chain does not depend on the rank count;
//   2. the gradient of sum log N(x; 0, Phi v^(2/alpha)) (AmfEntryLogLikelihoodDv, chain rule
//      to W_i. and H_.j), scaled by N / |stratum| as BPMF does;
//   3. the column block's step by the factor sampler, then the row block's (UpdateRows), each
//      followed by |.| of the whole block: mirroring (HAMCMC Sec. 4.2; MirroredLangevinStep).
//      The samplers' Step has no hook for a reflecting boundary, so |.| is applied to the
//      block after their update (Sampler::MirrorAtZero, which also flips a momentum); for
//      SGLD that is exactly MirroredLangevinStep.
// Samplers coupled across blocks (HAMCMC, SGNHT) step W and H together through the Sampler
// protocol (model/coupled_step.hpp), with the gradient at their gradient point (HAMCMC's
// theta_{t-M}) and the mirroring between StepWithSums and AfterStep (CoupledStep).
//
// The trace's log-likelihood is that of every observed training entry given the current W,
// H and Phi (Eq. 15): the marginal alpha-stable density has no closed form. Real data use
// the real Gaussian, complex data (kept as |x|) the circular complex one (AmfLikelihood).
//
// Fixed rows (--fix-rows, the paper's denoising use): the first K_f columns of W are given
// and never change (their gradient is zeroed and their values put back after each step);
// the other K - K_f columns, H and Phi are sampled.
//
// Kept draws: the sums and the sums of squared deviations (Welford's update, in double) of
// W and H, for the posterior means and variances; with fixed rows on dense data, the sum of
// the alpha-Wiener estimate m_ij |X_ij| of every entry, m_ij = (W_f H_f)_ij / (W H)_ij with
// W_f H_f over the fixed columns (for independent alpha-stable sources the scales add in
// sigma^alpha = v, so E[S | X] = v_S / (v_S + v_N) X: Liutkus and Badeau 2015, "Generalized
// Wiener filtering with fractional power spectrograms").
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "carousel/data/mf_problem.hpp"
#include "carousel/model/amf/amf_pieces.hpp"
#include "carousel/model/bpmf/bpmf.hpp"
#include "carousel/model/bpmf/bpmf_model.hpp"
#include "carousel/model/tile_model.hpp"
#include "carousel/sampler/sampler.hpp"
#include "carousel/sampler/step_size.hpp"

namespace carousel {

// Tests only: a deliberately broken chain that the model's tests must reject.
enum class AmfFault {
  kNone,
  kClipAtZero,  // max(theta, 0) instead of mirroring |theta|: mass piles up at 0
};

struct AmfConfig {
  int rank = 5;           // K
  double alpha = 1.5;     // in (0, 2]; 2 is the Gaussian variance model
  double lambda_w = 1.0;  // Exponential prior rates of W and H
  double lambda_h = 1.0;
  double init_sd = 0.1;  // W, H start at c exp(init_sd z), K c^2 = mean(x)^alpha
  SamplerOptions sampler;
  StepSchedule step;
  ChainOptions chain;  // tiles, schedule, length, thinning, seeds
  AmfFault fault = AmfFault::kNone;

  AmfLikelihood likelihood = AmfLikelihood::kReal;
  // I x K_f, rows in W's order: the fixed first K_f columns of W (empty: none). Each rank
  // keeps its own rows of it from Attach on.
  Eigen::MatrixXf fixed_w;
  bool reconstruct = false;  // accumulate the alpha-Wiener reconstruction (dense data only)
  // Samples of W and H saved whole for `carousel predict`, spread over the kept draws
  // (sample_plan.hpp); 0: none.
  std::uint64_t keep_samples = 0;
};

struct AmfTraceRow {
  std::uint64_t iteration = 0;
  double seconds = 0.0;
  double log_likelihood = 0.0;  // of all training entries given W, H, Phi (Eq. 15)
  double acceptance = 0.0;      // of the Phi proposals since the previous evaluation
  std::uint64_t samples = 0;
};

class AmfModel : public TileModel {
 public:
  // `share`: this rank's training entries in tile order (io/mf_loader.hpp).
  AmfModel(const AmfConfig& config, const MfProblem& problem, TileShare share);
  ~AmfModel() override;

  std::uint32_t grid_rows() const override { return problem_.rows; }
  std::uint32_t grid_cols() const override { return problem_.cols; }
  std::vector<std::uint64_t> grid_col_weights() const override { return problem_.col_weights; }
  std::vector<std::uint64_t> Attach(const TileRun& run) override;
  void InitColBlock(int j) override;

  void UpdateTiles(const IterationContext& ctx) override;
  void UpdateRows(const IterationContext& ctx) override;
  void EndIteration(const IterationContext&) override {}

  std::string TakeColBlock(int j) override;
  void PutColBlock(int j, const std::string& bytes) override;
  std::size_t ColBlockBytes(int j) const override;

  void Evaluate(const EvaluationContext& ctx) override;
  bool AllFinite() const override;
  std::string DivergenceHint(std::uint64_t t) const override;

  std::string Fingerprint() const override;
  std::string SaveRowBlock(int id) const override;
  void RestoreRowBlock(int id, const std::string& bytes) override;
  std::string SaveColBlock(int j) const override;
  void RestoreColBlock(int j, const std::string& bytes) override;
  std::string SaveGlobal() const override;
  void RestoreGlobal(const std::string& bytes) override;

  const std::vector<AmfTraceRow>& trace() const { return trace_; }  // rank 0
  // Collective: the posterior means over the kept draws, I x K and K x J (row-major), on
  // rank 0 (empty elsewhere).
  void PosteriorMeans(Eigen::MatrixXd& w_mean, Eigen::MatrixXd& h_mean);
  // Collective: the variances of the kept draws (sum of squared deviations / their number),
  // I x K and K x J, on rank 0.
  void PosteriorVariances(Eigen::MatrixXd& w_var, Eigen::MatrixXd& h_var);
  // Collective: the posterior mean of m_ij |X_ij| (header), I x J, on rank 0; needs
  // config.reconstruct.
  void Reconstruction(Eigen::MatrixXd& out);
  std::uint64_t collected() const { return collected_; }
  // Where the saved samples go (rank 0's; null elsewhere or for none): W (rows x K) and H
  // (columns x K) at each iteration of the sample plan, as mf's (amf_samples.cpp).
  void SetSampleSink(MfSampleSink* sink) { sample_sink_ = sink; }
  // The iterations of the samples saved so far, checkpointed with the chain.
  const std::vector<std::uint64_t>& samples_taken() const { return samples_taken_; }

 private:
  struct RowBlock {
    int id = 0;
    BlockState state;                        // W's rows, I_b x K
    Matrix lik;                              // this iteration's gradient sum for W
    std::vector<TileRatings> tiles;          // by column block
    std::vector<std::vector<double>> phi;    // Phi_ij of each tile's entries, in tile order
    Eigen::MatrixXd sum;                     // of W over the kept draws
    Eigen::MatrixXd m2;                      // of W's squared deviations (Welford)
    Matrix fixed;                            // the fixed columns of W's rows, I_b x K_f
    std::vector<std::vector<double>> recon;  // sum of m_ij |x_ij| by tile entry (reconstruct)
    double accepted = 0.0, proposed = 0.0;   // Phi proposals since the last evaluation
  };

  int B() const;
  RowBlock& Row(int id);
  const RowBlock& Row(int id) const;
  // `leading`: the held first columns of a row block of W (--fix-rows), or null.
  BlockState FreshBlock(const std::vector<std::uint32_t>& members, Purpose purpose,
                        const Matrix* leading = nullptr) const;
  std::uint64_t EntryId(const RowBlock& rb, int j, std::size_t r, std::uint32_t c) const;
  Matrix GatherColumns();
  void Mirror(BlockState& block) const;
  void HoldFixed(RowBlock& rb) const;
  int fixed_cols() const { return static_cast<int>(fixed_cols_); }
  // On rank 0: I x cols, row r of each row block's matrix at its member's row.
  Eigen::MatrixXd GatherRowBlocks(const std::function<const Eigen::MatrixXd&(const RowBlock&)>& of,
                                  int cols);
  bool coupled() const;
  void TilePass(RowBlock& rb, int j, const Matrix* w_phi, const Matrix* h_phi, const Matrix& w,
                const Matrix& h, Matrix& lik_w, Matrix& lik_h);
  void CoupledStep(const IterationContext& ctx);
  NoiseKey RowNoise(const RowBlock& rb) const;
  // Collective: W gathered to rank 0 and, with H, handed to the sample sink.
  void TakeSample(std::uint64_t iteration, const Matrix& h);
  NoiseKey ColNoise(int j) const;

  AmfConfig config_;
  const MfProblem& problem_;
  TileShare share_;
  Communicator* comm_ = nullptr;
  const TileGrid* grid_ = nullptr;
  const RankLayout* layout_ = nullptr;
  std::function<double()> seconds_running_;
  std::unique_ptr<Sampler> sampler_;
  Eigen::VectorXf zero_precision_;
  std::vector<RowBlock> rows_;
  std::map<int, BlockState> cols_;
  std::vector<Eigen::VectorXf> col_degree_;
  std::vector<Matrix> lik_h_;                      // CoupledStep: H's gradient of each local tile
  double step_ = 0.0, scale_ = 0.0, batch_ = 0.0;  // of the iteration under way
  std::uint64_t t_ = 0;
  std::uint64_t collected_ = 0;
  Eigen::MatrixXd h_sum_;  // rank 0: of H (J x K, items as rows) over the kept draws
  Eigen::MatrixXd h_m2_;   // rank 0: of H's squared deviations (Welford)
  std::vector<std::uint64_t> sample_plan_;    // iterations whose W and H are saved
  std::vector<std::uint64_t> samples_taken_;  // of them, those saved (checkpointed)
  MfSampleSink* sample_sink_ = nullptr;
  Eigen::Index fixed_cols_ = 0;
  std::uint64_t fixed_crc_ = 0;  // of the fixed columns, for the checkpoint's fingerprint
  std::vector<AmfTraceRow> trace_;
};

}  // namespace carousel
