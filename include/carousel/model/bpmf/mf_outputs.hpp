// The files `carousel mf` leaves in --out: trace.csv, predictions.csv and NumPy arrays of
// the posterior. Every file is written atomically; every text file starts with the
// run's configuration as '#' comment lines.
#pragma once

#include <string>
#include <vector>

#include "carousel/model/bpmf/bpmf_model.hpp"
#include "carousel/io/mf_loader.hpp"
#include "carousel/io/text_output.hpp"

namespace carousel::io {

void WriteTrace(const std::string& path, const std::string& comments,
                const std::vector<TraceRow>& rows);

// user, item, observed rating, posterior mean, posterior sd; one line per test rating.
void WritePredictions(const std::string& path, const std::string& comments, const LoadedMf& data,
                      const MfPosterior& posterior);

// W_mean.npy, W_var.npy, H_mean.npy, H_var.npy (factors), user_bias_*.npy and
// item_bias_*.npy when biases are on, W_sample.npy and H_sample.npy (the last sample),
// user_ids.npy and item_ids.npy (external id of each row).
void WritePosteriorArrays(const std::string& dir, const MfPosterior& posterior, int rank, bool bias,
                          const LoadedMf& data);

}  // namespace carousel::io
