#include "carousel/model/bpmf/bpmf_health.hpp"

#include <cmath>
#include <cstdio>
#include <string>

namespace carousel {
namespace {

std::string Format(const std::string& format, double a, double b, double c = 0.0) {
  char buffer[256];
  std::snprintf(buffer, sizeof buffer, format.c_str(), a, b, c);
  return buffer;
}

}  // namespace

std::optional<std::string> DiagnoseBpmfChain(const BpmfChainSnapshot& s) {
  // Ratings that are all equal give no scale to compare with.
  if (!(s.sd_train > 0.0 && s.rating_range > 0.0)) return std::nullopt;
  if (s.informative && s.rmse_train > kTrainRmseOverMeanPredictor * s.sd_train)
    return Format(
        "the training RMSE is %.4g, above %.4g, the RMSE of predicting the training mean (%.4g) "
        "for every rating",
        s.rmse_train, kTrainRmseOverMeanPredictor * s.sd_train, s.sd_train);
  if (s.hyper_sampled) {
    const double slack = s.informative ? 1.0 : kUninformativeSlack;
    const double noise_bound = slack * kNoiseSdOverRatingSd;
    const double prior_bound = slack * kPriorSdOverRatingRange;
    const double noise_sd = 1.0 / std::sqrt(s.hyper.tau);
    if (!(noise_sd <= noise_bound * s.sd_train))
      return Format(
          "the noise precision tau collapsed to %.3g: a noise sd of %.3g, more than %.0f times "
          "the ratings' sd",
          s.hyper.tau, noise_sd, noise_bound);
    const double interaction_sd = std::sqrt(s.rank / (s.hyper.lambda_w * s.hyper.lambda_h));
    if (!(interaction_sd <= prior_bound * s.rating_range))
      return Format(
          "the precisions lambda_w = %.3g and lambda_h = %.3g collapsed: the prior sd of w.h is "
          "%.3g, more than " +
              std::to_string(static_cast<int>(prior_bound)) + " times the rating range",
          s.hyper.lambda_w, s.hyper.lambda_h, interaction_sd);
    if (s.bias) {
      const double bias_sd = 1.0 / std::sqrt(std::fmin(s.hyper.lambda_b, s.hyper.lambda_c));
      if (!(bias_sd <= prior_bound * s.rating_range))
        return Format(
            "the bias precisions lambda_b = %.3g and lambda_c = %.3g collapsed: a bias prior sd "
            "of %.3g, more than " +
                std::to_string(static_cast<int>(prior_bound)) + " times the rating range",
            s.hyper.lambda_b, s.hyper.lambda_c, bias_sd);
    }
  }
  if (s.informative && s.clipped_share > kClippedShare)
    return Format(
        "%.1f%% of the test predictions are pinned at the clip range (more than %.0f%%): the "
        "factors are far too large",
        100.0 * s.clipped_share, 100.0 * kClippedShare);
  return std::nullopt;
}

}  // namespace carousel
