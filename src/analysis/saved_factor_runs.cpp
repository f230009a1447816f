#include "carousel/analysis/saved_factor_runs.hpp"

#include <cmath>
#include <cstring>

#include "carousel/analysis/model_json_reader.hpp"
#include "carousel/data/mf_problem.hpp"
#include "carousel/io/json.hpp"
#include "carousel/io/npy.hpp"
#include "carousel/io/run_model_json.hpp"
#include "carousel/util/error.hpp"

namespace carousel::analysis {
namespace {

// mf's: the global mean, the clipping range, the noise and the shape.
SavedFactorRuns ReadMfFacts(const ModelJsonReader& json) {
  const io::JsonValue& root = json.root();
  SavedFactorRuns m;
  m.mu = json.Real(root, "mu");
  const io::JsonValue& clip = json.Member(root, "clip");
  m.lo = json.Real(clip, "lo");
  m.hi = json.Real(clip, "hi");
  if (!(m.lo <= m.hi)) json.Fail(clip, "'lo' is larger than 'hi'");
  const float tau = json.Real(json.Member(root, "hyper_mean"), "tau");
  if (!(tau > 0.0f)) json.Fail(json.Member(root, "hyper_mean"), "'tau' is not positive");
  m.noise_variance = 1.0 / static_cast<double>(tau);
  m.shape.rank = static_cast<int>(json.Unsigned(root, "rank", 4096));
  m.shape.bias = json.Boolean(root, "bias");
  m.users = static_cast<std::uint32_t>(json.Unsigned(root, "users", kUnknownId - 1));
  m.items = static_cast<std::uint32_t>(json.Unsigned(root, "items", kUnknownId - 1));
  return m;
}

// amf's: alpha, the likelihood and the shape (W rows x K, H columns x K, no biases).
SavedFactorRuns ReadAmfFacts(const ModelJsonReader& json) {
  const io::JsonValue& root = json.root();
  SavedFactorRuns m;
  m.amf = true;
  m.entry.alpha = json.Real(root, "alpha");
  if (!(m.entry.alpha > 0.0 && m.entry.alpha <= 2.0))
    json.Fail(json.Member(root, "alpha"), "'alpha' is not in (0, 2]");
  const std::string likelihood = json.String(root, "likelihood");
  if (likelihood != "real" && likelihood != "complex")
    json.Fail(json.Member(root, "likelihood"), "'likelihood' is not \"real\" or \"complex\"");
  m.entry.likelihood = likelihood == "complex" ? AmfLikelihood::kComplex : AmfLikelihood::kReal;
  m.dense = json.Boolean(root, "dense");
  m.shape.rank = static_cast<int>(json.Unsigned(root, "rank", 4096));
  m.shape.bias = false;
  m.users = static_cast<std::uint32_t>(json.Unsigned(root, "rows", kUnknownId - 1));
  m.items = static_cast<std::uint32_t>(json.Unsigned(root, "cols", kUnknownId - 1));
  return m;
}

// The saved samples' iterations and files, which every model lists alike.
void ReadSampleFiles(const ModelJsonReader& json, const std::string& run, SavedFactorRuns& m) {
  const io::JsonValue& root = json.root();
  const std::string command = m.amf ? "carousel amf" : "carousel mf";
  if (json.String(root, "sample_dtype") != "float32")
    json.Fail(json.Member(root, "sample_dtype"), "'sample_dtype' is not float32");
  const io::JsonValue& samples = json.Member(root, "samples");
  if (samples.kind != io::JsonValue::Kind::kArray) json.Fail(samples, "'samples' is not an array");
  if (samples.items.empty())
    json.Fail(samples, "the run kept no samples, so there is nothing to predict from: rerun " +
                           command + " with --keep-samples N (e.g. --keep-samples 20)");
  for (const io::JsonValue& sample : samples.items) {
    m.iterations.push_back(json.Unsigned(sample, "iteration", ~std::uint64_t{0}));
    m.w_files.push_back(run + "/" + json.String(sample, "W"));
    m.h_files.push_back(run + "/" + json.String(sample, "H"));
  }
}

SavedFactorRuns ReadModel(const std::string& run) {
  const ModelJsonReader json(run, {"carousel mf model", "carousel amf model"},
                             "carousel mf or amf");
  SavedFactorRuns m =
      json.format() == "carousel amf model" ? ReadAmfFacts(json) : ReadMfFacts(json);
  ReadSampleFiles(json, run, m);
  return m;
}

// The models of a run's chains must predict the same way: the same data and shape.
void CheckSameModel(const SavedFactorRuns& first, const SavedFactorRuns& other,
                    const std::string& run) {
  if (other.amf != first.amf || other.entry.alpha != first.entry.alpha ||
      other.entry.likelihood != first.entry.likelihood || other.dense != first.dense ||
      other.mu != first.mu || other.lo != first.lo || other.hi != first.hi ||
      other.users != first.users || other.items != first.items ||
      other.shape.rank != first.shape.rank || other.shape.bias != first.shape.bias)
    throw InputError(run + "/" + io::kModelJsonFile,
                     "describes another model than the run's first chain (data, rank, biases or "
                     "alpha differ), so their samples cannot be pooled");
}

// An id array of the run (user_ids.npy, item_ids.npy; amf's row_ids.npy, col_ids.npy):
// `count` int64 ids, ascending.
io::IdMap ReadIds(const std::string& path, std::uint32_t count) {
  const io::NpyArray npy = io::ReadNpy(path);
  if (npy.descr != "<i8" || npy.shape.size() != 1 || npy.shape[0] != count)
    throw InputError(path, "expected " + std::to_string(count) +
                               " int64 ids (as model.json says), " + "found " + npy.descr +
                               " of shape " + std::to_string(npy.shape.size()) + "-d");
  std::vector<std::int64_t> ids(count);
  if (count > 0) std::memcpy(ids.data(), npy.data.data(), count * sizeof(std::int64_t));
  return io::IdMap::FromIds(std::move(ids));
}

}  // namespace

SavedFactorRuns ReadSavedFactorRuns(const std::vector<std::string>& runs) {
  SavedFactorRuns model;
  double noise_sum = 0.0;
  for (const std::string& run : runs) {
    SavedFactorRuns chain = ReadModel(run);
    if (run == runs.front()) {
      model = chain;
      model.iterations.clear();
      model.w_files.clear();
      model.h_files.clear();
    } else {
      CheckSameModel(model, chain, run);
    }
    noise_sum += chain.noise_variance;
    model.iterations.insert(model.iterations.end(), chain.iterations.begin(),
                            chain.iterations.end());
    model.w_files.insert(model.w_files.end(), chain.w_files.begin(), chain.w_files.end());
    model.h_files.insert(model.h_files.end(), chain.h_files.begin(), chain.h_files.end());
  }
  model.noise_variance = noise_sum / static_cast<double>(runs.size());
  return model;
}

std::vector<float> ReadSavedFactor(const std::string& path, std::uint32_t rows, int width) {
  const io::NpyArray npy = io::ReadNpy(path);
  if (npy.descr != "<f4" || npy.fortran_order || npy.shape.size() != 2 || npy.shape[0] != rows ||
      npy.shape[1] != static_cast<std::size_t>(width))
    throw InputError(path, "expected a " + std::to_string(rows) + " x " + std::to_string(width) +
                               " float32 matrix (as model.json says), found " + npy.descr + " of " +
                               std::to_string(npy.shape.size()) + " dimensions");
  std::vector<float> values(static_cast<std::size_t>(rows) * static_cast<std::size_t>(width));
  if (!values.empty()) std::memcpy(values.data(), npy.data.data(), values.size() * sizeof(float));
  return values;
}

io::IdMap SavedRunIds(const std::string& run, const SavedFactorRuns& model, bool rows) {
  const std::uint32_t count = rows ? model.users : model.items;
  if (model.amf && model.dense) {
    std::vector<std::int64_t> ids(count);
    for (std::uint32_t i = 0; i < count; ++i) ids[i] = i;
    return io::IdMap::FromIds(std::move(ids));
  }
  const char* file =
      model.amf ? (rows ? "row_ids.npy" : "col_ids.npy") : (rows ? "user_ids.npy" : "item_ids.npy");
  return ReadIds(run + "/" + file, count);
}

}  // namespace carousel::analysis
