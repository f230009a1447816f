#include "carousel/sampler/sampler.hpp"

#include "carousel/sampler/hamcmc.hpp"
#include "carousel/sampler/psgld.hpp"
#include "carousel/sampler/sghmc.hpp"
#include "carousel/sampler/sgld.hpp"
#include "carousel/sampler/sgnht.hpp"
#include "carousel/sampler/sgrhmc.hpp"
#include "carousel/sampler/sgrld.hpp"
#include "carousel/util/error.hpp"

namespace carousel {

void Sampler::InitAux(BlockState& block) const {
  block.aux.assign(static_cast<std::size_t>(aux_count()),
                   Matrix::Zero(block.theta.rows(), block.theta.cols()));
}

void Sampler::PreSums(const BlockState&, const BlockGradient&, const NoiseKey&, double*) const {}

void Sampler::StepWithSums(BlockState& block, const BlockGradient& gradient, double step,
                           const NoiseKey& noise, const double*) const {
  Step(block, gradient, step, noise);
}

void Sampler::AfterStep(BlockState&, const BlockGradient&) const {}
void Sampler::AfterStep(BlockState&, const BlockGradient&, const BlockGradient&) const {}
void Sampler::PostSums(const BlockState&, double*) const {}
void Sampler::EndIteration(const double*, const double*, double) {}

void Sampler::set_global_state(const std::vector<double>& state) {
  if (!state.empty()) throw Error(ExitCode::kCheckpoint, name() + ": unexpected sampler state");
}

std::vector<std::string> SamplerNames() {
  return {"sgld", "psgld"};
}

std::unique_ptr<Sampler> MakeSampler(const SamplerOptions& options) {
  if (options.name == "sgld") return std::make_unique<Sgld>();
  if (options.name == "psgld") {
    if (!(options.rmsprop_alpha >= 0.0 && options.rmsprop_alpha < 1.0))
      throw UsageError("--rmsprop-alpha", "must be in [0, 1)");
    if (!(options.rmsprop_lambda > 0.0)) throw UsageError("--rmsprop-lambda", "must be > 0");
    return std::make_unique<Psgld>(options.rmsprop_alpha, options.rmsprop_lambda);
  }
  if (options.name == "sghmc")
    return std::make_unique<Sghmc>(options.friction, options.noise_estimate, options.mass);
  if (options.name == "sgnht")
    return std::make_unique<Sgnht>(options.friction, options.noise_estimate);
  if (options.name == "sgrld" || options.name == "sgrhmc") {
    if (!options.metric)
      throw UsageError("--sampler", options.name + " needs a metric G(theta) from the model");
    if (options.name == "sgrld") return std::make_unique<Sgrld>(options.metric);
    return std::make_unique<Sgrhmc>(options.metric, options.noise_estimate);
  }
  if (options.name == "hamcmc") {
    const std::string& kind = options.initial_metric;
    if (kind != "identity" && kind != "metric" && kind != "fisher")
      throw UsageError("--initial-metric",
                       "must be identity, metric or fisher, got '" + kind + "'");
    std::shared_ptr<const DiagonalMetric> h0;
    if (kind != "identity") {
      if (!options.metric)
        throw UsageError("--initial-metric", kind + ": the model supplies no metric G(theta)");
      h0 = options.metric;
    }
    return std::make_unique<Hamcmc>(options.memory, options.trust, options.initial_scale, h0,
                                    kind == "fisher");
  }
  std::string known;
  for (const auto& n : SamplerNames()) known += (known.empty() ? "" : ", ") + n;
  throw UsageError("--sampler", "unknown sampler '" + options.name + "' (known: " + known + ")");
}

}  // namespace carousel
