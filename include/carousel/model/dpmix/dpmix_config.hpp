// Every option the Dirichlet-process mixture chain depends on. Two runs with equal
// DpmixConfig, data and seed produce bitwise-identical results whatever the number of ranks.
#pragma once

#include <cstdint>

#include "carousel/data/tile_grid.hpp"
#include "carousel/model/tile_model.hpp"
#include "carousel/sampler/step_size.hpp"
#include "carousel/sampler/topic_word_update.hpp"

namespace carousel {

// Deliberately wrong variants, for the statistical test's negative controls only (never
// reachable from the command line).
enum class DpmixBroken {
  kNone,
  kIgnoreSlice,  // z_i drawn among all instantiated components, the slice 1(w_k > u_i) dropped
  kScaleTwice,   // the minibatch counts of theta scaled by 2 B / q instead of B / q
};

struct DpmixConfig {
  double a = 0.5;            // base measure Dir(a, ..., a) of the component parameters
  double alpha_shape = 1.0;  // Gamma(shape, rate) prior of the concentration alpha
  double alpha_rate = 1.0;
  SimplexSampler sampler = SimplexSampler::kScir;  // scir or sgrld, for theta and the weights
  StepSchedule step;           // h (SCIR) or eps (SGRLD) of the component parameters
  StepSchedule weight_step;    // the same for the weights
  double minibatch = 1000;     // observations per iteration (expected number, all row-blocks)
  int init_components = 10;    // components the training observations are spread over at first
  int max_components = 5000;   // an error beyond this (a slice that asks for more components)
  ChainOptions chain;          // tiles, schedule, length, thinning, seeds
  double test_fraction = 0.1;  // observations held out for the log predictive
  DpmixBroken broken = DpmixBroken::kNone;
};

}  // namespace carousel
