// Priors of Bayesian probabilistic matrix factorization with biases:
//   r_ij ~ N(mu + b_i + c_j + w_i . h_j, 1/tau),
//   w_i ~ N(0, I/lambda_w), h_j ~ N(0, I/lambda_h), b_i ~ N(0, 1/lambda_b), c_j ~ N(0, 1/lambda_c),
//   tau, lambda_* ~ Gamma(a0, rate b0)  (resampled by Gibbs steps, as in Ahn et al. 2015),
// with mu fixed to the training mean. `--hyper fixed --no-bias` gives the setting of the
// HAMCMC paper, Sec. 4.3: no biases and tau = lambda_w = lambda_h = 1.
#pragma once

namespace carousel {

struct BpmfHyper {
  double tau = 1.0;  // noise precision 1/sigma_x^2
  double lambda_w = 1.0;
  double lambda_h = 1.0;
  double lambda_b = 1.0;
  double lambda_c = 1.0;
};

struct BpmfPriors {
  bool use_bias = true;
  bool sample_hyper = true;
  double a0 = 1.0;    // Gamma shape of every precision's hyperprior
  double b0 = 1.0;    // Gamma rate of every precision's hyperprior
  BpmfHyper initial;  // the fixed values when sample_hyper is false
};

}  // namespace carousel
