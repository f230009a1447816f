// Exact blocked Gibbs sampler for the BPMF model of bpmf_priors.hpp: the reference the
// SG-MCMC samplers are checked against.
//
// Model (Salakhutdinov & Mnih 2008, "Bayesian probabilistic matrix factorization using
// Markov chain Monte Carlo", with the simplification of Ahn et al. 2015, "Large-scale
// distributed Bayesian matrix factorization using stochastic gradient MCMC": scalar
// Gamma precisions instead of Normal-Wishart hyperpriors, plus biases):
//   r_ij ~ N(mu + b_i + c_j + w_i . h_j, 1/tau),   mu = training mean (fixed),
//   w_i ~ N(0, I/lambda_w), h_j ~ N(0, I/lambda_h), b_i ~ N(0, 1/lambda_b), c_j ~ N(0, 1/lambda_c),
//   tau, lambda_* ~ Gamma(a0, rate b0).
// Each sweep: (1) when priors.sample_hyper, draw tau and the lambdas from their Gamma
// conditionals; (2) draw every user's (w_i, b_i) jointly from its Gaussian conditional;
// (3) likewise every item's (h_j, c_j). Sweep 0 skips step (1) and uses priors.initial:
// a systematic scan "factors, then hyperparameters" is an equally valid Gibbs sampler,
// and drawing lambda_w from the N(0, 0.1^2) initial factors gives lambda_w ~ 100, which
// pins the factors near zero for about 100 sweeps (ml-100k u1, K = 10: posterior-mean
// RMSE 0.943 after 120 sweeps instead of 0.916). Randomness is keyed: KeyedStream(seed, kHyper, 0,
// sweep) for the hyperparameters, KeyedStream(seed, kGibbs, i, sweep) for user i and
// KeyedStream(seed, kGibbs, rows + j, sweep) for item j; initial factors are N(0, 0.1^2)
// from KeyedStream(seed, kInitRow, i, 0) / KeyedStream(seed, kInitCol, j, 0), biases 0.
#pragma once

#include <Eigen/Core>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "carousel/data/rating_matrix.hpp"
#include "carousel/model/bpmf/bpmf_priors.hpp"
#include "carousel/util/keyed_rng.hpp"

namespace carousel {

struct GibbsOptions {
  int rank = 10;
  int sweeps = 120;
  int burn_in = 20;  // sweeps 0 .. burn_in-1 are not averaged
  BpmfPriors priors;
  std::uint64_t seed = 1;
  float min_rating = 1, max_rating = 5;  // predictions are clipped to this range
};

struct GibbsResult {
  // Per test rating: posterior mean and variance (divided by the sample count) of the
  // clipped prediction over the post-burn-in sweeps.
  std::vector<double> pred_mean, pred_var;
  // Per sweep: test RMSE of that sweep's sample, and of the running posterior mean of the
  // predictions (NaN for burn-in sweeps).
  std::vector<double> rmse_sample, rmse_mean;
  BpmfHyper last_hyper;  // the hyperparameters used by the last sweep
  double mu = 0.0;       // training mean
};

// Throws carousel::SettingError for bad options (rank < 1, sweeps <= burn_in, burn_in < 0,
// min_rating > max_rating) and carousel::InputError for an empty training set or
// ratings outside the matrix.
GibbsResult RunBpmfGibbs(const RatingMatrix& train, const std::vector<Rating>& test,
                         const GibbsOptions& options);

// The ratings of one row (user or item) with the other side's ids.
struct RowRatings {
  const std::uint32_t* other = nullptr;  // ids of the other side, indexing `other_factors`
  const float* value = nullptr;
  std::size_t count = 0;
};

// One draw of a row's parameters from their Gaussian conditional, as used by
// RunBpmfGibbs. With z_j = [h_j; 1] (just h_j when !use_bias) the conditional is
//   precision  P = diag(lambda_factor I_K, lambda_bias) + tau sum_j z_j z_j^T,
//   mean       m = P^-1 tau sum_j z_j (r_j - offset - other_bias_j),
// and the draw is m + L^-T e with P = L L^T (Eigen LLT) and e ~ N(0, I) read from `rng`.
// `other_factors` is K x n (column j = h_j); `other_bias` has n entries (ignored when
// !use_bias). Returns K + 1 values (w; b) with the bias, else K.
Eigen::VectorXd SampleRowConditional(const Eigen::Ref<const Eigen::MatrixXd>& other_factors,
                                     const Eigen::Ref<const Eigen::VectorXd>& other_bias,
                                     const RowRatings& row, double offset, double tau,
                                     double lambda_factor, double lambda_bias, bool use_bias,
                                     KeyedStream& rng);

}  // namespace carousel
