// The exact conditional of Phi_ij given one entry (HAMCMC Eq. 15), by quadrature, for the
// tests of the Phi Metropolis step (amf_pieces_test.cpp: real; amf_complex_test.cpp: complex).
#pragma once

#include <cmath>
#include <vector>

#include "carousel/util/positive_stable.hpp"

namespace carousel::amf_test {

struct PhiMoments {
  double inv = 0.0;  // E[1 / Phi | x]
  double log = 0.0;  // E[log Phi | x]
};

// Moments of p(Phi | x) ∝ p(Phi) Phi^-p exp(-p x^2 / (Phi v^(2/alpha))), p = 1/2 for the real
// likelihood and 1 for the complex one (x = |X_ij|), at any alpha < 2, by quadrature of
// Kanter's representation Phi = 2 (Z(U) / E)^((1-a)/a), U ~ U(0, pi), E = e^t ~ Exp(1):
//   E[g(Phi) l(Phi)] = (1/pi) int_0^pi du int exp(t - e^t) g(Phi(u, t)) l(Phi(u, t)) dt,
// the midpoint rule on 1500 x 3000 nodes (t in [-45, 4]: the weight exp(t - e^t) is below
// e^-45 outside); the integrand is bounded and smooth inside, continuous at the ends (near
// u = pi, l ~ Phi^-p ~ (pi - u)^(p/a)). The tests check it against closed forms at alpha = 1.
inline PhiMoments PhiConditionalByQuadrature(double x, double v, double alpha, double p) {
  constexpr double kPi = 3.14159265358979323846;
  const double a = 0.5 * alpha, c = p * x * x / std::pow(v, 2.0 / alpha);
  const int nu = 1500, nt = 3000;
  const double t_lo = -45.0, t_hi = 4.0, ht = (t_hi - t_lo) / nt;
  std::vector<double> t_weight(nt), t_val(nt);
  for (int j = 0; j < nt; ++j) {
    t_val[j] = t_lo + (j + 0.5) * ht;
    t_weight[j] = std::exp(t_val[j] - std::exp(t_val[j]));
  }
  double d = 0.0, n_inv = 0.0, n_log = 0.0;
  for (int i = 0; i < nu; ++i) {
    const double log_z = LogZolotarev(a, kPi * (i + 0.5) / nu);
    for (int j = 0; j < nt; ++j) {
      const double log_phi = std::log(2.0) + (1.0 - a) / a * (log_z - t_val[j]);
      const double inv_phi = std::exp(-log_phi);
      const double w = t_weight[j] * std::exp(-p * log_phi - c * inv_phi);
      d += w;
      n_inv += w * inv_phi;
      n_log += w * log_phi;
    }
  }
  return {n_inv / d, n_log / d};
}

}  // namespace carousel::amf_test
