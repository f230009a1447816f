#include "carousel/sampler/lbfgs_coefficients.hpp"

#include <cmath>
#include <stdexcept>
#include <utility>

namespace carousel {
namespace lbfgs {

Coef Basis::Unit(int a) const {
  Coef e = Coef::Zero(size());
  e(a) = 1.0;
  return e;
}

Gram UnpackGram(const double* packed, int n) {
  Gram g(n, n);
  for (int a = 0; a < n; ++a)
    for (int b = a; b < n; ++b) g(a, b) = g(b, a) = packed[PackedIndex(a, b, n)];
  return g;
}

void PackGram(const Gram& gram, double* packed) {
  const int n = static_cast<int>(gram.rows());
  for (int a = 0; a < n; ++a)
    for (int b = a; b < n; ++b) packed[PackedIndex(a, b, n)] = gram(a, b);
}

std::vector<int> CurvaturePairs(const Gram& gram, const Basis& basis) {
  std::vector<int> used;
  for (int i = 0; i < basis.pairs; ++i) {
    const double sy = gram(basis.s(i), basis.y(i));
    if (std::isfinite(sy) && sy > 0.0) used.push_back(i);
  }
  return used;
}

CoefficientSpace::CoefficientSpace(const Gram& gram, const Basis& basis, double gamma,
                                   std::vector<int> used)
    : gram_(gram), basis_(basis), gamma_(gamma), used_(std::move(used)) {
  if (basis_.pairs < 0 || basis_.pairs > kMaxPairs || gram_.rows() != basis_.size() ||
      gram_.cols() != basis_.size() || !(gamma_ > 0.0))
    throw std::invalid_argument("lbfgs::CoefficientSpace: bad basis, Gram matrix or gamma");
  if (used_.size() > static_cast<std::size_t>(basis_.pairs))
    throw std::invalid_argument("lbfgs::CoefficientSpace: more used pairs than pairs");
  for (int i : used_)
    if (i < 0 || i >= basis_.pairs)
      throw std::invalid_argument("lbfgs::CoefficientSpace: pair index out of range");
  const std::size_t count = used_.size();
  for (std::size_t m = 0; m < count; ++m) {
    const int i = used_[m];
    const Coef s = basis_.Unit(basis_.s(i));
    const Coef y = basis_.Unit(basis_.y(i));
    rho_[m] = 1.0 / gram_(basis_.s(i), basis_.y(i));
    // b_m = B^{m-1} s_m with B^{m-1} from the pairs before m (direct BFGS form).
    Coef b = s / gamma_;
    for (std::size_t j = 0; j < m; ++j) {
      const Coef yj = basis_.Unit(basis_.y(used_[j]));
      b += -bs_[j] * (Dot(bs_[j], s) / sbs_[j]) + yj * (rho_[j] * Dot(yj, s));
    }
    bs_[m] = b;
    sbs_[m] = Dot(s, b);
    const double alpha = std::sqrt(1.0 / (rho_[m] * sbs_[m]));
    q_[m] = y - alpha * b;
  }
}

Coef CoefficientSpace::InverseHessianTimes(const Coef& v) const {
  const std::size_t count = used_.size();
  double alpha[kMaxPairs];
  Coef q = v;
  for (std::size_t m = count; m-- > 0;) {  // newest to oldest
    alpha[m] = rho_[m] * gram_.row(basis_.s(used_[m])).dot(q);
    q(basis_.y(used_[m])) -= alpha[m];
  }
  Coef r = gamma_ * q;
  for (std::size_t m = 0; m < count; ++m) {  // oldest to newest
    const double beta = rho_[m] * gram_.row(basis_.y(used_[m])).dot(r);
    r(basis_.s(used_[m])) += alpha[m] - beta;
  }
  return r;
}

Coef CoefficientSpace::HessianTimes(const Coef& v) const {
  Coef out = v / gamma_;
  for (std::size_t m = 0; m < used_.size(); ++m) {
    out -= bs_[m] * (Dot(bs_[m], v) / sbs_[m]);
    out(basis_.y(used_[m])) += rho_[m] * gram_.row(basis_.y(used_[m])).dot(v);
  }
  return out;
}

// S = (I - p_L q_L^T) ... (I - p_1 q_1^T) sqrt(gamma) I: the oldest factor acts first.
Coef CoefficientSpace::SqrtTimes(const Coef& v) const {
  Coef out = std::sqrt(gamma_) * v;
  for (std::size_t m = 0; m < used_.size(); ++m)
    out(basis_.s(used_[m])) -= rho_[m] * Dot(q_[m], out);
  return out;
}

// S^T = sqrt(gamma) (I - q_1 p_1^T) ... (I - q_L p_L^T): the newest factor acts first.
Coef CoefficientSpace::SqrtTransposeTimes(const Coef& v) const {
  Coef out = v;
  for (std::size_t m = used_.size(); m-- > 0;)
    out -= q_[m] * (rho_[m] * gram_.row(basis_.s(used_[m])).dot(out));
  return std::sqrt(gamma_) * out;
}

}  // namespace lbfgs
}  // namespace carousel
