// PSGLD: Li et al. (2016), as written in the HAMCMC paper (Simsekli et al. 2016,
// Sec. 3.1): a diagonal RMSprop preconditioner
//   v <- alpha v + (1 - alpha) g_bar (.) g_bar,   g_bar = minibatch mean of grad log p(x|theta),
//   H = diag(1 / (lambda + sqrt(v))),
//   theta <- theta - eps H grad U~(theta) + N(0, 2 eps H).
// The correction term Gamma_i = sum_j dH_ij/dtheta_j (HAMCMC paper Eq. 9) is dropped, as
// Li et al. do in practice: H depends on theta only through the running average v, and
// computing Gamma would need second derivatives of U. The HAMCMC paper points out that
// this leaves a bias that does not vanish as the step size shrinks; Carousel's tests
// measure it against the exact Gibbs sampler (doc/mf.md, "PSGLD and its Gamma term").
// v is initialised from the first gradient (not zero) so that the first steps are not
// huge, and is updated before it is used.
#pragma once

#include "carousel/sampler/sampler.hpp"

namespace carousel {

class Psgld : public Sampler {
 public:
  Psgld(double alpha, double lambda) : alpha_(alpha), lambda_(lambda) {}
  std::string name() const override { return "psgld"; }
  int aux_count() const override {
    return 1;
  }  // aux[0] = v, with a negative marker before
     // the first update
  void InitAux(BlockState& block) const override;
  void Step(BlockState& block, const BlockGradient& gradient, double step,
            const NoiseKey& noise) const override;

 private:
  double alpha_;
  double lambda_;
};

}  // namespace carousel
