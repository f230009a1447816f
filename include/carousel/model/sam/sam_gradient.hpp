// The gradient of SAM's potential U(beta) of main paper Eq. 10 for one column block of the
// topics (sam_model.hpp derives it):
//
//   grad = -sigma A_V(|mbar|) mbar_block / |mbar|            (every topic row alike)
//          - scale (sum_d a_d v_{d,block}' - M beta_block)
//
// with a_d = E[theta_d / n_d], M = sum_d E[c_d theta_d theta_d'] and scale = kappa1 / q (q the
// probability that a document is in the minibatch).
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <vector>

namespace carousel {

// The minibatch documents' entries that fall in the block: column (local index in the
// block), value, and the document (row of `theta_over_n`).
struct BlockEntry {
  std::uint32_t column = 0;
  std::uint32_t document = 0;
  double value = 0.0;
};

struct SamGradientInputs {
  const double* theta_over_n = nullptr;  // documents x K, row-major: a_d
  Eigen::MatrixXd c_theta_theta;         // M, K x K
  double scale = 0.0;                    // kappa1 / q
  double prior = 0.0;                    // sigma A_V(|mbar|) / |mbar|
  double kappa0 = 0.0, sigma = 0.0;
};

// grad (K x columns) at x; m_block holds m at the block's words.
void SamBlockGradient(const SamGradientInputs& in, const Eigen::MatrixXd& x,
                      const std::vector<double>& m_block, const std::vector<BlockEntry>& entries,
                      Eigen::MatrixXd& grad);

}  // namespace carousel
