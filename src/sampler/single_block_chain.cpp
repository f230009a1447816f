#include "carousel/sampler/single_block_chain.hpp"

#include <numeric>

namespace carousel {

SingleBlockChain::SingleBlockChain(Sampler& sampler, Matrix theta0, Gradient gradient,
                                   std::uint64_t seed, double data_size)
    : sampler_(sampler), gradient_(std::move(gradient)), seed_(seed), data_size_(data_size) {
  block_.theta = std::move(theta0);
  sampler_.InitAux(block_);
  ids_.resize(static_cast<std::size_t>(block_.theta.rows()));
  std::iota(ids_.begin(), ids_.end(), 0u);
  no_prior_ = Eigen::VectorXf::Zero(block_.theta.cols());
}

// The gradient in BlockGradient's form: lik_sum = -grad U~ with scale 1 and no prior, and
// a "minibatch" of size N so that lik_sum / N is the per-datum mean PSGLD expects.
BlockGradient SingleBlockChain::GradientAt(const Matrix& point, Matrix& lik) {
  grad_u_.resize(point.rows(), point.cols());
  gradient_(point, iteration_, grad_u_);
  lik = -grad_u_;
  return BlockGradient{lik, 1.0, data_size_, no_prior_};
}

void SingleBlockChain::Step(double step) {
  const NoiseKey noise{seed_, Purpose::kNoiseRow, iteration_, &ids_};
  const Matrix point = sampler_.GradientPoint(block_);
  const BlockGradient gradient = GradientAt(point, lik_);
  std::vector<double> pre(static_cast<std::size_t>(sampler_.pre_sum_count()), 0.0);
  sampler_.PreSums(block_, gradient, noise, pre.data());
  sampler_.StepWithSums(block_, gradient, step, noise, pre.data());
  if (sampler_.needs_gradient_after_step())
    sampler_.AfterStep(block_, GradientAt(block_.theta, lik_after_));
  std::vector<double> post(static_cast<std::size_t>(sampler_.post_sum_count()), 0.0);
  sampler_.PostSums(block_, post.data());
  sampler_.EndIteration(pre.data(), post.data(), step);
  ++iteration_;
}

}  // namespace carousel
