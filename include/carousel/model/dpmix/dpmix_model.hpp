// Dirichlet-process mixture of multinomials as a tile model (DESIGN.md section 7; SCIR paper,
// Baker, Fearnhead, Fox and Nemeth 2018, Sec. 4.2, Eq. 4.1; Dunson and Xing 2009):
//   x_i | theta, z_i ~ Multi(n_i, omega_{z_i}),   (omega, z_i) ~ DP(Dir(a), alpha),
//   alpha ~ Gamma(alpha_shape, alpha_rate).
// Observations are rows and categories columns of the B x B tile grid. A row-block keeps its
// observations' allocations z_i (as component serial numbers, which never change). The
// component parameters, in the Gamma (expanded-mean) form theta_kc ~ Gamma(a, 1),
// omega_kc = theta_kc / theta_k., are cut into B category blocks (K x |block|) that rotate
// like LDA's topic-word columns. The instantiated components' serials, unnormalised weights,
// exact occupied counts m_k, the rest mass and alpha are small global state, the same on
// every rank, combined by ordered reductions.
//
// ---- The minibatched slice sampler (derived here; the paper's supplement is not at hand).
// Walker (2007) and Kalli, Griffin and Walker (2011) add u_i with
//   p(x, z, u | G) = prod_i 1(u_i < w_{z_i}) Multi(x_i; omega_{z_i}),
// whose u-marginal is the mixture itself. We write the random measure not by ordered sticks
// but by its posterior given the allocations (Ferguson 1973; the DP is conjugate):
//   G | z ~ DP(alpha G0 + sum_i delta_{theta_{z_i}}), so
//   (w_1, ..., w_K, w_rest) | z ~ Dirichlet(m_1, ..., m_K, alpha)            (D1)
// over the K occupied components and the rest, whose atoms form w_rest * DP(alpha, G0),
// independent of everything observed. In Gamma form (Sec. 1.2 of the SCIR paper):
// g_k ~ Gamma(m_k, 1), g_rest ~ Gamma(alpha, 1), w = g / (sum_k g_k + g_rest). One iteration:
//   1. alpha | K, L (Escobar and West 1995, Sec. 6): eta ~ Beta(alpha + 1, L), then
//      alpha ~ pi Gamma(s + K, r - log eta) + (1 - pi) Gamma(s + K - 1, r - log eta),
//      pi / (1 - pi) = (s + K - 1) / (L (r - log eta)); K occupied components, L training
//      observations. Exact: alpha depends on (z, G) only through K.
//   2. The weights: one SCIR step (Eq. 2.3; or SGRLD) of every g_k with shape m_k and of
//      g_rest with shape alpha, i.e. a move that leaves (D1) invariant. m_k is exact, not a
//      minibatch estimate: every z_i is stored, so m is K numbers added over row-blocks.
//   3. A minibatch S: each training observation independently with probability
//      q = minibatch / L. For i in S, u_i ~ U(0, w_{z_i}).
//   4. Components are created until w_rest < min_{i in S} u_i: break the rest,
//      v ~ Beta(1, alpha), g_new = v g_rest, g_rest <- (1 - v) g_rest (stick breaking of
//      w_rest * DP(alpha, G0), Sethuraman 1994), theta_new,c ~ Gamma(a, 1). Components with
//      w_k < u_i cannot take observation i, so no other component is needed (truncation
//      free). Draws keyed by (seed, iteration, serial / category): every rank creates the
//      same components with the same values whatever the rank count.
//   5. z_i | u_i, G for i in S: P(z_i = k) prop. to 1(w_k > u_i) prod_c omega_kc^{x_ic}.
//      The sum over c runs over every category block: copies of the column blocks make
//      B - 1 ring steps past the row-blocks (as LDA's evaluation), so z_i is an exact
//      Gibbs draw given the current theta.
//   6. m_k over all training observations (ordered sum over row-blocks); components left
//      empty have weight 0 under (D1): their g_k is merged into g_rest and they are dropped
//      everywhere (their mass is part of the rest measure again).
//   7. theta of each local tile's block by SCIR (or SGRLD) with
//      a_hat_kc = a + (B / q) sum_{i in S, row-block of the tile, z_i = k} x_ic,
//      the D / n scaling of the paper (Sec. 1.1, Eq. 1.2): the tile holds 1/B of the
//      observations (DSGLD, as LDA) and each was chosen with probability q.
// With q = 1 and B = 1, step 7 is the exact CIR transition with the full conditional's
// shapes, so the chain differs from a Gibbs sampler only in that theta and the weights move
// by exact CIR transitions instead of fresh draws (DESIGN.md section 5: tested against the
// collapsed Gibbs sampler of dpmix_gibbs.hpp in tests/model/dpmix_test.cpp).
//
// Evaluation: the held-out log predictive probability per observation (the paper's
// Fig. 3b), log p(x | G) = log[sum_k w_k Multi(x; omega_k) + w_rest DirMult(x; a)] (the rest
// measure's atoms integrated out), for the current sample and averaged over the collected
// samples (log of the mean probability).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "carousel/comm/communicator.hpp"
#include "carousel/data/corpus.hpp"
#include "carousel/model/dpmix/dpmix_config.hpp"
#include "carousel/model/tile_model.hpp"

namespace carousel {

struct DpmixTraceRow {
  std::uint64_t iteration = 0;
  double seconds = 0.0;          // sampling time so far, evaluations excluded
  double log_pred = 0.0;         // per held-out observation, of the averaged predictive
  double log_pred_sample = 0.0;  // of the current sample alone
  std::uint64_t occupied = 0;    // occupied components
  double alpha = 0.0;
  std::uint64_t samples = 0;
};

// Sizes of the problem and an order-free checksum, the same on every rank.
struct DpmixSurvey {
  std::uint64_t train = 0, held_out = 0, empty = 0, entries = 0;
  std::vector<std::uint64_t> stratum_sizes;  // training entries per stratum
  std::uint64_t checksum = 0;
};

// The survey of a corpus shared by rank (io/corpus_loader.hpp). Collective.
DpmixSurvey SurveyDpmixShare(Communicator& comm, const Corpus& share, const DpmixConfig& config);

// One observation's cluster in clusters.csv.
struct DpmixCluster {
  std::uint32_t observation = 0;
  std::int64_t component = -1;  // row of components.npy, -1: not among them
  double share = 0.0;           // of the collected samples (training), 1 for held-out
  bool held_out = false;
};

class DpmixModel : public TileModel {
 public:
  DpmixModel(const DpmixConfig& config, const Corpus& corpus);  // whole corpus
  DpmixModel(const DpmixConfig& config, const Corpus& share, const DpmixSurvey& survey);
  ~DpmixModel() override;

  std::uint32_t grid_rows() const override;
  std::uint32_t grid_cols() const override;
  std::vector<std::uint64_t> Attach(const TileRun& run) override;
  void InitColBlock(int j) override;
  void FinishInit() override;
  void UpdateTiles(const IterationContext& ctx) override;
  void UpdateRows(const IterationContext&) override {}
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

  const DpmixSurvey& survey() const;
  const std::vector<DpmixTraceRow>& trace() const;  // rank 0
  double alpha() const;
  std::size_t occupied() const;                // instantiated components after an iteration
  std::vector<double> weights() const;         // w_1..w_K, w_rest (sums to 1)
  std::vector<std::uint64_t> serials() const;  // of the K components
  // Every training observation's allocation as a component serial, in observation id order
  // (rank-local: other ranks' observations are left at UINT64_MAX).
  std::vector<std::uint64_t> Allocations() const;
  // log p(x | current G) for count vectors over the categories (dense rows), the predictive
  // of the current sample. Needs every column block on this rank (one rank; tests).
  std::vector<double> LogPredictive(const std::vector<std::vector<std::uint32_t>>& x) const;

  // Posterior means over the collected samples of the weight and omega of each current
  // component, rows of 1 + categories values, on rank 0 (empty elsewhere). Collective.
  std::vector<double> ComponentMeans();
  // Every observation's most probable component, on rank 0 in id order. Collective.
  std::vector<DpmixCluster> Clusters();
  double seconds_sampling() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace carousel
