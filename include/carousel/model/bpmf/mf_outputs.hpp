// The files `carousel mf` leaves in --out: trace.csv, predictions.csv, NumPy arrays of
// the posterior, model.json and the saved samples in samples/. Every file is written
// atomically; every CSV file starts with the run's configuration as '#' comment lines.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "carousel/comm/communicator.hpp"
#include "carousel/io/mf_loader.hpp"
#include "carousel/io/npy.hpp"
#include "carousel/io/run_model_json.hpp"  // kModelJsonFile
#include "carousel/io/text_output.hpp"
#include "carousel/model/bpmf/bpmf_model.hpp"
#include "carousel/model/bpmf/mf_config.hpp"

namespace carousel::io {

void WriteTrace(const std::string& path, const std::string& comments,
                const std::vector<TraceRow>& rows);

// user, item, observed rating, posterior mean, posterior sd; one line per test rating, of
// the whole test set (GatherTestSet).
void WritePredictions(const std::string& path, const std::string& comments,
                      const WholeTestSet& test, const MfPosterior& posterior);

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

// ---- --keep-samples: samples/ and model.json (what `carousel predict` reads).

inline constexpr const char* kSamplesDir = "samples";

// The file of sample `index` (0-based, in the order taken) of a factor, relative to --out:
// "samples/W-<index>.npy" for factor "W", "samples/H-<index>.npy" for "H". Each is a float32
// matrix (users or items x K, then the bias column when biases are on), exactly the
// sampler's values.
std::string SampleFile(const std::string& factor, std::size_t index);

// The index of a sample file's name ("W-3.npy", "H-12.npy", no folder); nullopt for any
// other name.
std::optional<std::size_t> SampleFileIndex(const std::string& name);

// Writes the samples a BpmfModel hands over into DIR/samples/ (which must exist), each file
// atomically: H at once, W streamed a slice of users at a time.
class SampleWriter : public MfSampleSink {
 public:
  SampleWriter(std::string dir, std::uint32_t users, int width);
  void Begin(std::size_t index, std::uint64_t iteration, const Matrix& h) override;
  void Users(std::uint32_t first, const Matrix& rows) override;
  void Finish() override;

 private:
  std::string dir_;
  std::uint32_t users_;
  int width_;
  std::unique_ptr<NpyRowWriter> w_;
};

// The writer of a run's kept samples on rank 0 (none elsewhere, nor with `keep` 0), its
// samples/ folder made. Collective.
std::unique_ptr<SampleWriter> StartSampleWriter(Communicator& comm, const std::string& out,
                                                std::uint64_t keep, std::uint32_t rows, int width);

// Deletes the sample files DIR/samples/{W,H}-<n>.npy with n >= `kept` (taken by a run that
// stopped after its last checkpoint and not taken again by the run that resumed it, when
// that run has another --iterations), then samples/ itself if that leaves it empty.
void RemoveStaleSamples(const std::string& dir, std::size_t kept);
// model.json's "samples" array (as a member's value, indented as a member of the top
// object): the iteration and the files of each saved sample.
std::string SamplesJson(const std::vector<std::uint64_t>& iterations);

// What model.json records: the training summaries a prediction needs, the model's shape,
// the chain, the posterior means of the scalar hyperparameters and the samples kept.
struct MfModelSummary {
  std::string version;  // carousel's
  std::string sampler;
  std::uint64_t seed = 0;
  int tiles = 0;
  std::uint64_t iterations = 0, burn_in = 0, thin = 0;
  std::uint64_t posterior_draws = 0;  // kept draws in the posterior averages
  std::uint64_t moments_every = 1;    // MfConfig::moments_every
  std::uint64_t moment_draws = 0;     // of them, those in the factors' means and variances
  float mu = 0.0f, lo = 0.0f, hi = 0.0f;
  BpmfShape shape;
  std::uint32_t users = 0, items = 0;
  std::uint64_t train_ratings = 0;
  bool hyper_sampled = true;
  BpmfHyper hyper_mean;  // over the kept draws
  std::vector<std::uint64_t> sample_iterations;
};

// DIR/model.json, written atomically.
void WriteModelJson(const std::string& dir, const MfModelSummary& model);

// What a finished run's closing lines report of it (on rank 0).
struct MfRunResult {
  MfPosterior posterior;
  WholeTestSet test;
};

// The outputs of a finished run, collective: the user arrays streamed to rank 0, and there
// predictions.csv, the item arrays, the kept samples pruned to the run's and model.json
// (stamped with carousel's `version`), synced together.
MfRunResult WriteMfRunOutputs(Communicator& comm, const std::string& out,
                              const std::string& comments, const MfConfig& config,
                              const LoadedMf& data, BpmfModel& model, const std::string& version);

}  // namespace carousel::io
