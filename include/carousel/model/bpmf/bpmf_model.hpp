// Bayesian matrix factorization as a tile model (DESIGN.md section 7): users are rows and
// items columns of the tile grid. A row-block holds its users' factors (and biases) with
// the sampler's state and the ratings of its tiles; a column block holds its items' and
// travels. Per tile, the minibatch gradient of the Gaussian likelihood (bpmf.hpp); the
// blocks are updated by any registered sampler; the hyperparameters (tau and the prior
// precisions) are Gibbs steps from ordered sums of a few numbers per block.
#pragma once

#include <Eigen/Core>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "carousel/data/mf_problem.hpp"
#include "carousel/model/bpmf/mf_config.hpp"
#include "carousel/model/draws_table.hpp"
#include "carousel/model/tile_model.hpp"

namespace carousel {

struct TraceRow {
  std::uint64_t iteration = 0;
  double seconds = 0.0;
  double rmse_sample = 0.0;   // test RMSE of the current sample
  double rmse_mean = 0.0;     // test RMSE of the running posterior mean (NaN during burn-in)
  double rmse_train = 0.0;    // RMSE on the last minibatch, before its update
  std::uint64_t samples = 0;  // samples in the posterior mean so far
  BpmfHyper hyper;
};

// Posterior summaries of the items and the test ratings, assembled on rank 0 only.
struct MfPosterior {
  std::uint64_t samples = 0;               // kept draws: in pred_mean, pred_sd
  std::uint64_t moment_draws = 0;          // of them, those in the factors' moments
  Eigen::MatrixXd h_mean, h_var;           // global column order, bias last
  Matrix h_last;                           // the final sample
  std::vector<double> pred_mean, pred_sd;  // in the order of MfProblem::test
};

// The users' posterior for rows [first, first + mean.rows()) of W (bias column last): W is
// as large as the data's user count, so it reaches rank 0 a slice at a time.
struct UserSlice {
  std::uint32_t first = 0;
  Eigen::MatrixXd mean, var;
  Matrix last;  // the final sample
};

// Where the samples of --keep-samples go, on rank 0 (the model writes no files; the writer
// is in mf_outputs.hpp). For each sample: Begin with all of H (global item order, K factor
// columns then the bias), Users for consecutive slices of W's rows in order (W reaches rank
// 0 a slice at a time, as in ForEachUserSlice), then Finish. An Error thrown by any of them
// ends the run on every rank, after the slices have been gathered.
class MfSampleSink {
 public:
  virtual ~MfSampleSink() = default;
  virtual void Begin(std::size_t index, std::uint64_t iteration, const Matrix& h) = 0;
  virtual void Users(std::uint32_t first, const Matrix& rows) = 0;
  virtual void Finish() = 0;
};

class BpmfModel : public TileModel {
 public:
  // `share`: this rank's training ratings in tile order (mf_loader.hpp; WholeMfProblem for a
  // single process), consumed when the run attaches.
  BpmfModel(const MfConfig& config, const MfProblem& problem, TileShare share);
  ~BpmfModel() override;

  std::uint32_t grid_rows() const override { return problem_.rows; }
  std::uint32_t grid_cols() const override { return problem_.cols; }
  std::vector<std::uint64_t> grid_col_weights() const override { return problem_.col_weights; }
  std::vector<std::uint64_t> Attach(const TileRun& run) override;
  void InitColBlock(int j) override;

  void UpdateTiles(const IterationContext& ctx) override;
  void UpdateRows(const IterationContext& ctx) override;
  void EndIteration(const IterationContext& ctx) override;

  std::string TakeColBlock(int j) override;
  void PutColBlock(int j, const std::string& bytes) override;
  std::size_t ColBlockBytes(int j) const override;

  void Evaluate(const EvaluationContext& ctx) override;
  void CheckHealth() const override;
  bool AllFinite() const override;
  std::string DivergenceHint(std::uint64_t t) const override;

  std::string Fingerprint() const override;
  std::string SaveRowBlock(int id) const override;
  void RestoreRowBlock(int id, const std::string& bytes) override;
  std::string SaveColBlock(int j) const override;
  void RestoreColBlock(int j, const std::string& bytes) override;
  std::string SaveGlobal() const override;
  void RestoreGlobal(const std::string& bytes) override;

  std::uint64_t ratings_held() const;  // training ratings in this rank's tiles
  ModelFootprint footprint() const;
  const std::vector<TraceRow>& trace() const;  // rank 0
  const DrawsTable& draws() const;             // rank 0: one row per kept draw
  MfPosterior Posterior();                     // collective; filled on rank 0
  // --keep-samples: the iterations of the samples taken so far, this run's and those of the
  // runs it resumed from (the same on every rank). A sample is taken at the kept draws that
  // SpreadSamples picks for this run's --iterations, and handed to the sink on rank 0 (none:
  // taken and counted, not written).
  const std::vector<std::uint64_t>& samples_taken() const;
  void SetSampleSink(MfSampleSink* sink);
  // The mean of the precisions over the kept draws (the draws of the posterior averages).
  BpmfHyper HyperPosteriorMean() const;
  // E[1/tau] over the kept draws: the variance of the observation noise in the predictive
  // distribution of a new rating (predictive_calibration.hpp). NaN before any kept draw.
  double NoiseVariancePosteriorMean() const;
  // Collective: calls `consume` on rank 0 for consecutive slices of users, in order, until
  // all are given. An Error thrown by `consume` is rethrown on every rank after the last.
  // `rows_per_slice` 0: about 16 MiB of sums per slice.
  void ForEachUserSlice(const std::function<void(const UserSlice&)>& consume,
                        std::uint32_t rows_per_slice = 0);

 private:
  struct Impl;
  const MfProblem& problem_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace carousel
