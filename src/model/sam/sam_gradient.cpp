#include "carousel/model/sam/sam_gradient.hpp"

namespace carousel {

void SamBlockGradient(const SamGradientInputs& in, const Eigen::MatrixXd& x,
                      const std::vector<double>& m_block, const std::vector<BlockEntry>& entries,
                      Eigen::MatrixXd& grad) {
  const Eigen::Index k = x.rows();
  grad.noalias() = in.scale * (in.c_theta_theta * x);
  for (Eigen::Index c = 0; c < x.cols(); ++c) {
    // mbar = kappa0 m + sigma sum_k beta_k at this word; the prior term pulls every topic
    // towards mbar.
    const double mbar =
        in.kappa0 * m_block[static_cast<std::size_t>(c)] + in.sigma * x.col(c).sum();
    grad.col(c).array() -= in.prior * mbar;
  }
  for (const BlockEntry& e : entries) {
    const double a = in.scale * e.value;
    const double* theta = in.theta_over_n + static_cast<std::size_t>(e.document) * k;
    double* g = grad.col(e.column).data();
    for (Eigen::Index r = 0; r < k; ++r) g[r] -= a * theta[r];
  }
}

}  // namespace carousel
