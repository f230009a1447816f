// The sampler interface, laid out as in the "complete recipe" (Ma, Chen and Fox 2015,
// Eq. 9): a sampler is its auxiliary state, its diffusion D, curl Q and correction
// Gamma, and a step rule. Samplers see blocks of parameters and their stochastic
// gradients only: no MPI, no files, no models (DESIGN.md section 2).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "carousel/sampler/block.hpp"
#include "carousel/sampler/row_drift.hpp"

namespace carousel {

class DiagonalMetric;

class Sampler {
 public:
  virtual ~Sampler() = default;
  virtual std::string name() const = 0;

  // Number of auxiliary arrays each block carries (0 for SGLD, 1 for PSGLD, ...).
  virtual int aux_count() const = 0;

  // Sets the auxiliary arrays of a freshly initialised block.
  virtual void InitAux(BlockState& block) const;

  // One update of every row of `block` with step size `step`.
  virtual void Step(BlockState& block, const BlockGradient& gradient, double step,
                    const NoiseKey& noise) const = 0;

  // Whether the sampler's state holds past iterates of theta (HAMCMC's sub-chains and memory
  // pairs), which a model's move of theta between iterations (a rescaling along a symmetry
  // of the likelihood) would leave inconsistent with theta.
  virtual bool remembers_past_iterates() const { return false; }

  // ---- Rows without data (DESIGN.md section 9; defaults: not offered). For some samplers
  // the step of a row whose likelihood term is zero is, element by element, the linear
  // Gaussian map theta <- a theta + s z, with a and s fixed while the step size, the prior
  // precision and the metric are, and no auxiliary state to change. k such steps then
  // compose into one (lazy_rows.hpp), so a model may step only the rows with data
  // (StepRows) and bring the others up to date when it next needs them.
  virtual bool composes_prior_steps() const { return false; }
  // Row r's map: a - 1 (kept apart from 1 for its precision when a is close to 1) and s^2,
  // per column, for a step of size `step` under `prior` (its lik_sum is not read).
  virtual void PriorOnlyStep(const BlockGradient& prior, double step, Eigen::Index r,
                             float* a_minus_one, float* variance) const;
  // Step's update of the listed rows of `block` only (ascending local indices), their noise
  // keyed by their ids in chunks of the list (ForEachListedRowWithNoise).
  virtual void StepRows(BlockState& block, const BlockGradient& gradient, double step,
                        const NoiseKey& noise, const std::vector<std::uint32_t>& rows) const;

  // ---- Deferred noise (DESIGN.md section 9; defaults: not offered). For a sampler whose
  // step of a Gaussian target with the metric's precision contracts theta - mean by the same
  // q = 1 - eps in every element (SGRLD with a metric constant in theta), the noise of k
  // steps may be drawn at the end of the k steps as one normal with the variance that
  // leaves that Gaussian exact, sum_{i<k} q^2i times one step's. A model then moves a row
  // with data by the step's drift only (DriftRows: no normals), a row without data not at
  // all, and every row once per span takes the prior-only drift it missed and the span's
  // noise (FlushRows). The row clock says up to which iteration a row's drift is applied.
  virtual bool defers_noise() const { return false; }
  // For each listed row (ascending local indices): the drift of Step without its noise; its
  // clock counts the step. moment_change (null: not wanted) gets, per column, the change of
  // row_data_count * theta^2 summed over the rows (what ExpectedFisherMetric's information
  // is made of). Returns whether every listed row is finite.
  virtual bool DriftRows(BlockState& block, const BlockGradient& gradient, double step,
                         const std::vector<std::uint32_t>& rows, double* moment_change) const;
  // DriftRows for row r alone, its likelihood gradient at `lik` (gradient.lik_sum is not
  // read): for a model that has a row's gradient before the others' (RowDriftSink). The
  // caller checks the step's bounds (DriftRows does). Returns whether the row is finite.
  virtual bool DriftRow(BlockState& block, const BlockGradient& gradient, double step,
                        Eigen::Index r, const float* lik, double* moment_change) const;
  // When DriftRow has the form of row_drift.hpp's MatchedRowDrift (a metric G = prior + n
  // information, n the row's data count): its terms for this gradient and step (the step's
  // bounds checked), so that a model may apply it where it has a row's gradient, bit for bit
  // DriftRow's. nullopt otherwise (the default).
  virtual std::optional<RowDriftTerms> MatchedDriftTerms(const BlockGradient& gradient,
                                                         double step) const;
  // Every row of `block`: the prior-only drift of the steps it sat out (now - clock), then the
  // noise of the `noise_steps` steps since the last flush, keyed by `key` (its iteration must
  // be `now`); every clock becomes `now`. `prior` is as for CatchUpRows (scale 0).
  virtual void FlushRows(BlockState& block, const BlockGradient& prior, double step,
                         const NoiseKey& key, std::uint64_t now, std::uint64_t noise_steps) const;

  // ---- Coupling across blocks (defaults: none; local samplers need nothing below).
  // Per iteration the engine (or a single-block driver) does, with every block:
  //   1. PreSums at the gradient point; the sums over all blocks, added in block order,
  //      are passed to StepWithSums (HAMCMC: its O(M^2) Gram matrix of L-BFGS vectors);
  //   2. StepWithSums;
  //   3. if needs_gradient_after_step(): AfterStep with the gradient at the new point on
  //      the same minibatch (HAMCMC: y_t = grad U~(theta_t) - grad U~(theta_{t-M}));
  //   4. PostSums; their total goes to EndIteration once per iteration on every rank
  //      (SGNHT: p.p for its thermostat), with the total of step 1 (HAMCMC counts the
  //      pairs its Gram matrix left out). A width of 0 costs no reduction.
  virtual int pre_sum_count() const { return 0; }
  virtual void PreSums(const BlockState& block, const BlockGradient& gradient,
                       const NoiseKey& noise, double* out) const;
  virtual void StepWithSums(BlockState& block, const BlockGradient& gradient, double step,
                            const NoiseKey& noise, const double* pre_sums) const;
  virtual bool needs_gradient_after_step() const { return false; }
  // AfterStep's at_new_point must then carry fisher_sum (HAMCMC with the Fisher H^0).
  virtual bool needs_fisher_after_step() const { return false; }
  virtual void AfterStep(BlockState& block, const BlockGradient& at_new_point) const;
  // The same, when the engine forms the curvature pair on a sub-minibatch of Omega_t (a
  // cheaper second gradient): both gradients on that subset, with the same scale, at the
  // new point and at GradientPoint() as it was before StepWithSums.
  virtual void AfterStep(BlockState& block, const BlockGradient& at_new_point,
                         const BlockGradient& at_gradient_point) const;
  virtual int post_sum_count() const { return 0; }
  virtual void PostSums(const BlockState& block, double* out) const;
  virtual void EndIteration(const double* pre_sums, const double* post_sums, double step);

  // Mirroring at 0 for non-negative parameters (Patterson and Teh 2013, Sec. 3.2; HAMCMC
  // Sec. 4.2): replaces the new point theta by |theta| element-wise, right after a step
  // (Step or StepWithSums) and before AfterStep, and keeps the sampler's state consistent
  // with the reflected point. The default reflects theta only (SGLD, PSGLD: a reflected
  // first-order diffusion). Samplers that remember the step taken override it: HAMCMC's
  // newest pair s_t = theta_t - theta_{t-M} was stored by StepWithSums from the point
  // before |.|, and a momentum must flip where the position was reflected.
  virtual void MirrorAtZero(BlockState& block) const;

  // Puts the first values.cols() columns of theta back to `values` right after a step, as
  // MirrorAtZero does (for parameters the model holds fixed: carousel amf's --fix-rows),
  // keeping the sampler's state consistent. The default sets theta only; HAMCMC's newest
  // s_t moves with theta, so a held coordinate's L-BFGS pair is s = 0, y = 0 and its drift
  // stays 0. A momentum is left as it is: it never reaches a held coordinate.
  virtual void HoldLeadingColumns(BlockState& block, const Matrix& values) const;

  // The point where the next stochastic gradient is evaluated (HAMCMC: theta_{t-M}).
  virtual const Matrix& GradientPoint(const BlockState& block) const { return block.theta; }

  // Sampler state shared by all blocks (SGNHT's thermostat), saved in checkpoints.
  virtual std::vector<double> global_state() const { return {}; }
  virtual void set_global_state(const std::vector<double>& state);
};

// MirrorAtZero for samplers with a momentum array (SGHMC, SGNHT, SGRHMC): |theta|, and the
// momentum's sign flipped where theta was negative (sampler.cpp).
void MirrorWithMomentum(BlockState& block, Matrix& momentum);

struct SamplerOptions {
  std::string name = "psgld";
  double rmsprop_alpha = 0.999;  // PSGLD: decay of the squared-gradient average (doc/mf.md)
  double rmsprop_lambda = 1e-5;  // PSGLD: keeps the preconditioner finite
  double friction = 1.0;         // SGHMC, SGGMC, gSGNHT: C; SGNHT: A (recipe Eq. 12 / 15)
  double noise_estimate = 0.0;   // SGHMC / SGNHT / SGRHMC: B-hat, gradient-noise variance
  double mass = 1.0;             // SGHMC: M (diagonal, constant)
  // HAMCMC's defaults are the settings its benchmark found best on validation splits of
  // ml-100k u1.base (doc/mf.md, "Step sizes"): M = 3, lambda = 10, the Fisher H^0.
  int memory = 3;              // HAMCMC: M >= 2 interleaved sub-chains and L-BFGS memory
  double trust = 10.0;         // HAMCMC: lambda, y_t += lambda s_t
  double initial_scale = 1.0;  // HAMCMC: gamma, H^0 = gamma I
  // HAMCMC: "identity" (H^0 = gamma I), "metric" (H^0 = gamma G^-1 with `metric`, which
  // must not depend on theta) or "fisher" (H^0 = gamma (prior + lambda + Fisher at the
  // newest sample)^-1, `metric` before the first; hamcmc.hpp).
  std::string initial_metric = "fisher";
  // gSGNHT: the thermostat's initial value xi_0 (Alg. 2 sets xi_0 = C; 1 = the default C).
  double thermostat_initial = 1.0;
  // SGGMC / gSGNHT: the diffusion estimate V of Eq. 8, "zero" or "fisher" (geodesic.hpp).
  std::string diffusion = "zero";
  // SGRLD: "euler" (Eq. 14 as printed, noise 2 eps G^-1) or "ou" (noise (2 eps - eps^2) G^-1,
  // the exact transition for a Gaussian whose precision the metric matches; sgrld.hpp).
  std::string transition = "euler";
  // SGRLD / SGRHMC (and HAMCMC's H^0): the metric G(theta), supplied by the model or the user.
  std::shared_ptr<const DiagonalMetric> metric;
};

// The sampler options.name for factor blocks, from the registry (registry.hpp); throws
// SettingError for an unknown name or an option out of its bounds.
std::unique_ptr<Sampler> MakeSampler(const SamplerOptions& options);

}  // namespace carousel
