// Rows that sit out iterations without data (DESIGN.md section 9).
//
// A model that steps only the rows with a likelihood term in an iteration (Sampler::StepRows)
// leaves the others behind: each iteration a row sits out would have been the sampler's
// prior-only step, elementwise theta <- a theta + s z with z ~ N(0, 1) and a, s fixed while
// the step size, the prior precision and the metric are (Sampler::PriorOnlyStep). k such
// steps are a sum of independent Gaussians,
//   theta_k = a^k theta_0 + s (z_k + a z_{k-1} + ... + a^(k-1) z_1)
//           ~ a^k theta_0 + s sqrt((1 - a^2k) / (1 - a^2)) z         (s sqrt(k) z at a = 1),
// so one draw gives the k steps' exact law. For SGRLD's "ou" transition (sgrld.hpp) this is
// the Ornstein-Uhlenbeck transition over k times the step's time; for Euler's step it is
// the law of k Euler steps, not of the diffusion. The row's clock (BlockState::row_clock)
// says how many steps it lags.
//
// Randomness stays keyed (DESIGN.md section 1): the one normal per element is keyed by
// (seed, the caller's catch-up purpose, row id, the iteration the row is brought to). A row
// is brought to a given iteration at most once, so no key is used twice, and whoever holds
// the row draws the same numbers.
#pragma once

#include <cstdint>
#include <vector>

#include "carousel/sampler/block.hpp"
#include "carousel/sampler/sampler.hpp"

namespace carousel {

// Brings the listed rows (ascending local indices; null: every row) of `block` to iteration
// `now`: each row whose clock is below it takes its composed prior-only steps, drawn from
// `key` (its iteration must be `now`), and its clock becomes `now`. `prior` holds the prior
// precision and what the sampler's metric reads, with scale 0 (no likelihood term; its
// lik_sum is not read). The caller guarantees that `step` and the prior precision were
// those of every step a row sat out; the metric is the one `prior` gives now (the law of
// the skipped steps exactly where the metric was the same for them all).
void CatchUpRows(const Sampler& sampler, BlockState& block, const BlockGradient& prior, double step,
                 const NoiseKey& key, const std::vector<std::uint32_t>* rows, std::uint64_t now);

// The composed map of k prior-only steps of one element: theta_k = scale * theta + sd * z.
struct ComposedPriorSteps {
  double scale, sd;
};
ComposedPriorSteps ComposePriorSteps(double a_minus_one, double variance, std::uint64_t k);

}  // namespace carousel
