// SamModel's state, shared by its source files: set-up, one iteration and checkpoints
// (sam_model.cpp); the held-out log-perplexity and the topic means (sam_evaluation.cpp).
// Private to src/model/sam/.
#pragma once

#include <Eigen/Core>
#include <functional>
#include <map>
#include <vector>

#include "carousel/comm/ordered_sum.hpp"
#include "carousel/model/sam/sam_model.hpp"
#include "carousel/model/sam/sam_survey.hpp"
#include "carousel/sampler/geodesic.hpp"

namespace carousel {

// Documents in CSR form over kept-vocabulary ids.
struct SamDocuments {
  std::vector<std::uint32_t> ids;
  std::vector<std::uint64_t> start{0};
  std::vector<std::uint32_t> word;
  std::vector<double> value;
  std::size_t size() const { return ids.size(); }
  void Add(std::uint32_t id, const std::uint32_t* words, const double* values, std::size_t n) {
    ids.push_back(id);
    word.insert(word.end(), words, words + n);
    value.insert(value.end(), values, values + n);
    start.push_back(word.size());
  }
};

// What SumDocumentProducts reads of a set of documents.
struct DocumentsView {
  std::size_t size = 0;
  const std::uint64_t* start = nullptr;
  const std::uint32_t* word = nullptr;
  const double* value = nullptr;
};

struct SamRowBlock {
  int id = 0;
  SamDocuments train;
  Eigen::MatrixXd eta;  // K x training documents: log gamma of theta (topic_proportions.hpp)
  // The held-out documents of this block (positions in the survey's held-out list) and, per
  // document, log sum over the collected samples of pi(v_d | beta^(m)).
  std::vector<std::size_t> held_out;
  std::vector<double> log_pred_sum;
};

// One column block of the topics: every topic's coordinates at the block's words.
struct SamColBlock {
  SphereBlock sphere;        // x (K x words) and its velocity
  Eigen::MatrixXd beta_sum;  // sum of the collected samples of x
};

// The minibatch of one iteration, the same on every rank: documents in row-block order.
struct SamMinibatch {
  SamDocuments docs;
  std::vector<int> row_block;      // of each document
  std::vector<std::size_t> local;  // its index in its row block's training documents
};

// Ordered sums over the column blocks a rank holds (geodesic.hpp's VectorReduction).
class OrderedReduction final : public VectorReduction {
 public:
  explicit OrderedReduction(Communicator& comm) : comm_(comm) {}
  std::vector<double> SumOverBlocks(const KeyedPartials& partials,
                                    std::size_t size) const override {
    return OrderedSum(comm_, partials, size);
  }

 private:
  Communicator& comm_;
};

struct SamModel::Impl {
  Impl(const SamConfig& config, const TfIdfCorpus& share, const SamSurvey& survey);

  std::size_t K() const { return static_cast<std::size_t>(config_.topics); }
  std::size_t V() const { return share_.vocabulary.size(); }
  int B() const { return grid_->blocks(); }
  double q() const;  // the probability that a training document is in the minibatch
  SamRowBlock& Row(int id);
  double seconds_sampling() const { return seconds_running_() - eval_seconds_; }

  std::vector<std::uint64_t> Attach(const TileRun& run);
  SamColBlock FreshBlock(int j) const;
  void FinishInit();
  void UpdateTiles(std::uint64_t t);
  SamMinibatch ShareMinibatch(std::uint64_t t) const;
  // Per held column block: s_d = beta v_d of `docs` (rows x K, at the block's words), the
  // block's Gram matrix, and extra per-block values; summed over all blocks in order.
  std::vector<double> SumDocumentProducts(const DocumentsView& docs, std::size_t extra,
                                          const std::function<void(int, double*)>& add_extra);
  void Gradient(const SamMinibatch& batch, std::uint64_t t, const SphereBlocks& blocks,
                std::vector<Eigen::MatrixXd>& grads);
  void Evaluate(const EvaluationContext& ctx);
  std::vector<double> TopicMeanDirections();
  std::string Fingerprint() const;
  SphereBlocks HeldBlocks();

  SamConfig config_;
  const TfIdfCorpus& share_;
  const SamSurvey& survey_;
  Communicator* comm_ = nullptr;
  const TileGrid* grid_ = nullptr;
  const RankLayout* layout_ = nullptr;
  std::function<double()> seconds_running_;
  std::unique_ptr<OrderedReduction> reduction_;

  std::vector<SamRowBlock> rows_;
  std::map<int, SamColBlock> cols_;
  GeodesicSampler sampler_;
  double theta_step_ = 0.0;                    // MALA epsilon, adapted during burn-in
  std::uint64_t accepted_ = 0, proposed_ = 0;  // MALA steps since the last evaluation
  std::uint64_t collected_ = 0;
  std::vector<SamTraceRow> trace_;
  DrawsTable draws_{{"log_lik_heldout", "log_perplexity", "thermostat"}};
  double eval_seconds_ = 0.0;
};

}  // namespace carousel
