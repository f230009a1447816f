// The files `carousel dpmix` leaves in --out, each written atomically, text files starting
// with the run's configuration as '#' comment lines:
//   trace.csv       iter,seconds,log_pred,log_pred_sample,occupied,alpha,samples per
//                   evaluation (log_pred: held-out log predictive per observation)
//   components.npy  K x (1 + categories) float64, one row per component occupied at the end:
//                   the posterior mean of its weight, then of its omega (over the collected
//                   samples in which it existed)
//   clusters.csv    observation,component,share,held_out: each observation's most probable
//                   component (row of components.npy, -1 if none of them), for training
//                   observations the one that held it most often over the collected samples
//                   (share: that fraction), for held-out ones the likeliest at the last
//                   evaluation
//   components.txt  (with --vocab) each component's 20 most probable categories
#pragma once

#include <string>
#include <vector>

#include "carousel/comm/communicator.hpp"
#include "carousel/data/corpus.hpp"
#include "carousel/io/run_model_json.hpp"
#include "carousel/model/dpmix/dpmix_model.hpp"
#include "carousel/model/draws_table.hpp"

namespace carousel::io {

void WriteDpmixTrace(const std::string& path, const std::string& comments,
                     const std::vector<DpmixTraceRow>& rows);

// The draws file's scalars (CmdStan's layout), one row per kept draw: the held-out log
// predictive of the sample, the occupied components and the concentration.
DrawsTable DpmixDraws(const std::vector<DpmixTraceRow>& trace);

// components.npy, clusters.csv and, with a vocabulary, components.txt, from the `means` of
// DpmixModel::ComponentMeans (`components` rows of 1 + categories).
void WriteDpmixComponents(const std::string& out, const std::string& comments,
                          const std::vector<double>& means, std::size_t components,
                          std::size_t categories, const std::vector<DpmixCluster>& clusters,
                          const std::vector<std::string>& vocab);

// The outputs of a finished run, collective: the components' means and clusters gathered, and
// on rank 0 WriteDpmixComponents' files and model.json (`description`, with dpmix's members).
void WriteDpmixRunOutputs(Communicator& comm, const std::string& out, const std::string& comments,
                          const DpmixConfig& config, const Corpus& corpus, DpmixModel& model,
                          RunModelJson description);

}  // namespace carousel::io
