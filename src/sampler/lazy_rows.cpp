#include "carousel/sampler/lazy_rows.hpp"

#include <Eigen/Core>
#include <cmath>

#include "carousel/util/error.hpp"

namespace carousel {

ComposedPriorSteps ComposePriorSteps(double a_minus_one, double variance, std::uint64_t k) {
  const double n = static_cast<double>(k);
  if (a_minus_one == 0.0) return {1.0, std::sqrt(variance * n)};
  if (a_minus_one > -1.0) {
    // a^k = exp(k log a) and (1 - a^2k) / (1 - a^2) = expm1(2k log a) / expm1(2 log a), with
    // log a = log1p(a - 1): exact to rounding for a next to 1 (a heavily rated row's steps).
    const double log_a = std::log1p(a_minus_one);
    return {std::exp(n * log_a),
            std::sqrt(variance * std::expm1(2.0 * n * log_a) / std::expm1(2.0 * log_a))};
  }
  const double a = 1.0 + a_minus_one;  // a <= 0: an unstable step, composed the plain way
  const double ak = std::pow(a, n);
  const double ratio = a * a == 1.0 ? n : (1.0 - ak * ak) / (1.0 - a * a);
  return {ak, std::sqrt(variance * ratio)};
}

void CatchUpRows(const Sampler& sampler, BlockState& block, const BlockGradient& prior, double step,
                 const NoiseKey& key, const std::vector<std::uint32_t>* rows, std::uint64_t now) {
  Matrix& theta = block.theta;
  std::vector<std::uint64_t>& clock = block.row_clock;
  if (clock.size() != static_cast<std::size_t>(theta.rows()))
    throw Error(ExitCode::kInternal, "CatchUpRows: a block without row clocks");
  if (key.iteration != now)
    throw Error(ExitCode::kInternal, "CatchUpRows: the key is not the target iteration's");
  std::vector<std::uint32_t> behind;
  const auto consider = [&](std::uint32_t r) {
    if (clock[r] < now) behind.push_back(r);
  };
  if (rows) {
    for (std::uint32_t r : *rows) consider(r);
  } else {
    for (std::uint32_t r = 0; r < clock.size(); ++r) consider(r);
  }
  if (behind.empty()) return;
  const Eigen::Index cols = theta.cols();
  const auto n = static_cast<std::size_t>(cols);
  std::vector<float> a_minus_one(n), variance(n);
  std::vector<double> a(n), power(n), square(n);
  ForEachListedRowWithNoise(key, behind, cols, [&](Eigen::Index r, const float* z) {
    sampler.PriorOnlyStep(prior, step, r, a_minus_one.data(), variance.data());
    const std::uint64_t k = now - clock[static_cast<std::size_t>(r)];
    clock[static_cast<std::size_t>(r)] = now;
    bool plain = true;  // every a in (0, 1): the common case, vectorised over the columns
    for (std::size_t c = 0; c < n; ++c)
      plain = plain && a_minus_one[c] > -1.0f && a_minus_one[c] < 0.0f;
    if (!plain) {
      for (std::size_t c = 0; c < n; ++c) {
        const ComposedPriorSteps m = ComposePriorSteps(a_minus_one[c], variance[c], k);
        theta(r, static_cast<Eigen::Index>(c)) =
            static_cast<float>(m.scale * theta(r, static_cast<Eigen::Index>(c)) + m.sd * z[c]);
      }
      return;
    }
    // a^k by squaring, in double, whose 1 - a^2 and 1 - a^2k keep 7 digits or more down to
    // a = 1 - 1e-9 (a float's a - 1 is no finer than that next to 1).
    for (std::size_t c = 0; c < n; ++c) {
      a[c] = 1.0 + static_cast<double>(a_minus_one[c]);
      power[c] = 1.0;
      square[c] = a[c];
    }
    for (std::uint64_t bits = k; bits != 0; bits >>= 1) {
      if (bits & 1)
        for (std::size_t c = 0; c < n; ++c) power[c] *= square[c];
      for (std::size_t c = 0; c < n; ++c) square[c] *= square[c];
    }
    for (std::size_t c = 0; c < n; ++c) {
      const double ratio = (1.0 - power[c] * power[c]) / (1.0 - a[c] * a[c]);
      float& x = theta(r, static_cast<Eigen::Index>(c));
      x = static_cast<float>(power[c] * x + std::sqrt(variance[c] * ratio) * z[c]);
    }
  });
}

}  // namespace carousel
