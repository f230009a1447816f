// `carousel predict`: predictive summaries of (user, item) pairs from the samples that a
// finished `carousel mf` or `carousel amf` run saved (model.json, samples/ and the id maps
// in its --out; by default a run keeps some, DefaultKeepSamples). A run of several chains
// (--chains) gives the samples of all its chains, pooled.
//
// amf: each saved sample gives the entry's scale v = (W H)_ij (Eq. 14: X_ij ~
// S_alpha(v^(1/alpha))); over the samples its mean, sd and central interval, then the median
// and central interval of a new entry's |X_ij| (model/amf/amf_predictive.hpp). A row or
// column the run never saw has no scale: its numbers are NaN.
//
// Each saved sample gives each pair the prediction the run itself makes (PredictRating:
// mu + b_i + c_j + w_i . h_j, clipped to the training ratings' range; an unseen user or item
// has zero factors and bias, which leaves the global mean and the known bias). Over the
// samples: the mean and sd (computed as predictions.csv computes them over the kept draws)
// and the central interval between the (1 - level)/2 and (1 + level)/2 sample quantiles
// (R's type 7). These describe the uncertainty of the predicted mean rating. For a new
// rating the observation noise N(0, 1/tau) adds to it: sd_rating = sqrt(sd^2 + 1/tau) and
// [lower_rating, upper_rating], the quantiles of the mixture over the samples of
// N(prediction, 1/tau), with tau the run's posterior mean of the noise precision
// (model.json's hyper_mean). One process; one sample's W and H in memory at a time, plus one
// float per pair and sample.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "carousel/cli/command_support.hpp"
#include "carousel/cli/commands.hpp"
#include "carousel/cli/several_chains.hpp"
#include "carousel/data/mf_problem.hpp"
#include "carousel/io/atomic_file.hpp"
#include "carousel/io/id_map.hpp"
#include "carousel/io/json.hpp"
#include "carousel/io/npy.hpp"
#include "carousel/io/ratings_reader.hpp"
#include "carousel/io/text_input.hpp"
#include "carousel/io/text_output.hpp"
#include "carousel/model/amf/amf_predictive.hpp"
#include "carousel/model/bpmf/bpmf.hpp"
#include "carousel/model/bpmf/mf_outputs.hpp"
#include "carousel/util/error.hpp"
#include "carousel/util/mcmc_diagnostics.hpp"
#include "carousel/version.hpp"

namespace carousel::cli {
namespace {

namespace fs = std::filesystem;

struct PredictOptions {
  std::string run, pairs;
  std::string out = "predicted_ratings.csv";
  std::string format = "auto";
  double level = 0.9;
};

PredictOptions Parse(const std::vector<std::string>& args) {
  PredictOptions o;
  CLI::App app{
      "carousel predict: posterior predictive summaries of (user, item) pairs from the samples "
      "of a finished carousel mf or amf run, every chain's pooled (one process)",
      "carousel predict"};
  SetUpCommandApp(app);
  app.add_option("--run", o.run,
                 "the --out directory of a finished carousel mf or amf run (of one chain or "
                 "several)")
      ->required()
      ->check(NonEmpty());
  app.add_option("--pairs", o.pairs,
                 "(user, item) pairs in any ratings format carousel mf reads, input ids (amf "
                 "on a dense .npy: row and column indices); a rating column is optional and "
                 "ignored")
      ->required()
      ->check(NonEmpty());
  app.add_option("--format", o.format, "auto|movielens|whitespace|csv|mtx (of --pairs)");
  app.add_option("--out", o.out,
                 "predictions: CSV user,item,mean,sd,lower,upper (of the mean rating), "
                 "sd_rating,lower_rating,upper_rating (of a new rating: with the noise 1/tau); "
                 "amf: row,col,mean,sd,lower,upper (of v = (WH)_ij), median_entry,lower_entry,"
                 "upper_entry (of a new entry's |X_ij|)")
      ->check(NonEmpty());
  app.add_option("--level", o.level, "probability of the central interval [lower, upper]");
  ParseOrThrow(app, args, "carousel predict");
  io::ParseRatingsFormat(o.format);
  if (!(o.level > 0.0 && o.level < 1.0))
    throw UsageError(
        "--level", "must lie strictly between 0 and 1 (e.g. 0.9), not " + io::FormatReal(o.level));
  return o;
}

// What prediction needs of the run: model.json's summaries and the saved samples' files.
struct SavedModel {
  bool amf = false;          // a carousel amf run (else mf)
  AmfPredictiveDraws entry;  // amf: its alpha and likelihood
  bool dense = false;        // amf: dense input, whose ids are the row and column indices
  float mu = 0.0f, lo = 0.0f, hi = 0.0f;
  double noise_variance = 1.0;  // 1 / tau, tau the posterior mean of the noise precision
  BpmfShape shape;
  std::uint32_t users = 0, items = 0;
  std::vector<std::uint64_t> iterations;
  std::vector<std::string> w_files, h_files;
};

// Reads model.json's members, naming the file, line and key when one is missing or wrong.
class ModelJson {
 public:
  explicit ModelJson(std::string path)
      : path_(std::move(path)), root_(io::ParseJson(io::ReadWholeFile(path_), path_)) {
    if (root_.kind != io::JsonValue::Kind::kObject) Fail(root_, "is not a JSON object");
  }
  const io::JsonValue& root() const { return root_; }

  [[noreturn]] void Fail(const io::JsonValue& at, const std::string& problem) const {
    throw InputError(path_ + ":" + std::to_string(at.line), problem);
  }
  const io::JsonValue& Member(const io::JsonValue& object, const std::string& key) const {
    const io::JsonValue* value = object.Find(key);
    if (!value) Fail(object, "no '" + key + "' (not a model.json of carousel mf or amf?)");
    return *value;
  }
  std::uint64_t Unsigned(const io::JsonValue& object, const std::string& key,
                         std::uint64_t most) const {
    const io::JsonValue& value = Member(object, key);
    const std::optional<std::uint64_t> n = value.AsUnsigned();
    if (!n || *n > most)
      Fail(value, "'" + key + "' is not an integer from 0 to " + std::to_string(most));
    return *n;
  }
  float Real(const io::JsonValue& object, const std::string& key) const {
    const io::JsonValue& value = Member(object, key);
    const std::optional<double> x = value.AsDouble();
    if (!x || !std::isfinite(static_cast<float>(*x)))
      Fail(value, "'" + key + "' is not a finite number");
    return static_cast<float>(*x);
  }
  bool Boolean(const io::JsonValue& object, const std::string& key) const {
    const io::JsonValue& value = Member(object, key);
    if (value.kind != io::JsonValue::Kind::kBool) Fail(value, "'" + key + "' is not true or false");
    return value.boolean;
  }
  std::string String(const io::JsonValue& object, const std::string& key) const {
    const io::JsonValue& value = Member(object, key);
    if (value.kind != io::JsonValue::Kind::kString) Fail(value, "'" + key + "' is not a string");
    return value.text;
  }

 private:
  std::string path_;
  io::JsonValue root_;
};

// mf's: the global mean, the clipping range, the noise and the shape.
SavedModel ReadMfFacts(const ModelJson& json) {
  const io::JsonValue& root = json.root();
  SavedModel m;
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
SavedModel ReadAmfFacts(const ModelJson& json) {
  const io::JsonValue& root = json.root();
  SavedModel m;
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
void ReadSampleFiles(const ModelJson& json, const std::string& run, SavedModel& m) {
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

SavedModel ReadModel(const std::string& run) {
  if (!fs::is_directory(run))
    throw InputError(run,
                     "not a directory; --run must be the --out directory of a finished carousel "
                     "mf or amf run");
  const std::string path = run + "/" + io::kModelJsonFile;
  if (!fs::exists(path)) {
    throw InputError(path,
                     "not found; --run must be the --out directory of a finished carousel mf or "
                     "amf run (model.json is written when the run ends)");
  }
  const ModelJson json(path);
  const io::JsonValue& root = json.root();
  const std::string format = json.String(root, "format");
  if (format != "carousel mf model" && format != "carousel amf model")
    json.Fail(root, "is not a carousel mf or amf model description");
  if (const std::uint64_t version = json.Unsigned(root, "format_version", 1u << 30); version != 1)
    json.Fail(root, "format version " + std::to_string(version) +
                        " is not one this carousel reads (1); use the carousel that wrote it");
  SavedModel m = format == "carousel amf model" ? ReadAmfFacts(json) : ReadMfFacts(json);
  ReadSampleFiles(json, run, m);
  return m;
}

// The models of a run's chains must predict the same way: the same data and shape.
void CheckSameModel(const SavedModel& first, const SavedModel& other, const std::string& run) {
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

// One factor of a saved sample: rows x (K + bias) float32.
std::vector<float> ReadFactor(const std::string& path, std::uint32_t rows, int width) {
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

// amf: draws of a new entry per pair, over all samples together (the Monte Carlo error of
// its median is then about 0.011 / f(median), f the predictive density).
constexpr std::size_t kAmfEntryDraws = 2000;

// The q quantile of the equal mixture of N(centre, variance) over `centres`, by bisection
// of its distribution function.
double MixtureQuantile(const std::vector<double>& centres, double variance, double q) {
  const double sd = std::sqrt(variance);
  const auto [low, high] = std::minmax_element(centres.begin(), centres.end());
  double lo = *low - 10.0 * sd, hi = *high + 10.0 * sd;
  for (int i = 0; i < 60; ++i) {
    const double mid = 0.5 * (lo + hi);
    double cdf = 0.0;
    for (const double c : centres) cdf += 0.5 * std::erfc((c - mid) / (sd * M_SQRT2));
    (cdf / static_cast<double>(centres.size()) < q ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

// Every chain's samples, pooled: the chains' model.json agree on the data and the shape,
// and the noise variance is the mean of theirs.
SavedModel ReadPooledModel(const std::vector<std::string>& runs) {
  SavedModel model;
  double noise_sum = 0.0;
  for (const std::string& run : runs) {
    SavedModel chain = ReadModel(run);
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

// Every pair's prediction under every kept sample, pair-major; `row` and `col` are the
// pairs' dense rows, kUnknownId where training never saw the user or item.
std::vector<float> SamplePredictions(const SavedModel& model, const std::vector<std::uint32_t>& row,
                                     const std::vector<std::uint32_t>& col) {
  const std::size_t n = row.size(), samples = model.iterations.size();
  const int width = model.shape.width();
  std::vector<float> predictions(n * samples);
  for (std::size_t s = 0; s < samples; ++s) {
    const std::vector<float> w = ReadFactor(model.w_files[s], model.users, width);
    const std::vector<float> h = ReadFactor(model.h_files[s], model.items, width);
    for (std::size_t p = 0; p < n; ++p) {
      const float* wr = row[p] == kUnknownId ? nullptr : &w[std::size_t{row[p]} * width];
      const float* hr = col[p] == kUnknownId ? nullptr : &h[std::size_t{col[p]} * width];
      // amf: a row or column the run never saw has no scale v = (W H)_ij (NaN).
      predictions[p * samples + s] =
          !model.amf ? PredictRating(wr, hr, model.shape, model.mu, model.lo, model.hi)
          : wr && hr ? static_cast<float>(AmfScale(wr, hr, model.shape.rank))
                     : std::numeric_limits<float>::quiet_NaN();
    }
  }
  return predictions;
}

// The mean, sd and central interval of a pair's values over the samples (quantiles of R's
// type 7).
std::vector<double> SampleSummary(const std::vector<double>& values, double level) {
  double sum = 0.0, sum_sq = 0.0;
  for (const double x : values) {
    sum += x;
    sum_sq += x * x;
  }
  const double count = static_cast<double>(values.size());
  const double mean = sum / count;
  const double variance = sum_sq / count - mean * mean;  // NaN where the values are (amf)
  const double sd = std::isnan(variance) ? variance : std::sqrt(std::max(0.0, variance));
  return {mean, sd, mcmc::Quantile(values, (1.0 - level) / 2),
          mcmc::Quantile(values, (1.0 + level) / 2)};
}

// What a new observation adds. mf: the sd and interval of a new rating (the noise 1/tau
// included); amf: the median and interval of a new entry's |X_ij| (amf_predictive.hpp).
std::vector<double> NewObservation(const SavedModel& model, const std::vector<double>& values,
                                   std::uint64_t pair, double level, double sd) {
  if (!model.amf)
    return {std::sqrt(sd * sd + model.noise_variance),
            MixtureQuantile(values, model.noise_variance, (1.0 - level) / 2),
            MixtureQuantile(values, model.noise_variance, (1.0 + level) / 2)};
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (std::isnan(values.front())) return {nan, nan, nan};
  AmfPredictiveDraws how = model.entry;
  how.draws_per_sample = (kAmfEntryDraws + values.size() - 1) / values.size();
  return AmfEntryQuantiles(values, pair, how, {0.5, (1.0 - level) / 2, (1.0 + level) / 2});
}

// The CSV lines of the pairs: the summary over the samples, then the new observation's.
std::string PredictionLines(const io::RatingsFile& pairs, const std::vector<float>& predictions,
                            const SavedModel& model, double level) {
  std::string csv;
  const std::size_t n = pairs.ratings.size();
  const std::size_t samples = n > 0 ? predictions.size() / n : 0;
  std::vector<double> values(samples);
  for (std::size_t p = 0; p < n; ++p) {
    for (std::size_t s = 0; s < samples; ++s) values[s] = predictions[p * samples + s];
    std::vector<double> line = SampleSummary(values, level);
    const std::vector<double> added = NewObservation(model, values, p, level, line[1]);
    line.insert(line.end(), added.begin(), added.end());
    csv += std::to_string(pairs.ratings[p].user) + ',' + std::to_string(pairs.ratings[p].item);
    for (const double v : line) {
      csv += ',';
      io::AppendCsvNumber(csv, v);
    }
    csv += '\n';
  }
  return csv;
}

// The run's ids of rows (users) or columns (items): its id map, or for amf's dense input the
// indices 0, 1, ... that name them.
io::IdMap RunIds(const std::string& run, const SavedModel& model, bool rows) {
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

}  // namespace

int RunPredictCommand(const std::vector<std::string>& args) {
  const PredictOptions o = Parse(args);
  const std::vector<std::string> runs = ChainDirectories(o.run);
  const SavedModel model = ReadPooledModel(runs);
  const io::IdMap users = RunIds(runs.front(), model, true);
  const io::IdMap items = RunIds(runs.front(), model, false);
  const io::RatingsFile pairs =
      io::ReadRatings(o.pairs, io::ParseRatingsFormat(o.format), io::RatingField::kOptional);
  const std::size_t n = pairs.ratings.size();
  std::vector<std::uint32_t> row(n), col(n);
  std::size_t cold = 0;
  for (std::size_t p = 0; p < n; ++p) {
    row[p] = users.Find(pairs.ratings[p].user).value_or(kUnknownId);
    col[p] = items.Find(pairs.ratings[p].item).value_or(kUnknownId);
    if (row[p] == kUnknownId || col[p] == kUnknownId) ++cold;
  }
  const std::size_t samples = model.iterations.size();
  std::string csv =
      io::CommentBlock({{"carousel", kVersion},
                        {"command", "carousel predict " + JoinArgs(args)},
                        {"run", o.run},
                        {"pairs", o.pairs},
                        {"chains", std::to_string(runs.size())},
                        {"samples", std::to_string(samples)},
                        {"level", io::FormatReal(o.level)},
                        {"cold_pairs", std::to_string(cold)},
                        {model.amf ? "alpha" : "noise_variance",
                         io::FormatReal(model.amf ? model.entry.alpha : model.noise_variance)}});
  csv += model.amf ? "row,col,mean,sd,lower,upper,median_entry,lower_entry,upper_entry\n"
                   : "user,item,mean,sd,lower,upper,sd_rating,lower_rating,upper_rating\n";
  csv += PredictionLines(pairs, SamplePredictions(model, row, col), model, o.level);
  io::WriteFileAtomically(o.out, csv);
  std::printf(
      "carousel predict: %zu pairs (%zu with a user or item the run never saw) from %zu samples "
      "of %zu chain(s) of %s; written to %s\n",
      n, cold, samples, runs.size(), o.run.c_str(), o.out.c_str());
  return 0;
}

}  // namespace carousel::cli
