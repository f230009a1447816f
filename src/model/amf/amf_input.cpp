#include "carousel/model/amf/amf_input.hpp"

#include <cmath>
#include <cstring>

#include "carousel/comm/collective.hpp"
#include "carousel/io/dense_npy_loader.hpp"
#include "carousel/io/npy.hpp"
#include "carousel/io/ratings_reader.hpp"
#include "carousel/io/text_output.hpp"
#include "carousel/util/error.hpp"

namespace carousel {

void RejectNegativeEntries(Communicator& comm, const io::MfInput& input, const MfProblem& problem) {
  RunCollectively(comm, [&] {
    if (!(problem.lo < 0.0f) || comm.rank() != 0) return;
    const io::RatingsFile file = io::ReadRatings(input.train, input.format);
    for (const io::RawRating& r : file.ratings)
      if (r.value < 0.0)
        throw InputError(input.train + ":" + std::to_string(r.line),
                         "negative value " + io::FormatReal(r.value) +
                             " (alpha-stable NMF needs non-negative data)");
    throw InputError(input.train, "negative values (alpha-stable NMF needs non-negative data)");
  });
  // The other ranks learn of rank 0's error from RunCollectively; a clean file passes.
}

Eigen::MatrixXf ReadFixedRows(Communicator& comm, const std::string& path, std::uint32_t rows,
                              int rank) {
  Eigen::MatrixXf fixed;
  RunCollectively(comm, [&] {
    const io::NpyArray npy = io::ReadNpy(path);
    const bool wide = npy.descr == "<f8";
    if ((npy.descr != "<f4" && !wide) || npy.fortran_order)
      throw InputError(path, "--fix-rows needs a C-order float32 or float64 array, not '" +
                                 npy.descr + "'" + (npy.fortran_order ? " in Fortran order" : ""));
    std::string shape;
    for (std::size_t d : npy.shape) shape += (shape.empty() ? "" : ", ") + std::to_string(d);
    if (npy.shape.size() != 2 || npy.shape[0] != rows || npy.shape[1] < 1 ||
        npy.shape[1] > static_cast<std::size_t>(rank))
      throw InputError(path, "--fix-rows has shape (" + shape + "), expected (" +
                                 std::to_string(rows) + ", K_f): a row for each of the " +
                                 std::to_string(rows) + " rows of X and 1 <= K_f <= --rank " +
                                 std::to_string(rank));
    const auto cols = static_cast<Eigen::Index>(npy.shape[1]);
    fixed.resize(rows, cols);
    for (Eigen::Index i = 0; i < fixed.rows(); ++i)
      for (Eigen::Index k = 0; k < cols; ++k) {
        const std::size_t e = static_cast<std::size_t>(i * cols + k);
        double x;
        if (wide) {
          std::memcpy(&x, npy.data.data() + e * sizeof x, sizeof x);
        } else {
          float f;
          std::memcpy(&f, npy.data.data() + e * sizeof f, sizeof f);
          x = f;
        }
        if (!std::isfinite(x) || x < 0.0 || !std::isfinite(static_cast<float>(x)))
          throw InputError(path, "element [" + std::to_string(i) + ", " + std::to_string(k) +
                                     "] is " + io::FormatReal(x) +
                                     " (fixed rows of W must be finite and non-negative)");
        fixed(i, k) = static_cast<float>(x);
      }
  });
  return fixed;
}

AmfRunData LoadAmfData(Communicator& comm, AmfOptions& o) {
  AmfConfig& config = o.config;
  AmfRunData data;
  data.dense = io::IsNpyFile(o.input.train);
  if (data.dense) {
    io::LoadedDense loaded =
        io::LoadDenseNpy(comm, o.input.train, config.chain.tiles, o.input.seed);
    static_cast<io::LoadedMf&>(data) = std::move(loaded.data);
    if (loaded.complex) config.likelihood = AmfLikelihood::kComplex;
  } else {
    static_cast<io::LoadedMf&>(data) = io::LoadMf(comm, o.input);
    RejectNegativeEntries(comm, o.input, data.problem);
  }
  if (!o.fix_rows.empty())
    config.fixed_w = ReadFixedRows(comm, o.fix_rows, data.problem.rows, config.rank);
  config.reconstruct =
      data.dense && config.fixed_w.cols() > 0 && config.fixed_w.cols() < config.rank;
  return data;
}

}  // namespace carousel
