// A block of parameters as samplers see it: an n x d row-major float matrix (one row per
// user or item: its factors and, when biases are on, its bias in the last column) plus
// the sampler's auxiliary arrays of the same shape (RMSprop averages, momenta, ...).
// Blocks are the unit that is updated, moved between ranks and checkpointed.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <vector>

#include <algorithm>

#include "carousel/util/keyed_normals.hpp"
#include "carousel/util/keyed_rng.hpp"

namespace carousel {

using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

struct BlockState {
  Matrix theta;
  std::vector<Matrix> aux;
  // Rows stepped only when they have data (DESIGN.md section 9, lazy_rows.hpp): the
  // iteration each row's theta stands at, that is, every step before it has been applied.
  // Empty: every row is current (a block whose rows are all stepped every iteration).
  std::vector<std::uint64_t> row_clock = {};
};

// The stochastic gradient of one block, in the pieces samplers need:
//   -grad U~(theta) = scale * lik_sum - prior_precision (.) theta,
// where lik_sum = sum over the minibatch of grad log p(x_n | theta) and
// scale = N / N_minibatch. PSGLD's preconditioner uses the minibatch mean
// lik_sum / N_minibatch (HAMCMC paper Sec. 3.1).
struct BlockGradient {
  const Matrix& lik_sum;
  double scale;
  double minibatch_size;
  const Eigen::VectorXf& prior_precision;  // one per column
  // Optional, supplied by the model for metrics that use it: how much data each row of the
  // block sees (for matrix factorization, the row's number of ratings).
  const Eigen::VectorXf* row_data_count = nullptr;
  // Optional, for samplers that ask for it (Sampler::needs_fisher_after_step): the Fisher
  // information of the minibatch about each element, summed like lik_sum (so that
  // scale * fisher_sum estimates the whole data's), at the same point.
  const Matrix* fisher_sum = nullptr;
  // Optional, supplied by the model for metrics that ask for it
  // (DiagonalMetric::needs_information_per_datum): the expected Fisher information that one
  // datum of a row gives each column, so that row_data_count * information_per_datum
  // approximates the likelihood's Fisher information about the row.
  const Eigen::VectorXf* information_per_datum = nullptr;

  float LogPosterior(const Matrix& theta, Eigen::Index r, Eigen::Index c) const {
    return static_cast<float>(scale) * lik_sum(r, c) - prior_precision[c] * theta(r, c);
  }
};

// Where a row's injected noise comes from: keyed by the row's global id and the
// iteration, so any rank holding the block draws the same numbers.
struct NoiseKey {
  std::uint64_t seed;
  Purpose purpose;
  std::uint64_t iteration;
  const std::vector<std::uint32_t>* global_ids;

  KeyedStream Row(Eigen::Index r) const {
    return KeyedStream(seed, purpose, (*global_ids)[static_cast<std::size_t>(r)], iteration);
  }

  // Standard normals for rows first .. first + count - 1, cols each (keyed_normals.hpp).
  void FillRows(Eigen::Index first, Eigen::Index count, Eigen::Index cols,
                Eigen::ArrayXf& out) const {
    FillKeyedNormals(seed, purpose, iteration, global_ids->data() + first, count, cols, out);
  }
};

// Rows per fill of keyed normals: the chunks are fixed by the block, so every rank draws
// the same numbers for a row, and small enough that a chunk's arrays stay in the L1/L2 cache.
inline constexpr Eigen::Index kNoiseChunkRows = 64;

// Calls update(r, z) for every row r of a block with `cols` columns, z pointing at the
// row's `cols` standard normals (NoiseKey::FillRows, in chunks of kNoiseChunkRows rows).
template <typename Update>
void ForEachRowWithNoise(const NoiseKey& noise, Eigen::Index rows, Eigen::Index cols,
                         Update&& update) {
  Eigen::ArrayXf z;
  for (Eigen::Index first = 0; first < rows; first += kNoiseChunkRows) {
    const Eigen::Index count = std::min(kNoiseChunkRows, rows - first);
    noise.FillRows(first, count, cols, z);
    for (Eigen::Index r = 0; r < count; ++r) update(first + r, z.data() + r * cols);
  }
}

// The same for the listed rows of a block only (local indices, `rows`): update(r, z) for each,
// z keyed by the row's global id; the chunks are kNoiseChunkRows entries of the list, so the
// same list gives the same numbers on every rank.
template <typename Update>
void ForEachListedRowWithNoise(const NoiseKey& noise, const std::vector<std::uint32_t>& rows,
                               Eigen::Index cols, Update&& update) {
  Eigen::ArrayXf z;
  std::uint32_t ids[kNoiseChunkRows];
  const auto n = static_cast<Eigen::Index>(rows.size());
  for (Eigen::Index first = 0; first < n; first += kNoiseChunkRows) {
    const Eigen::Index count = std::min(kNoiseChunkRows, n - first);
    for (Eigen::Index i = 0; i < count; ++i) ids[i] = (*noise.global_ids)[rows[first + i]];
    FillKeyedNormals(noise.seed, noise.purpose, noise.iteration, ids, count, cols, z);
    for (Eigen::Index i = 0; i < count; ++i)
      update(Eigen::Index{rows[first + i]}, z.data() + i * cols);
  }
}

}  // namespace carousel
