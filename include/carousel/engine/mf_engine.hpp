// The distributed SG-MCMC loop for matrix factorization (DESIGN.md section 1; DSGLD of
// Ahn et al. 2015 and HAMCMC paper Sec. 4.3).
//
// Rank p owns row-blocks p*B/P .. (p+1)*B/P - 1 with their factors and tiles. Each
// iteration runs one stratum: every rank accumulates the minibatch gradient of its tiles,
// updates the column blocks it holds and starts sending each to the rank that needs it
// next, updates its row-blocks while the blocks travel, and then receives. Ratings never
// move. All randomness is keyed and all cross-rank sums are ordered, so the chain does not
// depend on P.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "carousel/comm/communicator.hpp"
#include "carousel/engine/iteration_control.hpp"
#include "carousel/model/bpmf/mf_config.hpp"
#include "carousel/data/mf_problem.hpp"

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

// Posterior summaries, assembled on rank 0 only.
struct MfPosterior {
  std::uint64_t samples = 0;
  Eigen::MatrixXd w_mean, w_var, h_mean, h_var;  // global row / column order
  Matrix w_last, h_last;                         // the final sample
  std::vector<double> pred_mean, pred_sd;        // in the order of MfProblem::test
};

// What the engine asks of the outside world, all on rank 0 except `requests`.
struct MfCallbacks {
  // Local signal requests: bit 0 = checkpoint, bit 1 = checkpoint and stop.
  std::function<int()> requests = [] { return 0; };
  std::function<void(const TraceRow&)> on_eval = [](const TraceRow&) {};
  std::function<void(std::uint64_t iteration, double seconds)> on_iteration = [](std::uint64_t,
                                                                                 double) {};
  std::function<void(std::uint64_t iteration, const std::string& payload)> on_checkpoint =
      [](std::uint64_t, const std::string&) {};
  // Stored verbatim in every checkpoint (the CLI keeps its command line there).
  std::string checkpoint_extra;
};

class MfEngine {
 public:
  MfEngine(Communicator& comm, const MfConfig& config, const MfProblem& problem);
  ~MfEngine();

  // Restores the state saved by a checkpoint payload (from any rank count).
  void Restore(const std::string& payload);

  // Runs up to config.iterations. Returns false when stopped early by a stop request
  // (after writing a checkpoint).
  bool Run(const MfCallbacks& callbacks);

  std::uint64_t iteration() const;
  std::uint64_t ratings_held() const;          // training ratings in this rank's tiles
  const std::vector<TraceRow>& trace() const;  // rank 0
  MfPosterior Posterior();                     // collective; filled on rank 0
  // Checkpoint payload, collective; non-empty on rank 0 only. `extra` is stored verbatim
  // (the CLI keeps its command line there) and returned by CheckpointExtra.
  std::string CheckpointPayload(const std::string& extra);
  static std::string CheckpointExtra(const std::string& payload);

  // Wall seconds of sampling, including the runs this one resumed from.
  double seconds_running() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace carousel
