// log I_r(x) by region (see log_bessel.hpp); DLMF = NIST Digital Library of Mathematical
// Functions, https://dlmf.nist.gov. Each region's method and threshold were checked against
// mpmath at 50 digits (tests/util/log_bessel_reference.py, tests/util/log_bessel_test.cpp):
//   r >= 25:             the uniform asymptotic (Debye) expansion, DLMF 10.41.3, with
//                        u_1 .. u_16; its truncation error is below 1e-17 for r >= 25
//                        (sup over [0, 1] of |u_k| / r^k, k = 13..16), uniformly in x.
//   r < 25, x <= 500:    the power series DLMF 10.25.2 (the one of supplement F.3), summed
//                        with a running rescale so no term overflows (the log-sum-exp idea).
//   r < 25, x > 500:     the large-argument expansion DLMF 10.40.1, whose terms fall fast
//                        there (4 r^2 < 2500 < 8 x).
#include "carousel/util/log_bessel.hpp"

#include <cmath>
#include <limits>

#include "carousel/util/error.hpp"

namespace carousel {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kDebyeMinOrder = 25.0;
constexpr double kSeriesMaxArgument = 500.0;
constexpr int kDebyeTerms = 16;

// Coefficients of u_k(t), k = 1..16 (DLMF 10.41.10, recurrence u_{k+1}(t) =
// t^2 (1 - t^2) u_k'(t) / 2 + (1/8) int_0^t (1 - 5 s^2) u_k(s) ds, u_0 = 1), of the powers
// t^k, t^{k+2}, .., t^{3k}: k + 1 of them per k. Printed by tests/util/debye_coefficients.py
// (exact rational arithmetic, rounded to double).
// clang-format off
constexpr double kDebyeU[] = {
    // u_1: t^1 .. t^3
    0.125, -0.20833333333333334,
    // u_2: t^2 .. t^6
    0.0703125, -0.40104166666666669, 0.3342013888888889,
    // u_3: t^3 .. t^9
    0.0732421875, -0.89121093750000002, 1.8464626736111112, -1.0258125964506173,
    // u_4: t^4 .. t^12
    0.112152099609375, -2.3640869140624998, 8.78912353515625, -11.207002616222994,
    4.6695844234262474,
    // u_5: t^5 .. t^15
    0.22710800170898438, -7.3687943594796321, 42.534998745388457, -91.818241543240021,
    84.636217674600729, -28.212072558200244,
    // u_6: t^6 .. t^18
    0.57250142097473145, -26.491430486951554, 218.19051174421159, -699.57962737613252,
    1059.9904525279999, -765.25246814118168, 212.57013003921713,
    // u_7: t^7 .. t^21
    1.7277275025844574, -108.09091978839466, 1200.9029132163525, -5305.646978613403,
    11655.393336864534, -13586.550006434138, 8061.7221817373093, -1919.4576623184071,
    // u_8: t^8 .. t^24
    6.074042001273483, -493.915304773088, 7109.5143024893641, -41192.65496889755,
    122200.46498301746, -203400.17728041555, 192547.00123253153, -96980.598388637518,
    20204.291330966149,
    // u_9: t^9 .. t^27
    24.380529699556064, -2499.8304818112097, 45218.768981362729, -331645.17248456361,
    1268365.2733216248, -2813563.2265865342, 3763271.2976564039, -2998015.9185381066,
    1311763.6146629772, -242919.18790055133,
    // u_10: t^10 .. t^30
    110.01714026924674, -13886.08975371704, 308186.40461266239, -2785618.1280864547,
    13288767.166421818, -37567176.660763353, 66344512.274729028, -74105148.211532652,
    50952602.492664643, -19706819.118432228, 3284469.8530720379,
    // u_11: t^11 .. t^33
    551.33589612202059, -84005.433603024081, 2243768.1779224495, -24474062.72573873,
    142062907.79753309, -495889784.27503031, 1106842816.8230145, -1621080552.1083372,
    1553596899.57058, -939462359.6815784, 325573074.18576574, -49329253.66450996,
    // u_12: t^12 .. t^36
    3038.0905109223841, -549842.32757228869, 17395107.553978164, -225105661.88941526,
    1559279864.8792574, -6563293792.6192846, 17954213731.155602, -33026599749.800724,
    41280185579.753975, -34632043388.158775, 18688207509.295826, -5866481492.0518475,
    814789096.11831212,
    // u_13: t^13 .. t^39
    18257.755474293175, -3871833.4425726128, 143157876.71888897, -2167164983.2237949,
    17634730606.834969, -87867072178.02327, 287900649906.15057, -645364869245.37646,
    1008158106865.3821, -1098375156081.2233, 819218669548.57727, -399096175224.46649,
    114498237732.0258, -14679261247.695616,
    // u_14: t^14 .. t^42
    118838.42625678325, -29188388.122220814, 1247009293.5127103, -21822927757.529224,
    205914503232.41, -1196552880196.1816, 4612725780849.1318, -12320491305598.287,
    23348364044581.84, -31667088584785.16, 30565125519935.32, -20516899410934.438,
    9109341185239.8984, -2406297900028.5039, 286464035717.67902,
    // u_15: t^15 .. t^45
    832859.3040162893, -234557963.52225152, 11465754899.448236, -229619372968.24646,
    2485000928034.0854, -16634824724892.48, 74373122908679.141, -232604831188939.94,
    523054882578444.62, -857461032982895, 1026955196082762.5, -889496939881026.5,
    542739664987659.75, -221349638702525.19, 54177510755106.047, -6019723417234.0059,
    // u_16: t^16 .. t^48
    6252951.493434797, -2001646928.1917763, 110997405139.17902, -2521558474912.8545,
    31007436472896.461, -236652530451649.25, 1212675804250347.5, -4379325838364015.5,
    11486706978449752, -22268225133911144, 32138275268586240, -34447226006485144,
    27054711306197080, -15129826322457682, 5705782159023671, -1301012723549699.5,
    135522158703093.69,
};
// clang-format on

// u_k(p) / nu^k summed for k = 0..16: the series factor of DLMF 10.41.3.
double DebyeSum(double nu, double p) {
  const double p2 = p * p;
  double sum = 1.0;
  double pk = 1.0;    // p^k
  double nu_k = 1.0;  // nu^-k
  const double* c = kDebyeU;
  for (int k = 1; k <= kDebyeTerms; ++k) {
    pk *= p;
    nu_k /= nu;
    // Horner in p^2 over the k + 1 coefficients of t^k .. t^{3k}.
    double poly = c[k];
    for (int i = k - 1; i >= 0; --i) poly = poly * p2 + c[i];
    sum += pk * poly * nu_k;
    c += k + 1;
  }
  return sum;
}

// DLMF 10.41.3: I_nu(nu z) ~ e^{nu eta} / ((2 pi nu)^{1/2} (1 + z^2)^{1/4})
// sum_k u_k(p) / nu^k, with eta = (1 + z^2)^{1/2} + log(z / (1 + (1 + z^2)^{1/2}))
// (DLMF 10.41.7) and p = (1 + z^2)^{-1/2} (DLMF 10.41.8).
double LogBesselDebye(double nu, double x) {
  const double z = x / nu;
  const double s = std::hypot(1.0, z);
  const double eta = s + std::log(z) - std::log1p(s);
  return nu * eta - 0.5 * std::log(2.0 * kPi * nu) - 0.5 * std::log(s) +
         std::log(DebyeSum(nu, 1.0 / s));
}

// log of S = sum_n (x/2)^{2n} Gamma(nu + 1) / (n! Gamma(n + nu + 1)), so that (DLMF 10.25.2)
// log I_nu(x) = nu log(x/2) - log Gamma(nu + 1) + log S. The terms follow by their ratio
// (more accurate than one lgamma per term); when the sum nears the double range it is
// scaled down and the scale kept in `offset` (supplement F.3 does the same in log space).
double LogBesselSeriesSum(double nu, double x) {
  const double q = 0.25 * x * x;
  double term = 1.0, sum = 1.0, offset = 0.0;
  constexpr double kRescale = 1e250;
  for (double n = 1.0;; n += 1.0) {
    term *= q / (n * (n + nu));
    sum += term;
    if (sum > kRescale) {
      sum /= kRescale;
      term /= kRescale;
      offset += std::log(kRescale);
    }
    // Past the largest term (ratio < 1) the remaining tail is below term * ratio / (1 - ratio).
    const double ratio = q / ((n + 1.0) * (n + 1.0 + nu));
    if (ratio < 0.5 && term < 1e-17 * sum) break;
  }
  return offset + std::log(sum);
}

double LogBesselSeries(double nu, double x) {
  return nu * std::log(0.5 * x) - std::lgamma(nu + 1.0) + LogBesselSeriesSum(nu, x);
}

// DLMF 10.40.1: I_nu(x) ~ e^x / (2 pi x)^{1/2} sum_k (-1)^k a_k(nu) / x^k, with
// a_k(nu) = prod_{j=1..k} (4 nu^2 - (2j - 1)^2) / (k! 8^k) (DLMF 10.17.1). The other
// exponential of the full expansion is e^{-2x} smaller: nothing in double for x > 500.
double LogBesselLargeArgument(double nu, double x) {
  const double mu = 4.0 * nu * nu;
  double term = 1.0, sum = 1.0;
  for (int k = 1; k < 1000; ++k) {
    const double odd = 2.0 * k - 1.0;
    const double next = -term * (mu - odd * odd) / (8.0 * k * x);
    if (std::abs(next) >= std::abs(term) && k > 2.0 * nu + 1.0) break;  // least term passed
    term = next;
    sum += term;
    if (std::abs(term) < 1e-17 * std::abs(sum)) break;
  }
  return x - 0.5 * std::log(2.0 * kPi * x) + std::log(sum);
}

}  // namespace

double LogBesselI(double r, double x) {
  if (!(r >= 0.0) || !(x >= 0.0) || !std::isfinite(r) || !std::isfinite(x))
    throw Error(ExitCode::kInternal, "LogBesselI: r >= 0 and x >= 0 finite required");
  if (x == 0.0) return r == 0.0 ? 0.0 : -std::numeric_limits<double>::infinity();
  if (r >= kDebyeMinOrder) return LogBesselDebye(r, x);
  if (x <= kSeriesMaxArgument) return LogBesselSeries(r, x);
  return LogBesselLargeArgument(r, x);
}

double LogVmfNormaliser(int d, double kappa) {
  if (d < 2 || !(kappa >= 0.0) || !std::isfinite(kappa))
    throw Error(ExitCode::kInternal, "LogVmfNormaliser: d >= 2 and kappa >= 0 finite required");
  const double nu = 0.5 * d - 1.0;
  const double log_2pi = std::log(2.0 * kPi);
  // Where the series converges at once (kappa^2 / 4 <= nu + 1: term ratios <= 1/n), the
  // kappa^nu of c_d and the (kappa/2)^nu of I_nu cancel analytically, which keeps full
  // accuracy as kappa -> 0 and gives the limit log(Gamma(d/2) / (2 pi^{d/2})) at kappa = 0.
  if (0.25 * kappa * kappa <= nu + 1.0) {
    const double log_sum = kappa == 0.0 ? 0.0 : LogBesselSeriesSum(nu, kappa);
    return -0.5 * d * log_2pi + nu * std::log(2.0) + std::lgamma(nu + 1.0) - log_sum;
  }
  return nu * std::log(kappa) - 0.5 * d * log_2pi - LogBesselI(nu, kappa);
}

}  // namespace carousel
