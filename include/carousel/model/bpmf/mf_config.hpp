// Every option the sampled chain depends on. Two runs with equal MfConfig, data and seed
// produce bitwise-identical results whatever the number of ranks.
#pragma once

#include <cstdint>
#include <vector>

#include "carousel/data/tile_grid.hpp"
#include "carousel/model/bpmf/bpmf.hpp"
#include "carousel/model/tile_model.hpp"
#include "carousel/sampler/sampler.hpp"
#include "carousel/sampler/step_size.hpp"

namespace carousel {

// The factors whose every kept draw goes to the draws file (--save-draws): rows of W and
// H by dense index, with the input's ids to name their columns.
struct MfDrawSelection {
  std::vector<std::uint32_t> rows, cols;
  std::vector<std::int64_t> row_ids, col_ids;
};

struct MfConfig {
  BpmfShape shape;
  BpmfPriors priors;
  SamplerOptions sampler;
  StepSchedule step;
  double minibatch = 1.0;  // fraction of each stratum used per iteration
  // Samplers with curvature pairs (HAMCMC): the fraction of each minibatch on which both
  // gradients of y_t are taken. 1 is Alg. 1 as published (a second full gradient pass).
  double curvature_fraction = 1.0;
  ChainOptions chain;  // tiles, schedule, length, thinning, seeds
  std::uint64_t hyper_every = 10;
  double init_sd = 0.1;  // factors start as N(0, init_sd^2)
  // Rows and columns without ratings in an iteration's tile sit out its step, and take the
  // composed steps when next needed (DESIGN.md section 9), for the samplers that allow it
  // (Sampler::composes_prior_steps). false: every row steps every iteration (tests compare).
  bool lazy_rows = true;
  // Where rows sit out: a row with data in a tile takes only the step's drift there, and the
  // noise of every step since the last point that reads every row (an evaluation, the
  // precisions' Gibbs step) is drawn there at once, with the variance that keeps a matched
  // Gaussian exact (DESIGN.md section 9; Sampler::defers_noise, SGRLD). So the normals of a
  // pass follow the rows, not the tiles. false: each step's noise at the step (the rows
  // brought up to date, composed, before their gradient).
  bool deferred_noise = true;
  // After each Gibbs step of the precisions, the exact move along the W/H scale ridge
  // (bpmf_ridge.hpp), for samplers that keep no past iterates
  // (Sampler::remembers_past_iterates: not HAMCMC, whose memory pairs it would break).
  bool ridge_move = true;
  MfDrawSelection draws;
  // Kept draws whose factors are saved whole (--keep-samples), spread evenly over the kept
  // draws (sample_plan.hpp); 0: none.
  std::uint64_t keep_samples = 0;
  // Kept draws 1, 1 + M, 1 + 2M, ... (M = moments_every) enter the posterior moments of the
  // factors (W_mean, W_var, ...); every kept draw enters the predictions, the draws file and
  // the precisions' means (DefaultMomentsEvery, mf_defaults.hpp).
  std::uint64_t moments_every = 1;
};

}  // namespace carousel
