// Runs a sampler on a parameter vector held as one block, following the protocol of the
// Sampler coupling hooks (sums over one block are the block's own). Used for the exact
// validation targets in tests/ and bench/, where the model is a gradient function.
#pragma once

#include <functional>
#include <vector>

#include "carousel/sampler/sampler.hpp"

namespace carousel {

class SingleBlockChain {
 public:
  // Writes grad U~(theta) into grad_u; the minibatch must be a function of `iteration`
  // alone, since HAMCMC asks for two gradients on the same minibatch.
  using Gradient =
      std::function<void(const Matrix& theta, std::uint64_t iteration, Matrix& grad_u)>;

  // `data_size` N scales PSGLD's RMSprop signal: it sees grad U~ / N, the per-datum mean.
  SingleBlockChain(Sampler& sampler, Matrix theta0, Gradient gradient, std::uint64_t seed,
                   double data_size = 1.0);

  void Step(double step);
  const Matrix& theta() const { return block_.theta; }
  BlockState& block() { return block_; }
  std::uint64_t iteration() const { return iteration_; }

 private:
  BlockGradient GradientAt(const Matrix& point, Matrix& lik);

  Sampler& sampler_;
  BlockState block_;
  Gradient gradient_;
  std::uint64_t seed_;
  double data_size_;
  std::uint64_t iteration_ = 0;
  std::vector<std::uint32_t> ids_;
  Eigen::VectorXf no_prior_;
  Matrix grad_u_, lik_, lik_after_;
};

}  // namespace carousel
