// Bayesian PMF with biases (Salakhutdinov and Mnih 2008; the Gamma-precision form used
// by Ahn et al. 2015 for distributed SGLD), see bpmf_priors.hpp for the model. This file
// holds what a tile contributes: minibatch likelihood gradients, prior precisions,
// predictions, and the Gibbs conditionals of the precisions. Factors and biases share a
// block row: columns 0..K-1 are the factors, column K (when biases are on) the bias.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "carousel/model/bpmf/bpmf_priors.hpp"
#include "carousel/sampler/block.hpp"
#include "carousel/sampler/row_drift.hpp"
#include "carousel/sampler/sampler.hpp"
#include "carousel/util/keyed_rng.hpp"

namespace carousel {

// The ratings of one tile in compressed-row form over the tile's local rows and columns.
struct TileRatings {
  std::vector<std::uint32_t> row_start;  // size rows + 1
  std::vector<std::uint32_t> col;        // local column within the column block
  std::vector<float> value;
  // The local rows and the local columns with at least one rating here, ascending: the
  // rows an iteration on this tile steps when rows without data sit out (DESIGN.md section 9).
  std::vector<std::uint32_t> rows_with_data, cols_with_data;
  std::size_t size() const { return value.size(); }
  // Fills rows_with_data and cols_with_data from the ratings; `columns`: the column block's.
  void FindRowsAndColumnsWithData(std::size_t columns);
};

struct BpmfShape {
  int rank = 10;
  bool bias = true;
  int width() const { return rank + (bias ? 1 : 0); }
};

// Which entries of a tile are in this iteration's minibatch: all (fraction 1), or each
// entry independently with probability `fraction`, decided by a hash keyed by
// (seed, tile, iteration) so that any rank makes the same choice.
struct Subsample {
  double fraction = 1.0;
  std::uint64_t key = 0;
  bool Keeps(std::uint64_t entry) const;
  static Subsample For(double fraction, std::uint64_t seed, std::uint64_t tile,
                       std::uint64_t iteration);
};

struct TileGradientResult {
  double sse = 0.0;         // sum of squared residuals over the minibatch entries
  std::uint64_t count = 0;  // minibatch entries visited
};

// Every stride-th entry of a tile, from a keyed offset: each entry is in it with
// probability 1 / stride. Systematic rather than independent (Subsample) choice, because
// the fused pass tests it per entry: a periodic branch is predicted, a hashed coin is not
// (measured: with the hash the fused pass saved almost nothing).
struct SystematicSubset {
  std::uint32_t stride = 1, offset = 0;
  bool Keeps(std::uint64_t entry) const { return (entry + offset) % stride == 0; }
  // The first entry >= `from` in the subset.
  std::uint64_t First(std::uint64_t from) const {
    return from + (stride - (from + offset) % stride) % stride;
  }
  // stride = round(1 / fraction); offset keyed by (seed, tile, iteration).
  static SystematicSubset For(double fraction, std::uint64_t seed, std::uint64_t tile,
                              std::uint64_t iteration);
};

// A sub-minibatch of a tile's minibatch for curvature pairs (HAMCMC's y, formed on a
// subset as in Byrd et al. 2016): the entries of the minibatch that `subset` also keeps,
// and their likelihood gradient at the first pass's point.
struct CurvatureSubset {
  SystematicSubset subset;
  Matrix lik_w, lik_h;
};

// Takes each row's likelihood gradient of a tile as soon as the row's ratings are summed,
// instead of its being added to lik_w. The tile's later ratings do not read that row of W, so
// the row drifts there (deferred noise's drift, DESIGN.md section 9) while it is still in the
// cache: on the spot when the sampler's drift has the matched form of row_drift.hpp (the same
// bits as Sampler::DriftRow, without two calls per row), through DriftRow otherwise.
class RowDriftSink {
 public:
  // The rows of `block` drift as Sampler::DriftRow(block, gradient, step, r, lik,
  // moment_change) would move them; `gradient` (whose lik_sum is not read) must outlive the
  // sink. Throws what DriftRow throws for a step out of the sampler's bounds.
  RowDriftSink(const Sampler& sampler, BlockState& block, const BlockGradient& gradient,
               double step, double* moment_change)
      : sampler_(sampler),
        block_(block),
        gradient_(gradient),
        step_(step),
        moment_change_(moment_change),
        matched_(sampler.MatchedDriftTerms(gradient, step)) {}

  void operator()(Eigen::Index r, const float* lik) {
    const bool finite =
        matched_
            ? MatchedRowDrift(*matched_, *gradient_.row_data_count, block_, r, lik, moment_change_)
            : sampler_.DriftRow(block_, gradient_, step_, r, lik, moment_change_);
    finite_ = finite && finite_;
  }
  // Whether every row that drifted is finite.
  bool finite() const { return finite_; }

 private:
  const Sampler& sampler_;
  BlockState& block_;
  const BlockGradient& gradient_;
  double step_;
  double* moment_change_;
  std::optional<RowDriftTerms> matched_;
  bool finite_ = true;
};

// Adds sum_n grad log p(r_n | W, H) over the tile's minibatch entries to lik_w / lik_h
// (which the caller zeroes). Residuals use parameters as they were before this call.
// With `curvature`, the same pass also fills it (zeroed here) from the same residuals.
// With `w_sink`, each row's gradient goes to it instead (lik_w is neither read nor written;
// the same sums, bit for bit); not with `curvature`.
TileGradientResult AccumulateTileGradient(const TileRatings& tile, const Matrix& w, const Matrix& h,
                                          const BpmfShape& shape, float mu, float tau,
                                          const Subsample& subsample, Matrix& lik_w, Matrix& lik_h,
                                          CurvatureSubset* curvature = nullptr,
                                          RowDriftSink* w_sink = nullptr);

// The Fisher information of the ratings a pass visits, per parameter: for
// r ~ N(mu + b_i + c_j + w_i . h_j, 1 / tau) the information about w_if is tau h_jf^2, about
// h_jf tau w_if^2, about either bias tau (the Gauss-Newton diagonal; it does not depend on
// the parameter itself, only on its partner). Same shapes as W and H; summed like lik_w.
struct FisherSums {
  Matrix w, h;
};

// Adds the likelihood gradient of the minibatch entries (those `subsample` keeps) that are
// also in `subset` to lik_w / lik_h: the curvature subset's gradient at another point.
// With `fisher`, also their Fisher information (zeroed here) at the same point.
void AccumulateSubsetGradient(const TileRatings& tile, const SystematicSubset& subset,
                              const Subsample& subsample, const Matrix& w, const Matrix& h,
                              const BpmfShape& shape, float mu, float tau, Matrix& lik_w,
                              Matrix& lik_h, FisherSums* fisher = nullptr);

// Prior precision of each block column: lambda for the factors, lambda_bias for the bias.
Eigen::VectorXf PriorPrecision(const BpmfShape& shape, double lambda, double lambda_bias);

// mu + b_i + c_j + w_i . h_j, clipped to [lo, hi]; either row may be null (unknown user or
// item: its factors and bias count as zero, which leaves the global mean and known bias).
float PredictRating(const float* w, const float* h, const BpmfShape& shape, float mu, float lo,
                    float hi);

// Sufficient statistics of the precisions' Gibbs conditionals.
struct HyperStats {
  double sse = 0.0, n = 0.0;  // likelihood: squared residuals and how many (scaled to N)
  double w2 = 0.0, w_count = 0.0, b2 = 0.0, b_count = 0.0;
  double h2 = 0.0, h_count = 0.0, c2 = 0.0, c_count = 0.0;
};

// One Gibbs step for (tau, lambda_w, lambda_h, lambda_b, lambda_c):
// lambda ~ Gamma(a0 + count/2, rate b0 + sum_of_squares/2).
BpmfHyper SampleHyper(const BpmfPriors& priors, const HyperStats& stats, KeyedStream& stream);

// log p(data, factors, precisions) up to a constant, from the statistics above: Stan's lp__
// for the draws file. The likelihood's SSE is the minibatch's scaled to N, as in SampleHyper.
double LogJointDensity(const BpmfPriors& priors, const BpmfHyper& hyper, const HyperStats& stats);

}  // namespace carousel
