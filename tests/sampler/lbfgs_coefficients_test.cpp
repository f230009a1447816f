// The coefficient-space L-BFGS algebra (lbfgs_coefficients.hpp) against a direct dense
// computation: H built explicitly by the BFGS inverse update (HAMCMC paper Eq. 6), S built
// explicitly by the factored update (Eq. 11), and the coefficient vectors mapped back to
// R^D through the basis matrix V = [s_1..s_P, y_1..y_P, g, z].
#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <Eigen/Eigenvalues>
#include <Eigen/LU>
#include <cmath>
#include <vector>

#include "carousel/sampler/lbfgs_coefficients.hpp"
#include "carousel/util/keyed_rng.hpp"

namespace carousel {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;

struct Problem {
  int dim = 0;
  int pairs = 0;
  double gamma = 1.0;
  MatrixXd v;  // D x (2P + 2): the basis vectors as columns
  lbfgs::Basis basis{0};
  lbfgs::Gram gram;
};

// Pairs from a random SPD "Hessian" (y = A s + a small perturbation), plus g and z.
// `flip`: index of a pair whose y is negated (negative curvature), or -1.
Problem MakeProblem(int dim, int pairs, double gamma, std::uint64_t seed, int flip = -1) {
  Problem st;
  st.dim = dim;
  st.pairs = pairs;
  st.gamma = gamma;
  st.basis = lbfgs::Basis{pairs};
  KeyedStream rng(seed, Purpose::kTest, 0, 0);
  MatrixXd r(dim, dim);
  for (int i = 0; i < dim; ++i)
    for (int j = 0; j < dim; ++j) r(i, j) = rng.normal();
  const MatrixXd a = r * r.transpose() / dim + 0.3 * MatrixXd::Identity(dim, dim);
  st.v.resize(dim, st.basis.size());
  for (int i = 0; i < pairs; ++i) {
    VectorXd s(dim), noise(dim);
    for (int k = 0; k < dim; ++k) s(k) = rng.normal();
    for (int k = 0; k < dim; ++k) noise(k) = 0.05 * rng.normal();
    VectorXd y = a * s + noise;
    if (i == flip) y = -y;
    st.v.col(st.basis.s(i)) = s;
    st.v.col(st.basis.y(i)) = y;
  }
  for (int k = 0; k < dim; ++k) st.v(k, st.basis.g()) = rng.normal();
  for (int k = 0; k < dim; ++k) st.v(k, st.basis.z()) = rng.normal();
  const MatrixXd g = st.v.transpose() * st.v;
  st.gram = g;
  return st;
}

// Dense H, B = H^-1 and S over the pairs `used` (oldest first), from H^0 = gamma I.
struct Dense {
  MatrixXd h, b, s;
};

Dense DenseLbfgs(const Problem& st, const std::vector<int>& used) {
  const int d = st.dim;
  const MatrixXd eye = MatrixXd::Identity(d, d);
  Dense out{st.gamma * eye, eye / st.gamma, std::sqrt(st.gamma) * eye};
  for (int i : used) {
    const VectorXd s = st.v.col(st.basis.s(i));
    const VectorXd y = st.v.col(st.basis.y(i));
    const double rho = 1.0 / s.dot(y);
    // Eq. 6: the BFGS inverse update.
    out.h = (eye - rho * s * y.transpose()) * out.h * (eye - rho * y * s.transpose()) +
            rho * s * s.transpose();
    // Eq. 11: S <- (I - p q^T) S with p = s / s^T y, q = y - sqrt(s^T y / s^T B s) B s.
    const VectorXd bs = out.b * s;
    const double sbs = s.dot(bs);
    const VectorXd q = y - std::sqrt(s.dot(y) / sbs) * bs;
    out.s = (eye - rho * s * q.transpose()) * out.s;
    // The direct BFGS update of B = H^-1.
    out.b = out.b - bs * bs.transpose() / sbs + y * y.transpose() / s.dot(y);
  }
  return out;
}

VectorXd ToDense(const Problem& st, const lbfgs::Coef& c) {
  return st.v * VectorXd(c);
}

double RelErr(const VectorXd& a, const VectorXd& b) {
  return (a - b).norm() / b.norm();
}
double RelErr(const MatrixXd& a, const MatrixXd& b) {
  return (a - b).norm() / b.norm();
}

void CheckAgainstDense(const Problem& st, const std::vector<int>& used) {
  const lbfgs::CoefficientSpace space(st.gram, st.basis, st.gamma, used);
  const Dense dense = DenseLbfgs(st, used);
  const VectorXd g = st.v.col(st.basis.g());
  const VectorXd z = st.v.col(st.basis.z());
  const lbfgs::Coef eg = st.basis.Unit(st.basis.g());
  const lbfgs::Coef ez = st.basis.Unit(st.basis.z());

  // The explicit factor reproduces H (Eq. 11), and B is its inverse.
  EXPECT_LT(RelErr(MatrixXd(dense.s * dense.s.transpose()), dense.h), 1e-10);
  EXPECT_LT(RelErr(MatrixXd(dense.h * dense.b), MatrixXd::Identity(st.dim, st.dim)), 1e-9);

  // xi = H g (two-loop in coefficient space) and eta = S z (Eq. 11 in coefficient space).
  EXPECT_LT(RelErr(ToDense(st, space.InverseHessianTimes(eg)), dense.h * g), 1e-10);
  EXPECT_LT(RelErr(ToDense(st, space.SqrtTimes(ez)), dense.s * z), 1e-10);
  EXPECT_LT(RelErr(ToDense(st, space.SqrtTransposeTimes(eg)), dense.s.transpose() * g), 1e-10);
  EXPECT_LT(RelErr(ToDense(st, space.HessianTimes(eg)), dense.b * g), 1e-9);
  // S S^T g = H g entirely in coefficient space.
  EXPECT_LT(RelErr(ToDense(st, space.SqrtTimes(space.SqrtTransposeTimes(eg))), dense.h * g), 1e-10);
  // The secant condition of the newest used pair: H y = s.
  if (!used.empty()) {
    const int last = used.back();
    EXPECT_LT(RelErr(ToDense(st, space.InverseHessianTimes(st.basis.Unit(st.basis.y(last)))),
                     VectorXd(st.v.col(st.basis.s(last)))),
              1e-10);
  }
}

std::vector<int> AllPairs(int p) {
  std::vector<int> all;
  for (int i = 0; i < p; ++i) all.push_back(i);
  return all;
}

TEST(LbfgsCoefficients, MatchesDenseBfgs) {
  for (int pairs : {1, 2, 4}) {
    for (double gamma : {1.0, 0.05}) {
      SCOPED_TRACE("pairs " + std::to_string(pairs) + ", gamma " + std::to_string(gamma));
      const Problem st = MakeProblem(9, pairs, gamma, 100 + static_cast<std::uint64_t>(pairs));
      EXPECT_EQ(lbfgs::CurvaturePairs(st.gram, st.basis), AllPairs(pairs));
      CheckAgainstDense(st, AllPairs(pairs));
    }
  }
}

// Fewer dimensions than basis vectors: the Gram matrix is singular, which the algebra
// never inverts.
TEST(LbfgsCoefficients, RankDeficientBasis) {
  const Problem st = MakeProblem(3, 3, 0.7, 7);
  CheckAgainstDense(st, AllPairs(3));
}

// The exact S of a small problem: S S^T = H column by column, from the explicit product
// of Eq. 11 factors, and eta's coefficients applied to several z give S z.
TEST(LbfgsCoefficients, SqrtFactorOfSmallProblem) {
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    Problem st = MakeProblem(4, 3, 0.3, 200 + seed);
    const Dense dense = DenseLbfgs(st, AllPairs(3));
    EXPECT_LT(RelErr(MatrixXd(dense.s * dense.s.transpose()), dense.h), 1e-12);
    KeyedStream rng(seed, Purpose::kTest, 1, 0);
    for (int rep = 0; rep < 4; ++rep) {
      for (int k = 0; k < st.dim; ++k) st.v(k, st.basis.z()) = rng.normal();
      const MatrixXd g = st.v.transpose() * st.v;
      st.gram = g;
      const lbfgs::CoefficientSpace space(st.gram, st.basis, st.gamma, AllPairs(3));
      EXPECT_LT(RelErr(ToDense(st, space.SqrtTimes(st.basis.Unit(st.basis.z()))),
                       VectorXd(dense.s * st.v.col(st.basis.z()))),
                1e-12);
    }
  }
}

// A pair with s^T y < 0 is left out: the results equal the dense update without it, and
// H stays positive definite.
TEST(LbfgsCoefficients, NegativeCurvaturePairIsSkipped) {
  const Problem st = MakeProblem(8, 3, 0.5, 11, /*flip=*/1);
  const std::vector<int> used = lbfgs::CurvaturePairs(st.gram, st.basis);
  EXPECT_EQ(used, (std::vector<int>{0, 2}));
  CheckAgainstDense(st, used);
  const Dense dense = DenseLbfgs(st, used);
  EXPECT_GT(Eigen::SelfAdjointEigenSolver<MatrixXd>(dense.h).eigenvalues().minCoeff(), 0.0);
}

// No pairs: H = gamma I and S = sqrt(gamma) I (HAMCMC's warm-up steps).
TEST(LbfgsCoefficients, NoPairsIsScaledIdentity) {
  const Problem st = MakeProblem(5, 2, 0.25, 3);
  const lbfgs::CoefficientSpace space(st.gram, st.basis, st.gamma, {});
  const lbfgs::Coef xi = space.InverseHessianTimes(st.basis.Unit(st.basis.g()));
  const lbfgs::Coef eta = space.SqrtTimes(st.basis.Unit(st.basis.z()));
  EXPECT_EQ(xi, 0.25 * st.basis.Unit(st.basis.g()));
  EXPECT_EQ(eta, 0.5 * st.basis.Unit(st.basis.z()));
}

TEST(LbfgsCoefficients, PackedGramRoundTrip) {
  const Problem st = MakeProblem(6, 3, 1.0, 5);
  const int n = st.basis.size();
  std::vector<double> packed(static_cast<std::size_t>(lbfgs::PackedSize(n)), -1.0);
  lbfgs::PackGram(st.gram, packed.data());
  EXPECT_EQ(lbfgs::PackedIndex(n - 1, n - 1, n), lbfgs::PackedSize(n) - 1);
  EXPECT_EQ(lbfgs::PackedIndex(0, 1, n), 1);
  EXPECT_EQ(lbfgs::PackedIndex(1, 1, n), n);
  EXPECT_EQ(lbfgs::UnpackGram(packed.data(), n), st.gram);
}

}  // namespace
}  // namespace carousel
