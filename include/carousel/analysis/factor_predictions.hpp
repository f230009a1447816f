// The predictive summaries of (user, item) pairs that `carousel predict` writes, from the
// samples of finished mf or amf runs, pooled (analysis/saved_factor_runs.hpp).
//
// amf: each saved sample gives the entry's scale v = (W H)_ij (Eq. 14: X_ij ~
// S_alpha(v^(1/alpha))); over the samples its mean, sd and central interval, then the median
// and central interval of a new entry's |X_ij| (model/amf/amf_predictive.hpp). A row or
// column the run never saw has no scale: its numbers are NaN.
//
// Each saved sample gives each pair the prediction the run itself makes (PredictRating:
// mu + b_i + c_j + w_i . h_j, clipped to the training ratings' range; an unseen user or item
// has zero factors and bias, which leaves the global mean and the known bias). Over the
// samples: the mean and sd (computed as predictions.csv computes them over the kept draws)
// and the central interval between the (1 - level)/2 and (1 + level)/2 sample quantiles
// (R's type 7). These describe the uncertainty of the predicted mean rating. For a new
// rating the observation noise N(0, 1/tau) adds to it: sd_rating = sqrt(sd^2 + 1/tau) and
// [lower_rating, upper_rating], the quantiles of the mixture over the samples of
// N(prediction, 1/tau), with tau the run's posterior mean of the noise precision
// (model.json's hyper_mean). One process; one sample's W and H in memory at a time, plus one
// float per pair and sample.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "carousel/analysis/saved_factor_runs.hpp"
#include "carousel/io/ratings_reader.hpp"

namespace carousel::analysis {

// Every pair's prediction under every saved sample, pair-major; `row` and `col` are the
// pairs' dense rows, kUnknownId where training never saw the user or item.
std::vector<float> SamplePredictions(const SavedFactorRuns& model,
                                     const std::vector<std::uint32_t>& row,
                                     const std::vector<std::uint32_t>& col);

// The CSV header line of the predictions (with its newline).
std::string PredictionColumns(const SavedFactorRuns& model);

// The CSV lines of the pairs: the summary over the samples, then the new observation's, with
// central intervals of probability `level`.
std::string PredictionLines(const io::RatingsFile& pairs, const std::vector<float>& predictions,
                            const SavedFactorRuns& model, double level);

}  // namespace carousel::analysis
