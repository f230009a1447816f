// LdaModel's state, shared by its two source files: set-up, one iteration, checkpoints
// and the TileModel interface (lda_model.cpp); document-completion evaluation and the
// posterior mean of the topics (lda_evaluation.cpp). Private to src/model/lda/.
#pragma once

#include <chrono>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "carousel/comm/ordered_sum.hpp"
#include "carousel/model/lda/lda_gibbs.hpp"
#include "carousel/model/lda/lda_inference.hpp"
#include "carousel/model/lda/lda_mh.hpp"
#include "carousel/model/lda/lda_model.hpp"
#include "carousel/model/lda/lda_tokens.hpp"
#include "carousel/model/lda/word_columns.hpp"
#include "carousel/util/error.hpp"

namespace carousel {

// A column block of topic-word state: everything that travels with it.
struct LdaColBlock {
  std::vector<double> theta;     // words x K, word-major
  std::vector<double> momentum;  // the same shape for sgrhmc, else empty
  // With LdaConfig::update_every > 1: the kept-sweep counts (theta's shape) of the tiles
  // the block visited since its last update, then the number of those tiles; else empty.
  std::vector<std::uint32_t> pending;
};

struct LdaRowBlock {
  int id = 0;
  RowBlockTokens tokens;
  std::vector<double> pred_sum;  // per test token: sum over collected evaluations of p(w)
  // Sum of the collected phi samples (or E[phi | z], LdaConfig::topic_word_mean) of the
  // column block with this row-block's id. Kept here, where it never moves, rather than
  // with the travelling block: it changes only at evaluations, and every rank sees every
  // column block during an evaluation.
  std::vector<double> phi_sum;
  // Per document x K: sum over the collected evaluations of theta_hat_d, for the training
  // documents (train.tokens order) and the held-out ones (observed.tokens order).
  std::vector<double> train_theta_sum, held_out_theta_sum;
};

// Appended rather than copied over a zero-filled string: a travelling block is encoded
// every iteration, and the zero-fill was a second pass over its 1.4 MB (issue #17).
inline std::string EncodeDoubles(const std::vector<const std::vector<double>*>& parts) {
  std::size_t n = 0;
  for (const auto* p : parts) n += p->size();
  std::string bytes;
  bytes.reserve(n * sizeof(double));
  for (const auto* p : parts)
    bytes.append(reinterpret_cast<const char*>(p->data()), p->size() * sizeof(double));
  return bytes;
}

inline void DecodeDoubles(const std::string& bytes,
                          const std::vector<std::vector<double>*>& parts) {
  std::size_t n = 0;
  for (const auto* p : parts) n += p->size();
  if (bytes.size() != n * sizeof(double))
    throw Error(ExitCode::kInternal, "topic-word block of unexpected size");
  const char* in = bytes.data();
  for (auto* p : parts) {
    std::memcpy(p->data(), in, p->size() * sizeof(double));
    in += p->size() * sizeof(double);
  }
}

// A column block as it travels and is checkpointed: theta and momentum as doubles, then the
// pending counts as 32-bit integers (half the bytes of doubles).
inline std::string EncodeBlock(const LdaColBlock& block) {
  std::string bytes = EncodeDoubles({&block.theta, &block.momentum});
  bytes.append(reinterpret_cast<const char*>(block.pending.data()),
               block.pending.size() * sizeof(std::uint32_t));
  return bytes;
}

// Into `block`, already of the shape the bytes were written from.
inline void DecodeBlock(const std::string& bytes, LdaColBlock& block) {
  const std::size_t doubles = (block.theta.size() + block.momentum.size()) * sizeof(double);
  const std::size_t counts = block.pending.size() * sizeof(std::uint32_t);
  if (bytes.size() != doubles + counts)
    throw Error(ExitCode::kInternal, "topic-word block of unexpected size");
  const char* in = bytes.data();
  for (std::vector<double>* part : {&block.theta, &block.momentum}) {
    std::memcpy(part->data(), in, part->size() * sizeof(double));
    in += part->size() * sizeof(double);
  }
  std::memcpy(block.pending.data(), in, counts);
}

inline double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

struct LdaModel::Impl {
  Impl(const LdaConfig& config, const Corpus& corpus, std::optional<CorpusSurvey> survey)
      : config_(config),
        corpus_(corpus),
        roles_(ChooseDocumentRoles(corpus, config.test_fraction, config.chain.split_seed)),
        given_survey_(std::move(survey)),
        gibbs_(1, DocumentGibbs(config.topics, config.gibbs_draw)),
        mh_(1, DocumentMh(config.topics, config.mh_steps)) {
    const bool words_given =
        given_survey_ && given_survey_->word_tokens.size() == corpus.vocabulary;
    columns_ = words_given ? WordColumns(given_survey_->word_tokens, config.chain.tiles)
                           : WordColumns(corpus.vocabulary);
  }

  void SetWorkerThreads(int threads);  // lda_model.cpp

  int B() const { return grid_->blocks(); }
  std::size_t K() const { return static_cast<std::size_t>(config_.topics); }
  std::size_t Words(int j) const { return grid_->cols().Members(j).size(); }
  // The words of block j's columns, in the block's order: its members, where no word is split
  // (WordColumns); the draws of a column's theta are keyed by its word, so that the replicas
  // of a split word draw the same numbers.
  const std::vector<std::uint32_t>& BlockWords(int j) const {
    return columns_.split() ? block_words_.at(static_cast<std::size_t>(j))
                            : grid_->cols().Members(j);
  }
  // Block j's columns that are replicas of a split word: the local row and the word's index
  // in columns_.replicas().
  struct ReplicaRow {
    std::size_t row;
    std::size_t word;
  };
  // The sum over the replicas of each split word of block rows' K values, written back to
  // every replica (exact: integers below 2^53). Collective; `rows` by block id.
  void SumOverReplicas(const std::map<int, std::uint32_t*>& rows, const char* what);
  // theta_k. of block j's rows (w x K, word-major) that stand for their word: every row but
  // a split word's replicas after its first.
  void AddStandingRows(int j, const double* theta, double* total) const;
  LdaRowBlock& Row(int id) {
    return rows_[static_cast<std::size_t>(id - layout_->FirstRowBlock(comm_->rank()))];
  }
  const LdaRowBlock& Row(int id) const {
    return rows_[static_cast<std::size_t>(id - layout_->FirstRowBlock(comm_->rank()))];
  }
  double seconds_sampling() const { return seconds_running_() - eval_seconds_; }

  std::vector<std::uint64_t> Attach(const TileRun& run);
  LdaColBlock FreshBlock(int j) const;
  // A block of j's shape whose values are about to be overwritten: the storage of a block
  // this rank sent away earlier when there is one (spare_blocks_), so that a travelling
  // block's arrival neither zero-fills nor faults in fresh pages every iteration.
  LdaColBlock FreshShape(int j) {
    LdaColBlock block;
    if (!spare_blocks_.empty()) {
      block = std::move(spare_blocks_.back());
      spare_blocks_.pop_back();
    }
    block.theta.resize(Words(j) * K());
    block.momentum.resize(HasMomentum(config_.sampler) ? block.theta.size() : 0);
    block.pending.resize(PendingSize(j));
    return block;
  }
  std::size_t PendingSize(int j) const { return config_.update_every > 1 ? Words(j) * K() + 1 : 0; }
  // Whether iteration t updates the topic-word blocks (LdaConfig::update_every).
  bool UpdatesAt(std::uint64_t t) const;
  // Adds a tile's counts to block j's pending ones; when `update`, replaces the tile's counts
  // by all the pending ones, empties them and returns the number of tiles they came from.
  double GatherCounts(LdaColBlock& block, std::vector<std::uint32_t>& counts, bool update) const;
  std::vector<std::size_t> SelectMinibatch(const LdaRowBlock& rb, std::uint64_t t) const;
  void UpdateTiles(std::uint64_t t, int stratum);
  void SweepTile(LdaRowBlock& rb, int j, std::uint64_t t, int sweeps,
                 std::vector<std::uint32_t>& counts);
  bool UpdateBlock(const TopicWordStep& step, int j, const std::uint32_t* counts,
                   LdaColBlock& block, double* block_total);
  void Evaluate(const EvaluationContext& ctx);
  void AddTopicWordMeanOfAssignments();  // lda_topic_mean.cpp
  std::vector<double> InverseTotal() const;
  std::vector<double> TopicRows(std::size_t first, std::size_t count);
  void StreamTopicWordMean(const TopicRowsSink& sink);
  void StreamDocumentTopicMean(const DocumentRowsSink& sink, std::uint32_t rows_per_slice);
  std::string Fingerprint() const;

  LdaConfig config_;
  const Corpus& corpus_;
  std::vector<DocumentRole> roles_;
  Communicator* comm_ = nullptr;
  const TileGrid* grid_ = nullptr;
  const RankLayout* layout_ = nullptr;
  std::function<double()> seconds_running_;
  std::optional<CorpusSurvey> given_survey_;  // a share's; else surveyed at Attach
  // A whole corpus's training tokens of each word, counted once when it is constructed: the
  // item-block weights of the grid (grid_col_weights) and its survey's (empty for a share).
  std::vector<std::uint64_t> whole_word_tokens_;
  std::vector<std::uint64_t> whole_column_tokens_;       // the same by column (grid_col_weights)
  WordColumns columns_;                                  // the grid's columns: words, split or not
  std::vector<std::vector<std::uint32_t>> block_words_;  // per block, where columns_.split()
  std::vector<std::vector<ReplicaRow>> replica_rows_;    // per block, where columns_.split()
  CorpusSurvey survey_;

  std::vector<LdaRowBlock> rows_;
  std::map<int, LdaColBlock> cols_;  // column blocks this rank holds now
  std::vector<double> total_;        // theta_k. over the whole vocabulary
  KeyedPartials block_totals_;       // theta_k. of each updated block, for EndIteration
  bool finite_ = true;               // the last update left every parameter finite
  bool updated_ = true;              // this iteration updated the blocks (UpdatesAt)
  // Worker threads of this rank (SetWorkerThreads): the sweeps share out the documents and
  // the topic-word update the block's rows. Worker w has its own kernels, gibbs_[w] and
  // mh_[w] (the training sweeps' kernel under --doc-sampler mh); worker w > 0 adds its
  // tokens' topics to its own counts, worker_counts_[w - 1], summed into the tile's after
  // the sweeps (integers: the same total in any order).
  int threads_ = 1;
  std::vector<DocumentGibbs> gibbs_;
  std::vector<DocumentMh> mh_;
  std::vector<std::vector<std::uint32_t>> worker_counts_;
  TopicWordView view_;
  WordProposals proposals_;  // alias tables of view_'s words, for mh_
  // Per row-block (rows_ order): the kept-sweep counts of its tile, reused every iteration.
  std::vector<std::vector<std::uint32_t>> tile_counts_;
  std::vector<LdaColBlock> spare_blocks_;  // storage of blocks sent away, for FreshShape
  std::uint64_t collected_ = 0;
  std::vector<LdaTraceRow> trace_;
  DrawsTable draws_{{"log_lik_heldout", "perplexity"}};  // rank 0: one row per kept draw
  double eval_seconds_ = 0.0;
  std::uint64_t tokens_swept_ = 0;  // by this run's training Gibbs sweeps, on this rank
  double gibbs_seconds_ = 0.0;      // spent in them
};

}  // namespace carousel
