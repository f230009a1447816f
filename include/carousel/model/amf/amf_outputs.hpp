// The files `carousel amf` leaves in --out, each written atomically:
//   trace.csv           iter,seconds,log_likelihood,phi_acceptance,samples per evaluation,
//                       after the run's configuration as '#' comment lines
//   W_mean.npy, W_var.npy   rows x K float64: the posterior mean and variance of W
//   H_mean.npy, H_var.npy   columns x K float64 (the model's H is K x columns; written as
//                           carousel mf writes its items x K)
//   reconstruction.npy  (--fix-rows on dense input) the alpha-Wiener reconstruction
//   row_ids.npy, col_ids.npy  (sparse input) the input's id of each row of W and of H
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

#include "carousel/comm/communicator.hpp"
#include "carousel/io/id_map.hpp"
#include "carousel/io/mf_loader.hpp"
#include "carousel/io/run_model_json.hpp"
#include "carousel/model/amf/amf_model.hpp"
#include "carousel/model/draws_table.hpp"

namespace carousel::io {

void WriteAmfTrace(const std::string& path, const std::string& comments,
                   const std::vector<AmfTraceRow>& trace);

// The draws file's scalars (CmdStan's layout), one row per kept draw: the training
// log-likelihood given Phi and Phi's acceptance.
DrawsTable AmfDraws(const std::vector<AmfTraceRow>& trace);

// The posterior moments of a finished run, gathered on rank 0 (AmfModel::PosteriorMeans,
// PosteriorVariances, Reconstruction).
struct AmfMoments {
  Eigen::MatrixXd w_mean, h_mean, w_var, h_var, reconstruction;  // reconstruction: or empty
};

// W_mean.npy, H_mean.npy, W_var.npy, H_var.npy and, where it is not empty,
// reconstruction.npy; with `ids`, row_ids.npy and col_ids.npy. Returns model.json's "files"
// entries for them.
std::vector<std::pair<std::string, std::string>> WriteAmfArrays(const std::string& out,
                                                                const AmfMoments& moments,
                                                                const IdMap* rows,
                                                                const IdMap* cols);

// The outputs of a finished run, collective: the posterior moments gathered, and on rank 0
// WriteAmfArrays' files (with the id maps of sparse input: `data`'s, unless `dense`), the kept
// samples pruned to the run's and model.json (`description`, with amf's members added).
void WriteAmfRunOutputs(Communicator& comm, const std::string& out, const AmfConfig& config,
                        const LoadedMf& data, bool dense, AmfModel& model,
                        RunModelJson description);

}  // namespace carousel::io
