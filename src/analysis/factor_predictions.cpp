#include "carousel/analysis/factor_predictions.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "carousel/data/mf_problem.hpp"
#include "carousel/io/text_output.hpp"
#include "carousel/model/amf/amf_pieces.hpp"
#include "carousel/util/mcmc_diagnostics.hpp"

namespace carousel::analysis {
namespace {

// amf: draws of a new entry per pair, over all samples together (the Monte Carlo error of
// its median is then about 0.011 / f(median), f the predictive density).
constexpr std::size_t kAmfEntryDraws = 2000;

// The q quantile of the equal mixture of N(centre, variance) over `centres`, by bisection
// of its distribution function.
double MixtureQuantile(const std::vector<double>& centres, double variance, double q) {
  const double sd = std::sqrt(variance);
  const auto [low, high] = std::minmax_element(centres.begin(), centres.end());
  double lo = *low - 10.0 * sd, hi = *high + 10.0 * sd;
  for (int i = 0; i < 60; ++i) {
    const double mid = 0.5 * (lo + hi);
    double cdf = 0.0;
    for (const double c : centres) cdf += 0.5 * std::erfc((c - mid) / (sd * M_SQRT2));
    (cdf / static_cast<double>(centres.size()) < q ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

// The mean, sd and central interval of a pair's values over the samples (quantiles of R's
// type 7).
std::vector<double> SampleSummary(const std::vector<double>& values, double level) {
  double sum = 0.0, sum_sq = 0.0;
  for (const double x : values) {
    sum += x;
    sum_sq += x * x;
  }
  const double count = static_cast<double>(values.size());
  const double mean = sum / count;
  const double variance = sum_sq / count - mean * mean;  // NaN where the values are (amf)
  const double sd = std::isnan(variance) ? variance : std::sqrt(std::max(0.0, variance));
  return {mean, sd, mcmc::Quantile(values, (1.0 - level) / 2),
          mcmc::Quantile(values, (1.0 + level) / 2)};
}

// What a new observation adds. mf: the sd and interval of a new rating (the noise 1/tau
// included); amf: the median and interval of a new entry's |X_ij| (amf_predictive.hpp).
std::vector<double> NewObservation(const SavedFactorRuns& model, const std::vector<double>& values,
                                   std::uint64_t pair, double level, double sd) {
  if (!model.amf)
    return {std::sqrt(sd * sd + model.noise_variance),
            MixtureQuantile(values, model.noise_variance, (1.0 - level) / 2),
            MixtureQuantile(values, model.noise_variance, (1.0 + level) / 2)};
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (std::isnan(values.front())) return {nan, nan, nan};
  AmfPredictiveDraws how = model.entry;
  how.draws_per_sample = (kAmfEntryDraws + values.size() - 1) / values.size();
  return AmfEntryQuantiles(values, pair, how, {0.5, (1.0 - level) / 2, (1.0 + level) / 2});
}

}  // namespace

std::vector<float> SamplePredictions(const SavedFactorRuns& model,
                                     const std::vector<std::uint32_t>& row,
                                     const std::vector<std::uint32_t>& col) {
  const std::size_t n = row.size(), samples = model.iterations.size();
  const int width = model.shape.width();
  std::vector<float> predictions(n * samples);
  for (std::size_t s = 0; s < samples; ++s) {
    const std::vector<float> w = ReadSavedFactor(model.w_files[s], model.users, width);
    const std::vector<float> h = ReadSavedFactor(model.h_files[s], model.items, width);
    for (std::size_t p = 0; p < n; ++p) {
      const float* wr = row[p] == kUnknownId ? nullptr : &w[std::size_t{row[p]} * width];
      const float* hr = col[p] == kUnknownId ? nullptr : &h[std::size_t{col[p]} * width];
      // amf: a row or column the run never saw has no scale v = (W H)_ij (NaN).
      predictions[p * samples + s] =
          !model.amf ? PredictRating(wr, hr, model.shape, model.mu, model.lo, model.hi)
          : wr && hr ? static_cast<float>(AmfScale(wr, hr, model.shape.rank))
                     : std::numeric_limits<float>::quiet_NaN();
    }
  }
  return predictions;
}

std::string PredictionColumns(const SavedFactorRuns& model) {
  return model.amf ? "row,col,mean,sd,lower,upper,median_entry,lower_entry,upper_entry\n"
                   : "user,item,mean,sd,lower,upper,sd_rating,lower_rating,upper_rating\n";
}

std::string PredictionLines(const io::RatingsFile& pairs, const std::vector<float>& predictions,
                            const SavedFactorRuns& model, double level) {
  std::string csv;
  const std::size_t n = pairs.ratings.size();
  const std::size_t samples = n > 0 ? predictions.size() / n : 0;
  std::vector<double> values(samples);
  for (std::size_t p = 0; p < n; ++p) {
    for (std::size_t s = 0; s < samples; ++s) values[s] = predictions[p * samples + s];
    std::vector<double> line = SampleSummary(values, level);
    const std::vector<double> added = NewObservation(model, values, p, level, line[1]);
    line.insert(line.end(), added.begin(), added.end());
    csv += std::to_string(pairs.ratings[p].user) + ',' + std::to_string(pairs.ratings[p].item);
    for (const double v : line) {
      csv += ',';
      io::AppendCsvNumber(csv, v);
    }
    csv += '\n';
  }
  return csv;
}

}  // namespace carousel::analysis
