// Every option the SAM chain depends on. Two runs with equal SamConfig, corpus and seed
// produce bitwise-identical results whatever the number of ranks.
#pragma once

#include <cstdint>

#include "carousel/data/tile_grid.hpp"
#include "carousel/model/sam/tfidf.hpp"
#include "carousel/model/tile_model.hpp"
#include "carousel/sampler/geodesic.hpp"

namespace carousel {

struct SamConfig {
  int topics = 20;
  // Hyperparameters of main paper Sec. 4; defaults are the paper's for 20News-different
  // (supplement F.3). m is the normalised mean of the training documents.
  double alpha = 10.0;  // Dirichlet prior of theta_d
  double sigma = 1e4;   // concentration of the topics about the corpus mean mu
  double kappa0 = 1e4;  // concentration of mu about m
  double kappa1 = 3e4;  // concentration of a document about its mean direction
  GeodesicKind sampler = GeodesicKind::kGsgnht;
  double step = 0.0;                // h of supplement Alg. 1/2
  double friction = 0.0;            // C
  double thermostat_initial = 0.0;  // gSGNHT's xi_0 (Alg. 2: C)
  double minibatch = 50;            // training documents per iteration (expected number)
  int theta_steps = 20;             // MALA steps of theta_d per visit; moments over the second half
  TfIdfOptions tfidf;
  ChainOptions chain = ChainOptions::WithDefaults(/*burn_in=*/200, /*eval_every=*/50);
  double test_fraction = 0.1;  // documents held out for the log-perplexity
  int eval_draws = 100;        // theta draws from the prior per held-out document (Sec. 5.3)
};

}  // namespace carousel
