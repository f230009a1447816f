// Geodesic stochastic-gradient samplers for blocks of unit vectors (products of
// hyperspheres S^{d-1}): SGGMC and gSGNHT of Liu, Zhu and Song (2016), "Stochastic
// Gradient Geodesic MCMC Methods", NIPS (main paper Sec. 3.3; supplement Alg. 1 and 2).
//
// State of one vector: its position x on S^{d-1} and its velocity v in the tangent space
// T_x = {v : x.v = 0}, both in the embedding R^d. One step of size h is the "ABOBA"
// splitting of Sec. 3.3:
//   A  geodesic flow for h/2 (main Eq. 7), with alpha = |v|:
//        x(t) = x cos(alpha t) + (v / alpha) sin(alpha t),
//        v(t) = -alpha x sin(alpha t) + v cos(alpha t);
//   B  friction for h/2: v <- exp(-C h/2) v (SGGMC), v <- exp(-xi h/2) v (gSGNHT);
//   O  kick for h (main Eq. 8 with t = h; supplement Alg. 1/2, line "C"/"O"):
//        v <- v + Lambda(x) [ -grad U~(x) h + N(0, (2C - h V(x)) h) ],
//      Lambda(x) = I - x x^T the tangent projection (supplement A.3);
//   B, A  as above.
// gSGNHT (Alg. 2) also moves its thermostat in each A: xi <- xi + (v.v / m - 1) h/2, with
// m the dimension of the manifold (sum over vectors of d - 1) and v.v over all vectors;
// xi starts at the thermostat's initial value (Alg. 2: C).
// The gradient grad U~ is the Euclidean gradient of the potential in the embedding R^d,
// evaluated at x after the first A (Alg. 1: at x*).
//
// Diffusion estimate V(x) of Eq. 8 (a diagonal, one variance per coordinate):
//   zero    V = 0 (the paper's choice for SAM, Sec. 5.3);
//   fisher  the empirical Fisher information of the minibatch, as in Ahn, Korattikara and
//           Welling (2012) (paper ref. [2], used in Sec. 5.2), in the form Eq. 8 needs on a
//           sphere (EmpiricalTangentFisher): the kick's noise Lambda N(0, (2C - hV) h) and
//           the minibatch's noise -h Lambda (G - grad U) must add up to 2Ch in every tangent
//           direction t, i.e. t'Vt = t'Sigma t with Sigma the covariance of G. So the
//           per-datum gradients g_i are first projected onto the tangent space (their normal
//           part is removed by Lambda and must not count), and V is taken isotropic in the
//           tangent space of each vector: V = tr(Lambda Sigma Lambda) / (d - 1), the variance
//           of (N / n) sum_{i in S} g_i estimated from the sample variance of the g_i. That
//           is exact on circles (one tangent direction) and right on average over tangent
//           directions elsewhere; a per-coordinate diagonal is not (it weights the
//           direction t by sum_c t_c^2 V_c), and the raw diagonal of the g_i also counts
//           their normal part: tests/sampler/geodesic_mixture_test.cpp rejects both on the
//           posterior of Sec. 5.2 and accepts this one. Where 2C - h V < 0 the variance is
//           taken as 0 (the step is too large for the gradient noise there; Eq. 8 then has
//           no valid noise).
//   A known gradient-noise variance (the toy of Sec. 5.1, V = 1000) is passed the same way.
//
// Distributed vectors. A model may cut each vector into blocks of coordinates held by
// different ranks (SAM's topics: vocabulary blocks), and a rank may hold several blocks. All
// blocks hold the same rows (vectors), each its own columns; the sampler steps the set of
// blocks a rank holds (SphereBlocks, each with its global id) together. The step needs
// per-vector sums over all blocks: in each A the four numbers |x|^2, x.v, |v|^2 and the
// column count (for |v|, the projection that keeps x and v on the sphere against rounding,
// and m); in O the number x.u of the kick u. Each block contributes its partial sums under
// its id, and VectorReduction::SumOverBlocks adds them over every block of every rank in
// ascending id order: a distributed model implements it with OrderedSum (one allgather),
// LocalReduction adds one rank's blocks. Because the additions follow the ids, not the
// ranks, the chain is bitwise the same however the blocks are spread over ranks. A step is
// three reductions: 4, 1 and 4 numbers per vector and block. All other work is per
// coordinate. The thermostat's v.v is the sum of the per-vector |v|^2 every rank already
// has, so xi is the same on every rank. One thermostat covers the rows of one sampler: a
// model that also spreads the rows (vectors) over ranks must give each rank's rows a sampler
// of their own, or sum v.v and m over the ranks itself (not done here).
//
// Randomness: the O-step noise of a block is drawn from KeyedStream(seed, kSphereNoise,
// block id, iteration) in row-major order of the block, so a chain is reproducible and a
// block's noise does not depend on which rank holds it. A purpose of its own keeps these
// streams apart from the row-keyed noise of other samplers in the same model; the initial
// velocity uses iteration 2^64 - 1, which no step uses.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "carousel/comm/ordered_sum.hpp"

namespace carousel {

// Sums numbers per vector over all blocks of the vectors (see "Distributed vectors").
class VectorReduction {
 public:
  virtual ~VectorReduction() = default;
  // partials: this rank's blocks by global id, `size` values each. Returns the sum over
  // every block of every rank, added in ascending id order, the same on every rank.
  virtual std::vector<double> SumOverBlocks(const KeyedPartials& partials,
                                            std::size_t size) const = 0;
};

// Every block of the vectors is on this rank: adds the partials in id order.
class LocalReduction final : public VectorReduction {
 public:
  std::vector<double> SumOverBlocks(const KeyedPartials& partials, std::size_t size) const override;
};

// A block of unit vectors: row r of x is (this block's piece of) vector r.
struct SphereBlock {
  Eigen::MatrixXd x;  // positions, rows x columns
  Eigen::MatrixXd v;  // velocities, tangent: sum over blocks of x_r . v_r = 0
};

// The blocks one rank steps together, ascending by id. The id keys the block's noise and
// its place in the ordered sums; it must be below 2^31 (KeyedPartials' keys are ints).
struct SphereBlockRef {
  std::uint64_t id = 0;
  SphereBlock* block = nullptr;
};
using SphereBlocks = std::vector<SphereBlockRef>;

enum class GeodesicKind { kSggmc, kGsgnht };
enum class GeodesicDiffusion { kZero, kFisher };

// Deliberately broken variants, for the negative controls of the tests only.
enum class GeodesicFault {
  kNone,
  kEulerRenormalise,  // A: x <- (x + t v) / |x + t v|, v projected, instead of Eq. 7
  kNoProjection,      // Lambda(x) left out: O adds the whole kick, A does not re-project
  kDoubledNoise,      // O: noise variance 2 (2C - h V) h
};

struct SphereNoiseKey {
  std::uint64_t seed = 0;
  std::uint64_t block_id = 0;
  std::uint64_t iteration = 0;
};

// The Euclidean gradient of the minibatch potential at x (rows x columns, into `grad`)
// and, when `variance` is not null, its diagonal noise variance V(x) (same shape).
using SphereGradient =
    std::function<void(const Eigen::MatrixXd& x, Eigen::MatrixXd& grad, Eigen::MatrixXd* variance)>;
// The same for a set of blocks: grads[b] (and (*variances)[b]) for blocks[b], at their x.
using SphereBlocksGradient =
    std::function<void(const SphereBlocks& blocks, std::vector<Eigen::MatrixXd>& grads,
                       std::vector<Eigen::MatrixXd>* variances)>;

class GeodesicSampler {
 public:
  // friction: C > 0; thermostat_initial: xi_0 of gSGNHT (ignored by SGGMC).
  GeodesicSampler(GeodesicKind kind, double friction, double thermostat_initial,
                  GeodesicDiffusion diffusion = GeodesicDiffusion::kZero,
                  GeodesicFault fault = GeodesicFault::kNone);

  std::string name() const;
  GeodesicKind kind() const { return kind_; }
  GeodesicDiffusion diffusion() const { return diffusion_; }

  // Alg. 1/2, first line: v <- Lambda(x) z, z ~ N(0, I), keyed by (seed, block id,
  // iteration 2^64 - 1); x is normalised first.
  void Init(const SphereBlocks& blocks, std::uint64_t seed, const VectorReduction& sums) const;

  // One ABOBA step of size h whose noise is keyed by `iteration`; `gradient` is called once,
  // at x after the first A, with variances when diffusion() is kFisher (null for kZero).
  void Step(const SphereBlocks& blocks, double h, std::uint64_t seed, std::uint64_t iteration,
            const VectorReduction& sums, const SphereBlocksGradient& gradient);

  // The set {block} with id key.block_id (a block holding whole vectors, or one of several
  // blocks whose reduction adds the others' partials).
  void Init(SphereBlock& block, std::uint64_t seed, std::uint64_t block_id,
            const VectorReduction& sums) const;
  void Step(SphereBlock& block, double h, const SphereNoiseKey& key, const VectorReduction& sums,
            const SphereGradient& gradient);

  // The pieces of Step, for drivers that evaluate the gradient themselves.
  void HalfFlow(const SphereBlocks& blocks, double h, const VectorReduction& sums);  // A, xi
  void Friction(const SphereBlocks& blocks, double h) const;                         // B
  // O: grads[b] and (*variances)[b] (null: V = 0) at blocks[b].x.
  void Kick(const SphereBlocks& blocks, const std::vector<Eigen::MatrixXd>& grads,
            const std::vector<Eigen::MatrixXd>* variances, double h, std::uint64_t seed,
            std::uint64_t iteration, const VectorReduction& sums);

  double thermostat() const { return xi_; }
  void set_thermostat(double xi) { xi_ = xi; }

 private:
  GeodesicKind kind_;
  double friction_;
  double xi_;
  GeodesicDiffusion diffusion_;
  GeodesicFault fault_;
  std::vector<Eigen::MatrixXd> grads_, variances_, kicks_;  // scratch, one per block
  KeyedPartials partials_;                                  // scratch
};

// The diagonal empirical Fisher estimate of the minibatch gradient's noise variance (see
// "Diffusion estimate"): per_datum[i] is g_i (rows x columns) for the n >= 2 data of the
// minibatch, total_data N. Returns V = (N^2 / n) * sample variance (divisor n - 1).
Eigen::MatrixXd EmpiricalFisherDiagonal(const std::vector<Eigen::MatrixXd>& per_datum,
                                        double total_data);

// The tangent, isotropic form of the empirical Fisher estimate (see "Diffusion estimate")
// for a block holding whole vectors x (rows, unit length): per_datum[i] is g_i for the
// n >= 2 data of the minibatch, total_data N. Every entry of row r is
// tr(Lambda_r S_r Lambda_r) / (d - 1), S_r the (N^2 / n)-scaled sample covariance of row r of
// the g_i, d the number of columns.
Eigen::MatrixXd EmpiricalTangentFisher(const std::vector<Eigen::MatrixXd>& per_datum,
                                       const Eigen::MatrixXd& x, double total_data);

// Mean resultant length of the von Mises-Fisher distribution on S^{d-1}:
// E[mu.x] = A_d(kappa) = I_{d/2}(kappa) / I_{d/2-1}(kappa), by the continued fraction
// I_nu / I_{nu-1} = 1 / (2 nu / kappa + 1 / (2 (nu + 1) / kappa + ...)) (from the
// recurrence I_{nu-1} - I_{nu+1} = (2 nu / kappa) I_nu), evaluated backwards from a depth
// far beyond nu + kappa, where the tail no longer changes the result in double precision.
double VmfMeanResultantLength(int d, double kappa);

}  // namespace carousel
