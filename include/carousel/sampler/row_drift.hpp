// One row's drift under deferred noise (DESIGN.md section 9): the step's drift without its
// noise, x <- x + eps G^-1 (scale lik - prior x), element by element. Sgrld::DriftRow takes
// G^-1 from its metric; a model whose gradient pass has a row's gradient in hand applies the
// same formula there, with G^-1 computed on the spot (MatchedRowDrift), instead of calling
// back through the sampler and the metric once per row a tile touches: at 64 tiles a
// Netflix-shaped user is touched 37 times a pass, and the calls cost more than the drift.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <cstring>

#include "carousel/sampler/block.hpp"

namespace carousel {

// G^-1 of one element under a metric that approximates the element's posterior precision as
// the prior's plus n data of `information` each (model/bpmf/bpmf_metric.hpp's expected-Fisher
// metric): the formula itself, so that the metric and a fused drift give the same bits.
inline float MatchedPrecisionInverse(float prior, float n, float information) {
  return 1.0f / (prior + n * information);
}

// The numbers of one iteration's drift that do not depend on the row.
struct RowDriftTerms {
  float eps = 0.0f;                    // the step
  float scale = 0.0f;                  // of the likelihood gradient (N / minibatch)
  const float* prior = nullptr;        // prior precision per column
  const float* information = nullptr;  // per datum, for MatchedPrecisionInverse (may be null)
  Eigen::Index columns = 0;
};

// Moves row x (its likelihood gradient g) by the drift, G^-1 of column c being inverse(c).
// moment_change (null: not wanted) gets weight (x_new^2 - x_old^2) added per column. Returns
// whether every new element is finite.
template <class Inverse>
inline bool DriftRowElements(const RowDriftTerms& terms, Inverse inverse, const float* g,
                             float weight, float* __restrict x, double* __restrict moment_change) {
  const float eps = terms.eps, scale = terms.scale;
  const float* __restrict prior = terms.prior;
  std::uint32_t not_finite = 0;  // an all-ones exponent: infinite or NaN
  const auto drift = [&](Eigen::Index c) {
    const float before = x[c];
    const float after = before + eps * inverse(c) * (scale * g[c] - prior[c] * before);
    x[c] = after;
    std::uint32_t bits;
    std::memcpy(&bits, &after, sizeof bits);
    not_finite |= static_cast<std::uint32_t>((bits & 0x7f800000u) == 0x7f800000u);
    return weight * (after * after - before * before);
  };
  if (moment_change)
    for (Eigen::Index c = 0; c < terms.columns; ++c) moment_change[c] += drift(c);
  else
    for (Eigen::Index c = 0; c < terms.columns; ++c) drift(c);
  return not_finite == 0;
}

// Row r of `block` moved by DriftRowElements under the matched-precision metric, its data
// count n = data_count[r] (its weight in the moments as well), and its clock counting the
// step: what Sgrld::DriftRow does with that metric, bit for bit.
inline bool MatchedRowDrift(const RowDriftTerms& terms, const Eigen::VectorXf& data_count,
                            BlockState& block, Eigen::Index r, const float* g,
                            double* moment_change) {
  const float n = data_count[r];
  const float* __restrict prior = terms.prior;
  const float* __restrict information = terms.information;
  const bool finite = DriftRowElements(
      terms, [&](Eigen::Index c) { return MatchedPrecisionInverse(prior[c], n, information[c]); },
      g, n, block.theta.row(r).data(), moment_change);
  ++block.row_clock[static_cast<std::size_t>(r)];
  return finite;
}

}  // namespace carousel
