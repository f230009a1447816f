// L-BFGS in coefficient space: the algebra behind distributed HAMCMC (hamcmc.hpp).
//
// HAMCMC (Simsekli et al. 2016, Alg. 1) needs two products with the L-BFGS inverse-Hessian
// approximation H built from P memory pairs (s_i, y_i), oldest first, starting from
// H^0 = gamma I (HAMCMC paper Eq. 6):
//   xi  = H g    (two-loop recursion, Nocedal and Wright 2006, Alg. 7.4), and
//   eta = S z    with S S^T = H, by the factored BFGS update of Brodlie, Gourlay and
//                Greenstadt (1973) as used by Zhang and Sutton (2011) (HAMCMC Eq. 11).
// Every vector either recursion touches is a linear combination of the 2P + 2 vectors
//   s_0 .. s_{P-1}, y_0 .. y_{P-1}, g, z        (the "basis", in this order),
// and every scalar it needs is an inner product of two such combinations. So both
// recursions run on coefficient vectors of length 2P + 2, with inner products taken
// through the Gram matrix G_ab = <basis_a, basis_b>: a^T G b. The D-dimensional vectors
// are touched only to form G (one reduction of (2P+2)(2P+3)/2 numbers over all blocks of
// the parameter vector) and to apply the final combinations. Nothing here inverts G, so
// a rank-deficient basis (D < 2P + 2, repeated vectors) is fine.
//
// The factored update. With rho = 1 / s^T y and B = H^{-1} of the previous level,
//   H+ = (I - rho s y^T) H (I - rho y s^T) + rho s s^T              (Eq. 6)
//      = S+ S+^T,   S+ = (I - p q^T) S,   p = rho s,   q = y - alpha B s,
//   alpha = sqrt(s^T y / s^T B s).
// (Expand (I - p q^T) H (I - q p^T) with H B s = s and q^T H q = y^T H y + s^T y (1 - 2 alpha)
// to check; the sign of alpha is free. HAMCMC Eq. 11 writes q with the opposite overall
// sign, which flips p q^T twice in the product and gives the same H.) B s is needed at
// every level; by the dual (direct) BFGS update
//   B+ = B - (B s)(B s)^T / s^T B s + y y^T / s^T y,   B^0 = I / gamma,
// b_m = B^{m-1} s_m is itself a combination of the basis, built once per iteration.
#pragma once

#include <Eigen/Core>
#include <array>
#include <vector>

namespace carousel {
namespace lbfgs {

// Largest memory M (HAMCMC keeps M - 1 pairs): coefficient vectors then live on the stack.
constexpr int kMaxPairs = 15;
constexpr int kMaxBasis = 2 * kMaxPairs + 2;

using Coef = Eigen::Matrix<double, Eigen::Dynamic, 1, 0, kMaxBasis, 1>;
using Gram = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, kMaxBasis, kMaxBasis>;

// Positions in the basis for `pairs` memory pairs.
struct Basis {
  int pairs;
  int size() const { return 2 * pairs + 2; }
  int s(int i) const { return i; }
  int y(int i) const { return pairs + i; }
  int g() const { return 2 * pairs; }
  int z() const { return 2 * pairs + 1; }
  Coef Unit(int a) const;
};

// The Gram matrix travels as its upper triangle, row by row: (0,0), (0,1), .., (0,n-1),
// (1,1), .., (n-1,n-1).
inline int PackedSize(int n) {
  return n * (n + 1) / 2;
}
inline int PackedIndex(int a, int b, int n) {  // requires a <= b
  return a * n - a * (a - 1) / 2 + (b - a);
}
Gram UnpackGram(const double* packed, int n);
void PackGram(const Gram& gram, double* packed);

// Pairs with positive curvature s_i^T y_i > 0 (finite), oldest first: only these keep H
// positive definite, so the others are left out of both recursions.
std::vector<int> CurvaturePairs(const Gram& gram, const Basis& basis);

// H, B and S of one iteration, acting on coefficient vectors.
class CoefficientSpace {
 public:
  // `used`: indices of the pairs that enter the recursions, oldest first (each must have
  // s^T y > 0); an empty list gives H = gamma I.
  CoefficientSpace(const Gram& gram, const Basis& basis, double gamma, std::vector<int> used);

  double Dot(const Coef& a, const Coef& b) const { return a.dot(gram_ * b); }

  Coef InverseHessianTimes(const Coef& v) const;  // H v, two-loop recursion
  Coef HessianTimes(const Coef& v) const;         // B v = H^{-1} v, direct BFGS form
  Coef SqrtTimes(const Coef& v) const;            // S v  (Eq. 11)
  Coef SqrtTransposeTimes(const Coef& v) const;   // S^T v

  const std::vector<int>& used() const { return used_; }

 private:
  Gram gram_;
  Basis basis_;
  double gamma_;
  std::vector<int> used_;
  // Per used pair m (fixed capacity: no allocation per iteration):
  std::array<double, kMaxPairs> rho_;  // 1 / s^T y
  std::array<Coef, kMaxPairs> bs_;     // b_m = B^{m-1} s_m
  std::array<double, kMaxPairs> sbs_;  // s_m^T b_m
  std::array<Coef, kMaxPairs> q_;      // q_m = y_m - alpha_m b_m (Eq. 11, sign as above)
};

}  // namespace lbfgs
}  // namespace carousel
