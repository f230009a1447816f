// Generalised inverse Gaussian variates, GIG(p, a, b): density on x > 0 proportional to
//   x^(p - 1) exp(-(a x + b / x) / 2),  a, b > 0, any real p.
// With x = sqrt(b / a) e^y, y has the log-concave density proportional to
//   exp(p y - omega cosh y),  omega = sqrt(a b),
// which is drawn exactly by rejection from a three-piece envelope (Devroye 1986,
// "Non-Uniform Random Variate Generation", Sec. VII.2; Devroye 2014, "Random variate
// generation for the generalized inverse Gaussian distribution", Stat. Comput. 24, uses
// the same idea): flat, at the mode's height, between the two points where the log-density
// has fallen by 1 from its mode, and beyond them the exponential tails of its tangents,
// which lie above a log-concave density. The law is exact for any such points, so their
// search needs no precision. Acceptance is at least (1 - 1/e) / (1 + 1/e) = 46% whatever p
// and omega are: with psi = log-density drop from the mode, psi <= |y - mode| / d on each
// side's flat stretch of length d (convexity, psi = 1 at its end), so the target holds at
// least (1 - 1/e) of the flat mass; and the tangent's slope there is at least 1 / d, so each
// tail of the envelope holds at most d / e.
#pragma once

#include "carousel/util/keyed_rng.hpp"

namespace carousel {

// y with density proportional to exp(p y - omega cosh y); omega > 0 and finite.
double LogGigVariate(double p, double omega, KeyedStream& rng);

// x ~ GIG(p, a, b); a, b > 0 and finite.
double GigVariate(double p, double a, double b, KeyedStream& rng);

}  // namespace carousel
