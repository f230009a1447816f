// The spherical admixture model (SAM; Reisinger et al. 2010) sampled by SGGMC or gSGNHT as
// Liu, Zhu and Song (2016) do it (main paper Sec. 4, Eq. 9-10; supplement Alg. 3), as a
// tile model (DESIGN.md section 7).
//
// Model (Sec. 4), with mu integrated out (Eq. 9): topics beta_k on S^{V-1}, document
// proportions theta_d ~ Dir(alpha), documents v_d ~ vMF(vbar(beta, theta_d), kappa1) with
// vbar = beta' theta / |beta' theta|, and the prior term c_V(|mbar(beta)|)^-1,
// mbar = kappa0 m + sigma sum_k beta_k. The potential of beta (Eq. 10) and its gradient:
//
//   U(beta) = log c_V(|mbar|) - kappa1 sum_d v_d' vbar_d,
//   grad_{beta_k} U = -sigma A_V(|mbar|) mbar / |mbar|
//                     - kappa1 (D / S) sum_{d in S} E[theta_dk v_d / n_d - c_d theta_dk u_d],
//
// with u_d = beta' theta_d, n_d = |u_d|, c_d = v_d' u_d / n_d^3 and A_V = I_{V/2} / I_{V/2-1}
// (d/dr log c_V(r) = -A_V(r)). As a K x V matrix the data term is a sparse and a dense part,
//   sum_d E[theta_d / n_d] v_d'  -  (sum_d E[c_d theta_d theta_d']) beta,
// so a minibatch needs, per document, only s_d = beta v_d and G = beta beta' (K x K) to draw
// theta_d (topic_proportions.hpp) and to form its K-vector E[theta_d / n_d] and K x K
// E[c_d theta_d theta_d']; the expectations are averages over the kept MALA draws (the
// average over theta^(n) of Eq. 10). theta_d is kept between visits (the chain runs on
// (beta, theta)), starting from the prior mean.
//
// Distribution. Documents are rows (they stay, with theta_d); the vocabulary is cut into B
// column blocks, and topic vectors are cut with it: column block j holds the coordinates of
// every topic at its words (x and the velocity v, and the running sum of the samples). A
// document's likelihood couples its whole vocabulary (n_d and v_d' u_d), so a tile cannot be
// processed on its own: the column blocks stay where the first stratum put them
// (ColumnBlocksTravel() is false), and instead the minibatch's documents (a few kilobytes of
// sparse vectors) go to every rank once per iteration. One iteration (Alg. 3):
//   1. each rank picks the minibatch documents of its row blocks (each with probability
//      q = S / D, keyed by row block and iteration) and all ranks exchange them;
//   2. the geodesic sampler's first A and B move beta (the vector sums of that step are
//      ordered reductions over column blocks, geodesic.hpp);
//   3. at the moved beta, every rank adds s_d and G over the column blocks it holds, and an
//      ordered sum over all column blocks gives them to every rank; the owner of each
//      document runs its MALA steps and its moments go to every rank by a second ordered sum
//      (keyed by row block);
//   4. each rank forms the gradient of its column blocks, and the sampler's O, B and A finish
//      the step.
// Every sum is ordered by a block id, and all randomness is keyed by document, block and
// iteration, so the chain does not depend on the number of ranks.
//
// Evaluation (main paper Sec. 5.3): the held-out documents (copied to every rank at the start:
// every column block needs them) get log pi(v_d | beta) estimated by averaging
// vMF(v_d | vbar(beta, theta), kappa1) over `eval_draws` draws of theta from its prior Dir(alpha)
// (the same draws at every evaluation); log-perplexity = -mean_d log((1/M) sum_m
// pi(v_d | beta^(m))) over the collected samples beta^(m), and its Monte Carlo error from the
// theta draws (delta method).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "carousel/model/draws_table.hpp"
#include "carousel/model/sam/sam_config.hpp"
#include "carousel/model/tile_model.hpp"

namespace carousel {

struct SamTraceRow {
  std::uint64_t iteration = 0;
  double seconds = 0.0;                // sampling time so far, evaluations excluded
  double log_perplexity = 0.0;         // over the collected samples (the current one before)
  double log_perplexity_sample = 0.0;  // of the current sample alone
  double log_perplexity_se = 0.0;      // Monte Carlo error of the sample's, from the theta draws
  std::uint64_t samples = 0;
  double theta_acceptance = 0.0;  // of the MALA steps since the previous evaluation
  double theta_step = 0.0;        // MALA epsilon
  double thermostat = 0.0;        // gSGNHT's xi (SGGMC: its C)
};

struct SamCounts {
  std::uint64_t train_documents = 0, held_out_documents = 0, excluded_documents = 0;
  std::uint64_t train_entries = 0, held_out_entries = 0;
};

struct SamSurvey;  // sam_survey.hpp

class SamModel : public TileModel {
 public:
  // `share` and `survey` (SurveySamCorpus's, of the same share) are read until the model is
  // destroyed.
  SamModel(const SamConfig& config, const TfIdfCorpus& share, const SamSurvey& survey);
  ~SamModel() override;

  std::uint32_t grid_rows() const override;
  std::uint32_t grid_cols() const override;
  std::vector<std::uint64_t> Attach(const TileRun& run) override;
  void InitColBlock(int j) override;
  void FinishInit() override;
  bool ColumnBlocksTravel() const override { return false; }

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

  const SamCounts& counts() const;
  const std::vector<SamTraceRow>& trace() const;  // rank 0
  const DrawsTable& draws() const;                // rank 0
  std::uint64_t samples() const;
  double seconds_sampling() const;
  ModelFootprint footprint() const;
  // The posterior mean direction of every topic: the mean of the collected samples of
  // beta_k normalised to unit length (the current beta before any was collected), K x V
  // row-major, on rank 0 (empty elsewhere). Collective.
  std::vector<double> TopicMeanDirections();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace carousel
