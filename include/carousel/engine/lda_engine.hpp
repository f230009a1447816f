// The distributed SG-MCMC loop for latent Dirichlet allocation (DESIGN.md section 1).
//
// Documents are rows and vocabulary words are columns of the B x B tile grid. Rank p owns
// B/P document row-blocks with their tokens and topic assignments; the topic-word
// parameters are cut into B column blocks (K x |block| each) that rotate between ranks
// like the factor blocks of matrix factorization, so no rank ever holds the whole K x V
// matrix. One iteration runs one stratum: every rank draws its row-blocks' minibatch
// documents, runs Gibbs sweeps over their tokens in the tile it holds (with phi from its
// column block and the per-topic totals theta_k.), updates that column block with
// a_hat = beta + scale * nbar (SCIR, SGRLD or SGRHMC) and passes it on. The per-topic
// totals are combined across ranks once per iteration (K numbers per block, in block
// order); SGRLD and SGRHMC also combine count_hat_k. before their update.
//
// Evaluation (document completion): held-out documents' observed tokens are swept with the
// current phi while copies of the column blocks make B ring steps per pass; a last pass
// computes p(w) = sum_k theta_hat_dk phi_kw for every test token. Trace seconds count
// sampling only, not evaluation.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "carousel/comm/communicator.hpp"
#include "carousel/engine/iteration_control.hpp"
#include "carousel/model/lda/lda_config.hpp"
#include "carousel/data/corpus.hpp"

namespace carousel {

struct LdaTraceRow {
  std::uint64_t iteration = 0;
  double seconds = 0.0;            // sampling time so far, evaluations excluded
  double perplexity = 0.0;         // of the predictive probabilities averaged over samples
  double perplexity_sample = 0.0;  // of the current sample alone
  std::uint64_t samples = 0;       // evaluations averaged so far (0 during burn-in)
};

// Sizes of the problem, the same on every rank.
struct LdaCounts {
  std::uint64_t train_documents = 0, held_out_documents = 0, empty_documents = 0;
  std::uint64_t train_tokens = 0, observed_tokens = 0, test_tokens = 0;
};

// This rank's training Gibbs work in this run (not counting runs it resumed from).
struct LdaGibbsStats {
  std::uint64_t tokens_swept = 0;  // token visits: tokens x sweeps
  double seconds = 0.0;            // wall time inside the sweeps
};

struct LdaCallbacks {
  // Local signal requests: bit 0 = checkpoint, bit 1 = checkpoint and stop.
  std::function<int()> requests = [] { return 0; };
  std::function<void(const LdaTraceRow&)> on_eval = [](const LdaTraceRow&) {};
  std::function<void(std::uint64_t iteration, double seconds)> on_iteration = [](std::uint64_t,
                                                                                 double) {};
  std::function<void(std::uint64_t iteration, const std::string& payload)> on_checkpoint =
      [](std::uint64_t, const std::string&) {};
  std::string checkpoint_extra;  // stored verbatim in every checkpoint
};

class LdaEngine {
 public:
  LdaEngine(Communicator& comm, const LdaConfig& config, const Corpus& corpus);
  ~LdaEngine();

  void Restore(const std::string& payload);
  // Runs up to config.iterations; false when stopped early by a stop request.
  bool Run(const LdaCallbacks& callbacks);

  std::uint64_t iteration() const;
  const LdaCounts& counts() const;
  std::uint64_t tokens_held() const;              // training tokens of this rank's documents
  const std::vector<LdaTraceRow>& trace() const;  // rank 0
  // Held-out document ids (global, ascending), the same on every rank.
  std::vector<std::uint32_t> HeldOutDocuments() const;

  // The posterior mean of phi over the collected samples (the current phi when none was
  // collected yet), handed to `sink` on rank 0 in slices of whole topics: `count` rows of
  // V words in vocabulary order, topics first .. first + count - 1. Collective. Slices
  // hold ceil(K / B) topics, so rank 0 never holds the whole K x V matrix.
  using TopicRowsSink =
      std::function<void(std::size_t first, std::size_t count, const std::vector<double>& rows)>;
  void StreamTopicWordMean(const TopicRowsSink& sink);
  std::uint64_t samples() const;  // evaluations collected into the posterior means
  // The whole K x V posterior mean on rank 0 (empty elsewhere), for tests and small
  // problems; `samples` as samples(). Collective.
  std::vector<double> TopicWordMean(std::uint64_t* samples);

  std::string CheckpointPayload(const std::string& extra);  // collective; rank 0 non-empty
  static std::string CheckpointExtra(const std::string& payload);
  double seconds_running() const;   // sampling and evaluation, including resumed runs
  double seconds_sampling() const;  // sampling only
  LdaGibbsStats gibbs_stats() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace carousel
