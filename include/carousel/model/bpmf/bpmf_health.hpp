// Signs that a BPMF chain has left the posterior although every number is still finite.
//
// A step far too large does not always produce NaN: the factors can blow up until every
// prediction is clipped, after which the Gibbs step drives the noise precision tau (and
// the prior precisions) toward zero, and the chain sits there for ever. Each check below
// compares a quantity with what no sample of a sane posterior can show, so a chain that
// still mixes (even a poorly tuned one) never trips them:
//   - the training RMSE of the minibatch is far above that of predicting the training
//     mean for every rating (the posterior mean predictor can only do better). Only when
//     there are at least as many ratings as parameters: on less data the posterior is
//     mostly the prior, and one sample of it may fit the few ratings worse than their mean
//     (3 ratings on 4 x 4 tiles do, at any step);
//   - the noise sd 1/sqrt(tau) is many times the ratings' sd (tau's conditional is about
//     1 / mean squared residual, so this means the residuals are that large);
//   - the prior sd of a factor interaction w.h, sqrt(K / (lambda_w lambda_h)), or of a
//     bias is many times the rating range (lambda is about 1 / mean square of its
//     factors, so predictions are that far outside the range before clipping);
//   - most test predictions are pinned at the clip range (again only when there are at
//     least as many ratings as parameters: a prior-dominated posterior spreads its
//     predictions over, and past, a narrow rating range).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "carousel/model/bpmf/bpmf_priors.hpp"

namespace carousel {

// What an evaluation saw; identical on every rank (all of it comes from ordered sums).
struct BpmfChainSnapshot {
  double rmse_train = 0.0;     // minibatch RMSE before its update; NaN if none
  bool informative = true;     // at least as many training ratings as factor parameters
  double sd_train = 0.0;       // RMSE of predicting the training mean for every rating
  double clipped_share = 0.0;  // test predictions at the clip range; NaN without a test set
  double rating_range = 0.0;   // hi - lo of the training ratings
  int rank = 0;                // K
  bool bias = true;
  bool hyper_sampled = true;  // fixed precisions cannot collapse
  BpmfHyper hyper;
};

// The thresholds, in the units of the checks above.
inline constexpr double kTrainRmseOverMeanPredictor = 1.25;
inline constexpr double kNoiseSdOverRatingSd = 10.0;
inline constexpr double kPriorSdOverRatingRange = 10.0;
inline constexpr double kClippedShare = 0.5;
// With fewer ratings than parameters the precisions' posterior is mostly their Gamma(1, 1)
// prior, under which lambda_w lambda_h below K / (10 x range)^2 has a few percent of the mass
// (a tiny run drew 0.024 and 0.16 legitimately): the precision bounds are then this many
// times wider, so that only a collapse far outside the prior (tau 1e-13) is reported.
inline constexpr double kUninformativeSlack = 100.0;

// A sentence saying what was seen, or nothing when the chain looks sane.
std::optional<std::string> DiagnoseBpmfChain(const BpmfChainSnapshot& snapshot);

}  // namespace carousel
