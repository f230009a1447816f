// Convergence diagnostics for M chains of N draws of one scalar: rank-normalised split
// R-hat, bulk and tail effective sample size, and the usual posterior summaries.
//
// Vehtari, Gelman, Simpson, Carpenter and Buerkner (2021), "Rank-normalization, folding,
// and localization: an improved R-hat for assessing convergence of MCMC", Bayesian
// Analysis 16(2):
// - split chains (Sec. 3.1): each chain is cut into its first and second half, so that a
//   trend within a chain shows as a difference between chains; with N odd the middle draw
//   is left out;
// - rank normalisation (Sec. 3.2, Eq. 14): every draw of all chains is replaced by
//   Phi^-1((r - 3/8) / (S + 1/4)), r its rank among the S draws (ties get the average rank);
// - R-hat (Sec. 3.1, Eq. 3-5) of the rank-normalised split chains ("bulk") and of the
//   rank-normalised split folded draws |x - median(x)| ("tail"); the reported R-hat is the
//   larger (Sec. 4.3);
// - ESS (Sec. 3.2, Eq. 10-13 and the appendix): autocorrelations combined across chains
//   with the variance estimate var+ of Eq. 3, summed to Geyer's initial monotone sequence
//   (Geyer 1992) with the paper's (and Stan's) last-term correction for antithetic chains,
//   and tau capped below at 1 / log10(S);
// - bulk ESS: the ESS of the rank-normalised split chains; tail ESS: the smaller ESS of
//   split chains of the indicators I(x <= q05) and I(x <= q95) (Sec. 4.3).
//
// Conventions follow the R package posterior 1.x (summarise_draws' defaults), so that the
// numbers agree with it: quantiles are R's type 7, sd has the N - 1 denominator, and a
// quantity that is constant over all draws (max - min below machine epsilon) has no R-hat
// or ESS (NaN, printed NA). Unlike posterior, any NaN or infinite draw makes every
// diagnostic NaN.
#pragma once

#include <cstddef>
#include <vector>

namespace carousel::mcmc {

// M chains, each a vector of draws; every chain must have the same length.
using Chains = std::vector<std::vector<double>>;

// The 2M half chains of `chains` (first halves and second halves in chain order). With an
// odd length the middle draw of each chain is left out.
Chains SplitChains(const Chains& chains);

// Rank normalisation: every draw replaced by Phi^-1((r - 3/8) / (S + 1/4)), r its
// fractional rank (ties averaged) among all S draws of all chains.
Chains RankNormalize(const Chains& chains);

// No NaN or infinite draw.
bool AllFinite(const Chains& chains);

// All draws equal up to machine epsilon (max - min < DBL_EPSILON, posterior's rule): such a
// quantity has no R-hat or ESS.
bool IsConstant(const Chains& chains);

// The inverse of the standard normal distribution function, for 0 < p < 1 (to about 1e-15
// relative; +-infinity at 0 and 1, NaN outside).
double NormalQuantile(double p);

// Sample quantile of `values` at probability p, R's type 7 (linear interpolation between
// order statistics at h = (n - 1) p).
double Quantile(std::vector<double> values, double p);

// Potential scale reduction sqrt(((N - 1)/N W + B/N) / W) of the chains as given (no
// split, no ranks): Gelman and Rubin's statistic, the building block of Rhat. NaN when a
// chain has fewer than 2 draws or the draws are constant. On whole chains it misses a
// trend that every chain shares; Rhat splits them first.
double PotentialScaleReduction(const Chains& chains);

// Effective sample size of the chains as given (no split, no ranks): Geyer's initial
// monotone sequence estimator of the paper's appendix. NaN with fewer than 3 draws per
// chain or constant draws.
double EffectiveSampleSize(const Chains& chains);

// Rank-normalised split R-hat: max(bulk R-hat, folded tail R-hat).
double Rhat(const Chains& chains);
double RhatBulk(const Chains& chains);
double RhatTail(const Chains& chains);

// ESS of the rank-normalised split chains.
double EssBulk(const Chains& chains);

// min(ESS of I(x <= q05), ESS of I(x <= q95)) over the split chains.
double EssTail(const Chains& chains);

// ESS of the split chains of I(x <= q_p), q_p the type 7 quantile of all draws.
double EssQuantile(const Chains& chains, double p);

// ESS of the split chains as they are (for the mean; no ranks).
double EssMean(const Chains& chains);

// Monte Carlo standard error of the mean: sd / sqrt(EssMean).
double McseMean(const Chains& chains);

// What `carousel summary` prints for one variable (posterior::summarise_draws' defaults).
struct Summary {
  double mean = 0.0;
  double sd = 0.0;
  double q5 = 0.0;
  double q50 = 0.0;
  double q95 = 0.0;
  double rhat = 0.0;
  double ess_bulk = 0.0;
  double ess_tail = 0.0;
  double mcse_mean = 0.0;
};

// All of the above; needs at least one chain with at least one draw.
Summary Summarize(const Chains& chains);

}  // namespace carousel::mcmc
