// What `carousel amf` checks and reads of its input beyond the mf loader (io/mf_loader.hpp,
// io/dense_npy_loader.hpp): sparse entries must be non-negative, and --fix-rows' W columns.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <memory>
#include <string>

#include "carousel/comm/communicator.hpp"
#include "carousel/data/mf_problem.hpp"
#include "carousel/io/mf_loader.hpp"
#include "carousel/model/amf/amf_options.hpp"
#include "carousel/model/bpmf/mf_outputs.hpp"

namespace carousel {

// The model needs X >= 0. The loader keeps no line numbers, so when its range of values
// reaches below 0, rank 0 reads the file whole to name the first negative entry's line.
// Collective: every rank throws the InputError.
void RejectNegativeEntries(Communicator& comm, const io::MfInput& input, const MfProblem& problem);

// --fix-rows: I x K_f, 1 <= K_f <= K, every element finite and >= 0; read whole by every
// rank (it is the size of K_f columns of W), which keeps its own rows in AmfModel::Attach.
// Collective.
Eigen::MatrixXf ReadFixedRows(Communicator& comm, const std::string& path, std::uint32_t rows,
                              int rank);

// A rank's share of amf's input, with what the run adds to it.
struct AmfRunData : io::LoadedMf {
  bool dense = false;                               // a dense .npy: every element observed
  Eigen::Index fixed_cols = 0;                      // --fix-rows' columns of W
  std::unique_ptr<io::SampleWriter> sample_writer;  // rank 0, with --keep-samples
};

// Reads the rank's share of --train: a dense .npy, every element observed, of any real value
// (the model is symmetric) or complex (the paper's likelihood, Eq. 15, set in the config); or
// sparse ratings, non-negative magnitudes. Then --fix-rows into the config, and whether the
// run reconstructs the rest of X (the alpha-Wiener filter needs a fixed part and a rest, on
// every entry). Collective.
AmfRunData LoadAmfData(Communicator& comm, AmfOptions& o);

}  // namespace carousel
