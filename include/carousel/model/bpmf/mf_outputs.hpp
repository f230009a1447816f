// The files `carousel mf` leaves in --out: trace.csv, predictions.csv and NumPy arrays of
// the posterior. Every file is written atomically; every text file starts with the
// run's configuration as '#' comment lines.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "carousel/io/mf_loader.hpp"
#include "carousel/io/npy.hpp"
#include "carousel/io/text_output.hpp"
#include "carousel/model/bpmf/bpmf_model.hpp"

namespace carousel::io {

void WriteTrace(const std::string& path, const std::string& comments,
                const std::vector<TraceRow>& rows);

// user, item, observed rating, posterior mean, posterior sd; one line per test rating.
void WritePredictions(const std::string& path, const std::string& comments, const LoadedMf& data,
                      const MfPosterior& posterior);

// H_mean.npy, H_var.npy (factors), item_bias_*.npy when biases are on, H_sample.npy (the
// last sample), user_ids.npy and item_ids.npy (external id of each row).
void WriteItemArrays(const std::string& dir, const MfPosterior& posterior, int rank, bool bias,
                     const LoadedMf& data);

// W_mean.npy, W_var.npy, W_sample.npy and user_bias_*.npy when biases are on, written a
// slice of users at a time (BpmfModel::ForEachUserSlice) and committed together.
class UserArrayWriter {
 public:
  UserArrayWriter(const std::string& dir, std::uint32_t users, int rank, bool bias);
  void Write(const UserSlice& slice);
  void Commit();

 private:
  int rank_;
  NpyRowWriter w_mean_, w_var_, w_sample_;
  std::unique_ptr<NpyRowWriter> bias_mean_, bias_var_;
};

}  // namespace carousel::io
