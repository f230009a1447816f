// Positive (totally skewed) stable variates by Kanter's representation.
//
// For a in (0, 1) let A be the positive a-stable variable with Laplace transform
//
//   E[exp(-s A)] = exp(-s^a),  s >= 0,
//
// i.e. A ~ S_a(gamma, 1, 0) with gamma = cos(pi a / 2)^(1/a) in the parameterisation of
// Samorodnitsky and Taqqu (1994), Def. 1.1.6 and Prop. 1.2.12 (for beta = 1, a < 1 the
// Laplace transform is exp(-gamma^a s^a / cos(pi a / 2))). Kanter (1975, "Stable densities
// under change of scale and total variation inequalities", Ann. Probab. 3, Cor. 4.1), also
// Chambers, Mallows and Stuck (1976) at beta = 1 and Devroye (2009, Sec. 2): with
// U ~ Uniform(0, pi) and E ~ Exp(1) independent,
//
//   A = sin(a U) / sin(U)^(1/a) * (sin((1 - a) U) / E)^((1 - a) / a).
//
// Equivalently A = (Z(U) / E)^((1 - a) / a) with Zolotarev's function
// Z(u) = sin(a u)^(a / (1 - a)) sin((1 - a) u) / sin(u)^(1 / (1 - a)), so that
// P(A <= y) = (1 / pi) int_0^pi exp(-Z(u) y^(-a / (1 - a))) du (used by the tests to
// integrate against the exact density). a = 1 is the point mass at 1 (E[exp(-s A)] = e^-s).
#pragma once

namespace carousel {

class KeyedStream;

// log A for A with Laplace transform exp(-s^a), a in (0, 1]; two uniforms per draw. Finite
// for every a in (0, 1] (A itself overflows a double for a below about 0.05 in its far tail).
double LogPositiveStable(double a, KeyedStream& rng);

// A = exp(LogPositiveStable(a, rng)).
double PositiveStable(double a, KeyedStream& rng);

// log Z(u) of Kanter's representation (above), u in (0, pi), a in (0, 1).
double LogZolotarev(double a, double u);

}  // namespace carousel
