#include "carousel/sampler/sampler.hpp"

#include "carousel/sampler/registry.hpp"
#include "carousel/util/error.hpp"

namespace carousel {

void Sampler::InitAux(BlockState& block) const {
  block.aux.assign(static_cast<std::size_t>(aux_count()),
                   Matrix::Zero(block.theta.rows(), block.theta.cols()));
}

void Sampler::PriorOnlyStep(const BlockGradient&, double, Eigen::Index, float*, float*) const {
  throw Error(ExitCode::kInternal, "sampler " + name() + " does not compose prior-only steps");
}

void Sampler::StepRows(BlockState&, const BlockGradient&, double, const NoiseKey&,
                       const std::vector<std::uint32_t>&) const {
  throw Error(ExitCode::kInternal, "sampler " + name() + " steps whole blocks only");
}

bool Sampler::DriftRows(BlockState&, const BlockGradient&, double,
                        const std::vector<std::uint32_t>&, double*) const {
  throw Error(ExitCode::kInternal, "sampler " + name() + " does not defer its noise");
}

bool Sampler::DriftRow(BlockState&, const BlockGradient&, double, Eigen::Index, const float*,
                       double*) const {
  throw Error(ExitCode::kInternal, "sampler " + name() + " does not defer its noise");
}

std::optional<RowDriftTerms> Sampler::MatchedDriftTerms(const BlockGradient&, double) const {
  return std::nullopt;
}

void Sampler::FlushRows(BlockState&, const BlockGradient&, double, const NoiseKey&, std::uint64_t,
                        std::uint64_t) const {
  throw Error(ExitCode::kInternal, "sampler " + name() + " does not defer its noise");
}

void Sampler::PreSums(const BlockState&, const BlockGradient&, const NoiseKey&, double*) const {}

void Sampler::StepWithSums(BlockState& block, const BlockGradient& gradient, double step,
                           const NoiseKey& noise, const double*) const {
  Step(block, gradient, step, noise);
}

void Sampler::AfterStep(BlockState&, const BlockGradient&) const {}
void Sampler::AfterStep(BlockState&, const BlockGradient&, const BlockGradient&) const {}
void Sampler::MirrorAtZero(BlockState& block) const {
  block.theta = block.theta.cwiseAbs();
}

void Sampler::HoldLeadingColumns(BlockState& block, const Matrix& values) const {
  block.theta.leftCols(values.cols()) = values;
}

// Elastic reflection at the wall theta = 0 of Hamiltonian dynamics (Neal 2011, "MCMC using
// Hamiltonian dynamics", Sec. 5.1): the position is mirrored and the momentum of each
// reflected element changes sign, so the trajectory leaves the wall as it came in.
void MirrorWithMomentum(BlockState& block, Matrix& momentum) {
  for (Eigen::Index i = 0; i < block.theta.size(); ++i) {
    float& theta = block.theta.data()[i];
    if (theta < 0.0f) {
      theta = -theta;
      momentum.data()[i] = -momentum.data()[i];
    }
  }
}

void Sampler::PostSums(const BlockState&, double*) const {}
void Sampler::EndIteration(const double*, const double*, double) {}

void Sampler::set_global_state(const std::vector<double>& state) {
  if (!state.empty()) throw Error(ExitCode::kCheckpoint, name() + ": unexpected sampler state");
}

std::unique_ptr<Sampler> MakeSampler(const SamplerOptions& options) {
  const SamplerInfo& info = FindSampler(options.name, BlockKind::kFactor);
  CheckSamplerOptions(options);
  return info.make(options);
}

}  // namespace carousel
