// Step-size schedule eps_t = a (b + t)^(-c); c = 0 gives a constant step.
// Polynomial decay as in Welling and Teh (2011), which SGLD's asymptotic exactness needs.
#pragma once

#include <cmath>
#include <cstdint>

namespace carousel {

struct StepSchedule {
  double a = 0.0;
  double b = 1.0;
  double c = 0.0;

  double At(std::uint64_t t) const {
    return c == 0.0 ? a : a * std::pow(b + static_cast<double>(t), -c);
  }
};

}  // namespace carousel
