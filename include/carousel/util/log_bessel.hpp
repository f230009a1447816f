// log I_r(x) and the log von Mises-Fisher normaliser without overflow.
//
// I_r(x) leaves the double range long before the arguments SAM uses (Liu, Zhu & Song 2016,
// supplement F.3: order V/2 - 1 in the thousands, kappa in the tens of thousands), so only
// its logarithm is computed, each region by a method that meets about 1e-12 relative (in
// the log; absolute 1e-10 where log I_r(x) is near 0) there; see log_bessel.cpp.
#pragma once

namespace carousel {

// log I_r(x), the modified Bessel function of the first kind, for r >= 0 and x >= 0
// (tested for r up to 1e5 and x up to 1e6). x = 0 gives 0 for r = 0, else -infinity.
// Throws Error(kInternal) for a negative or non-finite argument.
double LogBesselI(double r, double x);

// log c_d(kappa) of the vMF distribution on S^{d-1} (main paper Sec. 4):
// c_d(kappa) = kappa^{d/2-1} / ((2 pi)^{d/2} I_{d/2-1}(kappa)); for kappa = 0 its limit, the
// uniform density log(Gamma(d/2) / (2 pi^{d/2})). d >= 2, kappa >= 0 finite, else throws
// Error(kInternal).
double LogVmfNormaliser(int d, double kappa);

}  // namespace carousel
