// Latent Dirichlet allocation as a tile model (DESIGN.md sections 1 and 7).
//
// Documents are rows and vocabulary words are columns of the B x B tile grid. A row-block
// holds its documents' tokens and topic assignments; the topic-word parameters are cut into
// B column blocks (K x |block| each) that travel like the factor blocks of matrix
// factorization, so no rank ever holds the whole K x V matrix. Per tile, Gibbs sweeps over
// the minibatch documents' tokens in it (with phi from the column block and the per-topic
// totals theta_k.), then the block's update with a_hat = beta + scale * nbar (SCIR, SGRLD
// or SGRHMC). The per-topic totals are combined across ranks once per iteration (K numbers
// per block, in block order); SGRLD and SGRHMC also combine count_hat_k. before their
// update.
//
// Evaluation (document completion): held-out documents' observed tokens are swept with the
// current phi while copies of the column blocks tour the ring, B steps per pass; a last
// pass computes p(w) = sum_k theta_hat_dk phi_kw for every test token. Trace seconds count
// sampling only, not evaluation.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "carousel/data/corpus.hpp"
#include "carousel/model/draws_table.hpp"
#include "carousel/model/lda/lda_config.hpp"
#include "carousel/model/tile_model.hpp"

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
  std::uint64_t threads = 1;       // that ran them (LdaModel::SetWorkerThreads)
};

// What every rank must know of the whole corpus: its counts, the training tokens of each
// stratum (for the size-weighted random schedule) and an order-free checksum of its
// documents (for checkpoints).
struct CorpusSurvey {
  LdaCounts counts;
  std::vector<std::uint64_t> stratum_sizes;
  std::uint64_t checksum = 0;
  // Training tokens of each word: the weights that balance the column blocks (TileGrid), so
  // that no rank's word block holds far more tokens than the others' (Zipf's law puts a
  // tenth of a corpus's tokens on its commonest word).
  std::vector<std::uint64_t> word_tokens;
  // Training tokens of each of the grid's columns (WordColumns): word_tokens where no word is
  // split among several columns.
  std::vector<std::uint64_t> column_tokens;
};

// The survey of a corpus shared by rank (io/corpus_loader.hpp): each rank surveys the
// documents of its row blocks, and the surveys are added up. Collective.
CorpusSurvey SurveyCorpusShare(Communicator& comm, const Corpus& share, const LdaConfig& config);

class LdaModel : public TileModel {
 public:
  // A corpus held whole (one process, or tests): surveyed when the run attaches.
  LdaModel(const LdaConfig& config, const Corpus& corpus);
  // This rank's share of a corpus (documents of other ranks' row blocks empty) with the
  // whole corpus's survey. Either way the documents are read only until the engine has
  // attached the model (its tokens hold them then); the sizes and words are read later.
  LdaModel(const LdaConfig& config, const Corpus& share, const CorpusSurvey& survey);
  ~LdaModel() override;

  // Threads this rank runs its training sweeps and topic-word updates on (at least 1; 1
  // until set), and builds its tokens and first topic-word blocks on when set before the
  // engine attaches the model. The results do not depend on it: documents and rows have
  // streams of their own.
  void SetWorkerThreads(int threads);

  // The words split among several columns of the grid (WordColumns), as "word (R columns)"
  // with the word from `vocab` where given, else its 1-based id; empty where none is.
  std::string SplitWordsText(const std::vector<std::string>& vocab) const;

  std::uint32_t grid_rows() const override;
  std::uint32_t grid_cols() const override;
  std::vector<std::uint64_t> grid_col_weights() const override;
  std::vector<std::uint64_t> Attach(const TileRun& run) override;
  void InitColBlock(int j) override;
  void FinishInit() override;

  void UpdateTiles(const IterationContext& ctx) override;
  void UpdateRows(const IterationContext&) override {}
  void EndIteration(const IterationContext& ctx) override;

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

  const LdaCounts& counts() const;
  std::uint64_t tokens_held() const;              // training tokens of this rank's documents
  ModelFootprint footprint() const;               // the corpus share and tokens as data
  const std::vector<LdaTraceRow>& trace() const;  // rank 0
  const DrawsTable& draws() const;                // rank 0: one row per kept draw
  // Held-out document ids (global, ascending), the same on every rank. Collective.
  std::vector<std::uint32_t> HeldOutDocuments() const;

  // The posterior mean of phi over the collected samples (the current phi when none was
  // collected yet), handed to `sink` on rank 0 in slices of whole topics: `count` rows of
  // V words in vocabulary order, topics first .. first + count - 1. Collective. Slices
  // hold ceil(K / B) topics, so rank 0 never holds the whole K x V matrix.
  using TopicRowsSink =
      std::function<void(std::size_t first, std::size_t count, const std::vector<double>& rows)>;
  void StreamTopicWordMean(const TopicRowsSink& sink);
  // The posterior mean of every document's topic proportions theta_d over the collected
  // samples, D x K in document id order (all documents of the corpus): a training
  // document's theta_hat = (n_dk + alpha) / (n_d + K alpha) from its topic assignments at
  // each collected evaluation; a held-out document's is its document-completion estimate
  // from its observed tokens (averaged over the evaluation's kept passes); a document
  // without tokens gets the prior mean 1/K. Before any sample was collected: the current
  // state's. Handed to `sink` on rank 0 in slices of consecutive documents (`count` rows
  // of K values, documents first .. first + count - 1) of `rows_per_slice` documents (0:
  // about 16 MiB each), so no rank holds the whole matrix. Collective; an Error thrown by
  // `sink` is rethrown on every rank after the last slice.
  using DocumentRowsSink = TopicRowsSink;
  void StreamDocumentTopicMean(const DocumentRowsSink& sink, std::uint32_t rows_per_slice = 0);
  std::uint64_t samples() const;  // evaluations collected into the posterior means
  // The whole K x V posterior mean on rank 0 (empty elsewhere), for tests and small
  // problems; `samples` as samples(). Collective.
  std::vector<double> TopicWordMean(std::uint64_t* samples);

  double seconds_sampling() const;  // sampling only, including resumed runs
  LdaGibbsStats gibbs_stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace carousel
