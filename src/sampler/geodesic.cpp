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

std::vector<double> LocalReduction::SumOverBlocks(const KeyedPartials& partials,
                                                  std::size_t size) const {
  std::vector<double> total(size, 0.0);
  for (const auto& [id, values] : partials)
    for (std::size_t i = 0; i < size; ++i) total[i] += values[i];
  return total;
}

void GeodesicSampler::Init(const SphereBlocks& blocks, std::uint64_t seed,
                           const VectorReduction& sums) const {
  if (blocks.empty()) throw Error(ExitCode::kInternal, "geodesic sampler: no blocks");
  const Eigen::Index rows = blocks.front().block->x.rows();
  KeyedPartials partials;
  for (const SphereBlockRef& ref : blocks) {
    SphereBlock& block = *ref.block;
    KeyedStream rng(seed, Purpose::kSphereNoise, ref.id, kInitIteration);
    block.v.resize(rows, block.x.cols());
    for (Eigen::Index r = 0; r < rows; ++r)
      for (Eigen::Index c = 0; c < block.x.cols(); ++c) block.v(r, c) = rng.normal();
    std::vector<double>& s = partials[static_cast<int>(ref.id)];
    s.resize(static_cast<std::size_t>(rows) * 2);
    for (Eigen::Index r = 0; r < rows; ++r) {
      s[2 * r] = block.x.row(r).squaredNorm();
      s[2 * r + 1] = block.x.row(r).dot(block.v.row(r));
    }
  }
  const std::vector<double> s = sums.SumOverBlocks(partials, static_cast<std::size_t>(rows) * 2);
  for (Eigen::Index r = 0; r < rows; ++r) {
    const double norm = std::sqrt(s[2 * r]);
    if (!(norm > 0.0)) throw Error(ExitCode::kInternal, "geodesic sampler: a zero vector");
    for (const SphereBlockRef& ref : blocks) {
      SphereBlock& block = *ref.block;
      block.x.row(r) /= norm;
      block.v.row(r) -= (s[2 * r + 1] / norm) * block.x.row(r);  // Lambda(x) z
    }
  }
}

void GeodesicSampler::Init(SphereBlock& block, std::uint64_t seed, std::uint64_t block_id,
                           const VectorReduction& sums) const {
  Init(SphereBlocks{{block_id, &block}}, seed, sums);
}

// A: the geodesic flow of S^{d-1} for time h / 2 (Eq. 7), each vector with its own speed
// alpha = |v|. Before the flow, x is normalised and v projected onto T_x with the summed
// |x|^2 and x.v, which removes rounding drift (both are 1 and 0 in exact arithmetic).
void GeodesicSampler::HalfFlow(const SphereBlocks& blocks, double h, const VectorReduction& sums) {
  const Eigen::Index rows = blocks.front().block->x.rows();
  const double t = 0.5 * h;
  const std::size_t size = static_cast<std::size_t>(rows) * kFlowWidth;
  partials_.clear();
  for (const SphereBlockRef& ref : blocks) {
    const SphereBlock& block = *ref.block;
    std::vector<double>& part = partials_[static_cast<int>(ref.id)];
    part.resize(size);
    for (Eigen::Index r = 0; r < rows; ++r) {
      double* s = &part[static_cast<std::size_t>(r) * kFlowWidth];
      s[0] = block.x.row(r).squaredNorm();
      s[1] = block.x.row(r).dot(block.v.row(r));
      s[2] = block.v.row(r).squaredNorm();
      s[3] = static_cast<double>(block.x.cols());
    }
  }
  const std::vector<double> total = sums.SumOverBlocks(partials_, size);
  double vv_total = 0.0, manifold_dim = 0.0;
  for (Eigen::Index r = 0; r < rows; ++r) {
    const double* s = &total[static_cast<std::size_t>(r) * kFlowWidth];
    const double norm = std::sqrt(s[0]);
    const double xv = s[1] / norm;  // x.v after x is normalised
    double vv = s[2];
    if (fault_ != GeodesicFault::kNoProjection) vv = std::max(0.0, vv - xv * xv);
    vv_total += vv;
    manifold_dim += s[3] - 1.0;
    const double alpha = std::sqrt(vv);
    const double c = std::cos(alpha * t), sn = std::sin(alpha * t);
    // |x + t v| with x.v = 0, for the Euler negative control.
    const double step_norm = std::sqrt(1.0 + t * t * vv);
    for (const SphereBlockRef& ref : blocks) {
      auto x = ref.block->x.row(r);
      auto v = ref.block->v.row(r);
      if (fault_ != GeodesicFault::kNoProjection) {
        x /= norm;
        v -= xv * x;
      }
      if (alpha == 0.0) continue;
      if (fault_ == GeodesicFault::kEulerRenormalise) {
        // Negative control: an Euler step on the embedding, pulled back onto the sphere;
        // v keeps its coordinates and is projected onto the new tangent space.
        x = (x + t * v) / step_norm;
        v -= (t * vv / step_norm) * x;  // (x'.v) = t |v|^2 / |x + t v|
        continue;
      }
      for (Eigen::Index j = 0; j < x.size(); ++j) {
        const double x0 = x(j), v0 = v(j);
        x(j) = c * x0 + (sn / alpha) * v0;
        v(j) = (-alpha * sn) * x0 + c * v0;
      }
    }
  }
  // Alg. 2: xi <- xi + (v.v / m - 1) h / 2; v.v is conserved by the flow.
  if (kind_ == GeodesicKind::kGsgnht && manifold_dim > 0.0)
    xi_ += (vv_total / manifold_dim - 1.0) * t;
}

// B: v <- exp(-C h/2) v (SGGMC), exp(-xi h/2) v (gSGNHT); main Sec. 3.3, scalar C.
void GeodesicSampler::Friction(const SphereBlocks& blocks, double h) const {
  const double rate = kind_ == GeodesicKind::kSggmc ? friction_ : xi_;
  const double decay = std::exp(-rate * 0.5 * h);
  for (const SphereBlockRef& ref : blocks) ref.block->v *= decay;
}

// O: Eq. 8 with t = h, v <- v + Lambda(x) [-grad h + N(0, (2C - h V) h)].
void GeodesicSampler::Kick(const SphereBlocks& blocks, const std::vector<Eigen::MatrixXd>& grads,
                           const std::vector<Eigen::MatrixXd>* variances, double h,
                           std::uint64_t seed, std::uint64_t iteration,
                           const VectorReduction& sums) {
  const Eigen::Index rows = blocks.front().block->x.rows();
  const double base = 2.0 * friction_ * h;
  const double scale = fault_ == GeodesicFault::kDoubledNoise ? 2.0 : 1.0;
  kicks_.resize(blocks.size());
  partials_.clear();
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    const SphereBlock& block = *blocks[b].block;
    const Eigen::Index cols = block.x.cols();
    KeyedStream rng(seed, Purpose::kSphereNoise, blocks[b].id, iteration);
    Eigen::MatrixXd& u = kicks_[b];
    u.resize(rows, cols);
    for (Eigen::Index r = 0; r < rows; ++r)
      for (Eigen::Index c = 0; c < cols; ++c) {
        const double var = variances ? std::max(0.0, base - h * h * (*variances)[b](r, c)) : base;
        u(r, c) = -grads[b](r, c) * h + std::sqrt(scale * var) * rng.normal();
      }
    if (fault_ == GeodesicFault::kNoProjection) continue;
    std::vector<double>& xu = partials_[static_cast<int>(blocks[b].id)];
    xu.resize(static_cast<std::size_t>(rows));
    for (Eigen::Index r = 0; r < rows; ++r) xu[r] = block.x.row(r).dot(u.row(r));
  }
  if (fault_ == GeodesicFault::kNoProjection) {
    for (std::size_t b = 0; b < blocks.size(); ++b) blocks[b].block->v += kicks_[b];
    return;
  }
  const std::vector<double> xu = sums.SumOverBlocks(partials_, static_cast<std::size_t>(rows));
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    SphereBlock& block = *blocks[b].block;
    for (Eigen::Index r = 0; r < rows; ++r)
      block.v.row(r) += kicks_[b].row(r) - xu[r] * block.x.row(r);
  }
}

void GeodesicSampler::Step(const SphereBlocks& blocks, double h, std::uint64_t seed,
                           std::uint64_t iteration, const VectorReduction& sums,
                           const SphereBlocksGradient& gradient) {
  HalfFlow(blocks, h, sums);
  Friction(blocks, h);
  const bool fisher = diffusion_ == GeodesicDiffusion::kFisher;
  grads_.resize(blocks.size());
  if (fisher) variances_.resize(blocks.size());
  gradient(blocks, grads_, fisher ? &variances_ : nullptr);
  Kick(blocks, grads_, fisher ? &variances_ : nullptr, h, seed, iteration, sums);
  Friction(blocks, h);
  HalfFlow(blocks, h, sums);
}

void GeodesicSampler::Step(SphereBlock& block, double h, const SphereNoiseKey& key,
                           const VectorReduction& sums, const SphereGradient& gradient) {
  Step(SphereBlocks{{key.block_id, &block}}, h, key.seed, key.iteration, sums,
       [&](const SphereBlocks& blocks, std::vector<Eigen::MatrixXd>& grads,
           std::vector<Eigen::MatrixXd>* variances) {
         gradient(blocks.front().block->x, grads.front(),
                  variances ? &variances->front() : nullptr);
       });
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

Eigen::MatrixXd EmpiricalTangentFisher(const std::vector<Eigen::MatrixXd>& per_datum,
                                       const Eigen::MatrixXd& x, double total_data) {
  std::vector<Eigen::MatrixXd> tangent = per_datum;
  for (Eigen::MatrixXd& g : tangent)
    for (Eigen::Index r = 0; r < g.rows(); ++r) g.row(r) -= g.row(r).dot(x.row(r)) * x.row(r);
  Eigen::MatrixXd v = EmpiricalFisherDiagonal(tangent, total_data);
  const double tangent_dim = static_cast<double>(x.cols() - 1);
  for (Eigen::Index r = 0; r < v.rows(); ++r) v.row(r).setConstant(v.row(r).sum() / tangent_dim);
  return v;
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
