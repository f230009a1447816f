// The sampler interface, laid out as in the "complete recipe" (Ma, Chen and Fox 2015,
// Eq. 9): a sampler is its auxiliary state, its diffusion D, curl Q and correction
// Gamma, and a step rule. Samplers see blocks of parameters and their stochastic
// gradients only: no MPI, no files, no models (DESIGN.md section 2).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "carousel/sampler/block.hpp"

namespace carousel {

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
};

struct SamplerOptions {
  std::string name = "psgld";
  double rmsprop_alpha = 0.99;   // PSGLD: decay of the squared-gradient average
  double rmsprop_lambda = 1e-5;  // PSGLD: keeps the preconditioner finite
};

// The one place a sampler is chosen by name; throws UsageError for an unknown name.
std::unique_ptr<Sampler> MakeSampler(const SamplerOptions& options);
std::vector<std::string> SamplerNames();

}  // namespace carousel
