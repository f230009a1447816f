// Step-size schedule eps_t = a (b + t)^(-c); c = 0 gives a constant step.
// Polynomial decay as in Welling and Teh (2011), which SGLD's asymptotic exactness needs.
//
// An optional warm-up multiplies the first `warmup` steps by warmup_start^(1 - t / warmup):
// the step grows geometrically from warmup_start times the schedule's to the schedule's.
// From the small random initial factors of matrix factorization the curvature the metric
// estimates lags the factors' growth, and the full step overshoots in the first iterations
// (doc/mf.md, "Step sizes"); the warm-up lies inside the burn-in, so the chain whose samples are
// kept runs the schedule above.
#pragma once

#include <cmath>
#include <cstdint>

namespace carousel {

struct StepSchedule {
  double a = 0.0;
  double b = 1.0;
  double c = 0.0;
  std::uint64_t warmup = 0;   // iterations t = 0 .. warmup - 1 of the warm-up (0: none)
  double warmup_start = 1.0;  // the factor at t = 0, in (0, 1]

  double At(std::uint64_t t) const {
    const double eps = c == 0.0 ? a : a * std::pow(b + static_cast<double>(t), -c);
    if (t >= warmup) return eps;
    return eps * std::pow(warmup_start, 1.0 - static_cast<double>(t) / static_cast<double>(warmup));
  }
};

}  // namespace carousel
