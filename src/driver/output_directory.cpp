#include "carousel/driver/output_directory.hpp"

#include <filesystem>
#include <fstream>
#include <system_error>

#include "carousel/driver/resume.hpp"
#include "carousel/io/checkpoint_file.hpp"
#include "carousel/model/bpmf/mf_outputs.hpp"
#include "carousel/util/error.hpp"

namespace carousel::driver {
namespace fs = std::filesystem;
namespace {

// The command ("mf") whose run wrote out/config.toml, from its first line (RunConfig::Toml);
// empty when there is none to read.
std::string CommandOfRun(const std::string& out) {
  std::ifstream in(fs::path(out) / kRunConfigFile);
  std::string line;
  if (!std::getline(in, line)) return "";
  const std::string opening = "`carousel ";
  const std::size_t start = line.find(opening);
  if (start == std::string::npos) return "";
  const std::size_t end = line.find('`', start + opening.size());
  return end == std::string::npos
             ? ""
             : line.substr(start + opening.size(), end - start - opening.size());
}

}  // namespace

const std::vector<std::string>& RunOutputFiles() {
  // carousel mf (src/model/bpmf/mf_outputs.cpp, mf_gibbs_run.cpp), carousel lda
  // (model/lda/lda_outputs.cpp), dpmix's components and clusters (dpmix_outputs.cpp) and
  // amf's reconstruction (amf_outputs.cpp).
  static const std::vector<std::string> files = {
      "trace.csv",          "predictions.csv",   "W_mean.npy",         "W_var.npy",
      "W_sample.npy",       "H_mean.npy",        "H_var.npy",          "H_sample.npy",
      "user_bias_mean.npy", "user_bias_var.npy", "item_bias_mean.npy", "item_bias_var.npy",
      "user_ids.npy",       "item_ids.npy",      "topic_word.npy",     "topics.txt",
      "heldout.txt",        "draws/chain-1.csv", "chains.txt",         "doc_topic.npy",
      "vocab.txt",          "model.json",        "row_ids.npy",        "col_ids.npy",
      "components.npy",     "components.txt",    "clusters.csv",       "reconstruction.npy",
  };
  return files;
}

void PrepareFreshOutput(const std::string& out, bool overwrite) {
  std::error_code ec;
  std::vector<fs::path> found;
  for (const std::string& name : RunOutputFiles()) {
    const fs::path path = fs::path(out) / name;
    if (fs::exists(path, ec)) found.push_back(path);
  }
  // carousel mf --keep-samples: samples/W-<n>.npy and H-<n>.npy.
  const fs::path samples = fs::path(out) / io::kSamplesDir;
  if (fs::is_directory(samples, ec))
    for (fs::directory_iterator it(samples, ec), end; !ec && it != end; it.increment(ec))
      if (io::SampleFileIndex(it->path().filename().string())) found.push_back(it->path());
  const bool has_checkpoints = !io::CheckpointsNewestFirst(CheckpointDir(out)).empty();
  if (found.empty() && !has_checkpoints) return;
  if (!overwrite) {
    std::string what = has_checkpoints ? "checkpoints" : found.front().filename().string();
    if (has_checkpoints && !found.empty()) what += " and " + found.front().filename().string();
    if (!has_checkpoints)
      throw UsageError("--out", out + " holds another run's " + what +
                                    ", and no checkpoint to continue it from: replace it with "
                                    "--overwrite, or choose another --out");
    const std::string command = CommandOfRun(out);
    throw UsageError("--out", out + " holds another run's " + what + ": continue that run with " +
                                  (command.empty() ? "" : "carousel " + command + " ") +
                                  "--resume " + out +
                                  ", replace it with --overwrite, or choose another --out");
  }
  io::RemoveCheckpoints(CheckpointDir(out));
  // The old run's config.toml goes too, lest it stay beside no outputs of its own if this run
  // fails before it writes its own (it does not keep a fresh run out: see the header).
  const fs::path config = fs::path(out) / kRunConfigFile;
  if (fs::exists(config, ec)) found.push_back(config);
  for (const fs::path& path : found) {
    fs::remove(path, ec);
    if (ec) throw OutputError(path.string(), "cannot delete the old run's file: " + ec.message());
  }
  if (fs::is_directory(samples, ec) && fs::is_empty(samples, ec)) fs::remove(samples, ec);
}

}  // namespace carousel::driver
