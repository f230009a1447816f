// What `carousel amf` checks and reads of its input beyond the mf loader (io/mf_loader.hpp,
// io/dense_npy_loader.hpp): sparse entries must be non-negative, and --fix-rows' W columns.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <string>

#include "carousel/comm/communicator.hpp"
#include "carousel/data/mf_problem.hpp"
#include "carousel/io/mf_loader.hpp"

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

}  // namespace carousel
