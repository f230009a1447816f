// SGGMC and gSGNHT on products of hyperspheres: Liu, Zhu and Song (2016), main paper
// Sec. 3.3 (Eq. 7 geodesic flow, Eq. 8 the kick with the diffusion estimate), supplement
// Alg. 1 (SGGMC), Alg. 2 (gSGNHT) and A.3 (Lambda(x) = I - x x^T). See geodesic.hpp.
#include "carousel/sampler/geodesic.hpp"

#include <algorithm>
#include <cmath>

#include "carousel/util/error.hpp"
#include "carousel/util/keyed_rng.hpp"

namespace carousel {
namespace {

constexpr int kFlowWidth = 4;  // |x|^2, x.v, |v|^2, columns
// The initial velocity's stream: an iteration no step uses.
constexpr std::uint64_t kInitIteration = ~std::uint64_t{0};

}  // namespace

GeodesicSampler::GeodesicSampler(GeodesicKind kind, double friction, double thermostat_initial,
                                 GeodesicDiffusion diffusion, GeodesicFault fault)
    : kind_(kind),
      friction_(friction),
      xi_(thermostat_initial),
      diffusion_(diffusion),
      fault_(fault) {
  if (!(friction > 0.0) || !std::isfinite(friction))
    throw Error(ExitCode::kInternal, "geodesic sampler: friction C must be positive");
}

std::string GeodesicSampler::name() const {
  return kind_ == GeodesicKind::kSggmc ? "sggmc" : "gsgnht";
}

void GeodesicSampler::Init(SphereBlock& block, std::uint64_t seed, std::uint64_t block_id,
                           const VectorReduction& sums) const {
  const Eigen::Index rows = block.x.rows(), cols = block.x.cols();
  KeyedStream rng(seed, Purpose::kSphereNoise, block_id, kInitIteration);
  block.v.resize(rows, cols);
  for (Eigen::Index r = 0; r < rows; ++r)
    for (Eigen::Index c = 0; c < cols; ++c) block.v(r, c) = rng.normal();
  std::vector<double> s(static_cast<std::size_t>(rows) * 2);
  for (Eigen::Index r = 0; r < rows; ++r) {
    s[2 * r] = block.x.row(r).squaredNorm();
    s[2 * r + 1] = block.x.row(r).dot(block.v.row(r));
  }
  sums.SumAcrossBlocks(s.data(), rows, 2);
  for (Eigen::Index r = 0; r < rows; ++r) {
    const double norm = std::sqrt(s[2 * r]);
    if (!(norm > 0.0)) throw Error(ExitCode::kInternal, "geodesic sampler: a zero vector");
    block.x.row(r) /= norm;
    block.v.row(r) -= (s[2 * r + 1] / norm) * block.x.row(r);  // Lambda(x) z
  }
}

// A: the geodesic flow of S^{d-1} for time h / 2 (Eq. 7), each vector with its own speed
// alpha = |v|. Before the flow, x is normalised and v projected onto T_x with the summed
// |x|^2 and x.v, which removes rounding drift (both are 1 and 0 in exact arithmetic).
void GeodesicSampler::HalfFlow(SphereBlock& block, double h, const VectorReduction& sums) {
  const Eigen::Index rows = block.x.rows();
  const double t = 0.5 * h;
  sums_.assign(static_cast<std::size_t>(rows) * kFlowWidth, 0.0);
  for (Eigen::Index r = 0; r < rows; ++r) {
    double* s = &sums_[static_cast<std::size_t>(r) * kFlowWidth];
    s[0] = block.x.row(r).squaredNorm();
    s[1] = block.x.row(r).dot(block.v.row(r));
    s[2] = block.v.row(r).squaredNorm();
    s[3] = static_cast<double>(block.x.cols());
  }
  sums.SumAcrossBlocks(sums_.data(), rows, kFlowWidth);
  double vv_total = 0.0, manifold_dim = 0.0;
  for (Eigen::Index r = 0; r < rows; ++r) {
    const double* s = &sums_[static_cast<std::size_t>(r) * kFlowWidth];
    auto x = block.x.row(r);
    auto v = block.v.row(r);
    double vv = s[2];
    if (fault_ != GeodesicFault::kNoProjection) {
      const double norm = std::sqrt(s[0]);
      x /= norm;
      const double xv = s[1] / norm;
      v -= xv * x;
      vv = std::max(0.0, vv - xv * xv);
    }
    vv_total += vv;
    manifold_dim += s[3] - 1.0;
    const double alpha = std::sqrt(vv);
    if (alpha == 0.0) continue;
    if (fault_ == GeodesicFault::kEulerRenormalise) {
      // Negative control: an Euler step on the embedding, pulled back onto the sphere;
      // v keeps its coordinates and is projected onto the new tangent space.
      const double step_norm = std::sqrt(1.0 + t * t * vv);  // |x + t v| with x.v = 0
      x = (x + t * v) / step_norm;
      v -= (t * vv / step_norm) * x;  // (x'.v) = t |v|^2 / |x + t v|
      continue;
    }
    const double c = std::cos(alpha * t), sn = std::sin(alpha * t);
    for (Eigen::Index j = 0; j < x.size(); ++j) {
      const double x0 = x(j), v0 = v(j);
      x(j) = c * x0 + (sn / alpha) * v0;
      v(j) = (-alpha * sn) * x0 + c * v0;
    }
  }
  // Alg. 2: xi <- xi + (v.v / m - 1) h / 2; v.v is conserved by the flow.
  if (kind_ == GeodesicKind::kGsgnht && manifold_dim > 0.0)
    xi_ += (vv_total / manifold_dim - 1.0) * t;
}

// B: v <- exp(-C h/2) v (SGGMC), exp(-xi h/2) v (gSGNHT); main Sec. 3.3, scalar C.
void GeodesicSampler::Friction(SphereBlock& block, double h) const {
  const double rate = kind_ == GeodesicKind::kSggmc ? friction_ : xi_;
  block.v *= std::exp(-rate * 0.5 * h);
}

// O: Eq. 8 with t = h, v <- v + Lambda(x) [-grad h + N(0, (2C - h V) h)].
void GeodesicSampler::Kick(SphereBlock& block, const Eigen::MatrixXd& grad,
                           const Eigen::MatrixXd* variance, double h, const SphereNoiseKey& key,
                           const VectorReduction& sums) {
  const Eigen::Index rows = block.x.rows(), cols = block.x.cols();
  KeyedStream rng(key.seed, Purpose::kSphereNoise, key.block_id, key.iteration);
  const double base = 2.0 * friction_ * h;
  const double scale = fault_ == GeodesicFault::kDoubledNoise ? 2.0 : 1.0;
  Eigen::MatrixXd& u = kick_;
  u.resize(rows, cols);
  for (Eigen::Index r = 0; r < rows; ++r)
    for (Eigen::Index c = 0; c < cols; ++c) {
      const double var = variance ? std::max(0.0, base - h * h * (*variance)(r, c)) : base;
      u(r, c) = -grad(r, c) * h + std::sqrt(scale * var) * rng.normal();
    }
  if (fault_ == GeodesicFault::kNoProjection) {
    block.v += u;
    return;
  }
  std::vector<double>& xu = sums_;
  xu.assign(static_cast<std::size_t>(rows), 0.0);
  for (Eigen::Index r = 0; r < rows; ++r) xu[r] = block.x.row(r).dot(u.row(r));
  sums.SumAcrossBlocks(xu.data(), rows, 1);
  for (Eigen::Index r = 0; r < rows; ++r) block.v.row(r) += u.row(r) - xu[r] * block.x.row(r);
}

void GeodesicSampler::Step(SphereBlock& block, double h, const SphereNoiseKey& key,
                           const VectorReduction& sums, const SphereGradient& gradient) {
  HalfFlow(block, h, sums);
  Friction(block, h);
  const bool fisher = diffusion_ == GeodesicDiffusion::kFisher;
  gradient(block.x, grad_, fisher ? &variance_ : nullptr);
  Kick(block, grad_, fisher ? &variance_ : nullptr, h, key, sums);
  Friction(block, h);
  HalfFlow(block, h, sums);
}

Eigen::MatrixXd EmpiricalFisherDiagonal(const std::vector<Eigen::MatrixXd>& per_datum,
                                        double total_data) {
  const std::size_t n = per_datum.size();
  if (n < 2) throw Error(ExitCode::kInternal, "empirical Fisher needs a minibatch of 2 or more");
  Eigen::MatrixXd mean = Eigen::MatrixXd::Zero(per_datum[0].rows(), per_datum[0].cols());
  for (const Eigen::MatrixXd& g : per_datum) mean += g;
  mean /= static_cast<double>(n);
  Eigen::MatrixXd ss = Eigen::MatrixXd::Zero(mean.rows(), mean.cols());
  for (const Eigen::MatrixXd& g : per_datum) ss.array() += (g - mean).array().square();
  const double nd = static_cast<double>(n);
  return ss * (total_data * total_data / nd / (nd - 1.0));
}

double VmfMeanResultantLength(int d, double kappa) {
  if (d < 2 || !(kappa > 0.0) || !std::isfinite(kappa))
    throw Error(ExitCode::kInternal, "VmfMeanResultantLength: d >= 2 and kappa > 0 required");
  const double nu = 0.5 * d;
  // r_k = I_k / I_{k-1} = 1 / (2k / kappa + r_{k+1}), from r = 0 far beyond nu + kappa.
  const int depth = static_cast<int>(nu + kappa) + 400;
  double r = 0.0;
  for (int j = depth; j >= 0; --j) r = 1.0 / (2.0 * (nu + j) / kappa + r);
  return r;
}

}  // namespace carousel
