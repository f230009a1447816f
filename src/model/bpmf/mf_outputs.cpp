#include "carousel/model/bpmf/mf_outputs.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <system_error>

#include "carousel/comm/collective.hpp"
#include "carousel/io/atomic_file.hpp"
#include "carousel/io/json.hpp"
#include "carousel/io/npy.hpp"
#include "carousel/io/run_model_json.hpp"
#include "carousel/io/text_output.hpp"
#include "carousel/util/error.hpp"

namespace carousel::io {
namespace {

// Columns [first, first + count) of `m`, row-major, as float64.
template <typename M>
std::vector<double> RowMajor(const M& m, int first, int count) {
  std::vector<double> values(static_cast<std::size_t>(m.rows()) * count);
  for (Eigen::Index r = 0; r < m.rows(); ++r)
    for (int c = 0; c < count; ++c)
      values[static_cast<std::size_t>(r) * count + c] = static_cast<double>(m(r, first + c));
  return values;
}

template <typename M>
void WriteColumns(const std::string& path, const M& m, int first, int count) {
  const std::vector<double> values = RowMajor(m, first, count);
  if (count == 1)
    WriteNpy(path, values.data(), {static_cast<std::size_t>(m.rows())});
  else
    WriteNpy(path, values.data(),
             {static_cast<std::size_t>(m.rows()), static_cast<std::size_t>(count)});
}

}  // namespace

void WriteTrace(const std::string& path, const std::string& comments,
                const std::vector<TraceRow>& rows) {
  std::string out = comments;
  out +=
      "iter,seconds,rmse_sample,rmse_mean,rmse_train,samples,tau,lambda_w,lambda_h,"
      "lambda_b,lambda_c\n";
  for (const TraceRow& r : rows) {
    out += std::to_string(r.iteration);
    for (double v :
         {r.seconds, r.rmse_sample, r.rmse_mean, r.rmse_train, static_cast<double>(r.samples),
          r.hyper.tau, r.hyper.lambda_w, r.hyper.lambda_h, r.hyper.lambda_b, r.hyper.lambda_c}) {
      out += ',';
      AppendCsvNumber(out, v);
    }
    out += '\n';
  }
  WriteFileAtomically(path, out);
}

void WritePredictions(const std::string& path, const std::string& comments,
                      const WholeTestSet& test, const MfPosterior& posterior) {
  std::string out = comments;
  out += "user,item,rating,mean,sd\n";
  out.reserve(out.size() + 64 * test.value.size());  // two ids, a rating and two 17-digit reals
  for (std::size_t k = 0; k < test.value.size(); ++k) {
    AppendCsvInteger(out, test.user[k]);
    out += ',';
    AppendCsvInteger(out, test.item[k]);
    out += ',';
    AppendCsvNumber(out, test.value[k]);
    out += ',';
    AppendCsvNumber(out, posterior.pred_mean[k]);
    out += ',';
    AppendCsvNumber(out, posterior.pred_sd[k]);
    out += '\n';
  }
  WriteFileAtomically(path, out);
}

void WriteItemArrays(const std::string& dir, const MfPosterior& p, int rank, bool bias,
                     const LoadedMf& data) {
  WriteColumns(dir + "/H_mean.npy", p.h_mean, 0, rank);
  WriteColumns(dir + "/H_var.npy", p.h_var, 0, rank);
  WriteColumns(dir + "/H_sample.npy", p.h_last, 0, rank);
  if (bias) {
    WriteColumns(dir + "/item_bias_mean.npy", p.h_mean, rank, 1);
    WriteColumns(dir + "/item_bias_var.npy", p.h_var, rank, 1);
  }
  const auto& users = data.users.externals();
  const auto& items = data.items.externals();
  WriteNpy(dir + "/user_ids.npy", users.data(), {users.size()});
  WriteNpy(dir + "/item_ids.npy", items.data(), {items.size()});
}

UserArrayWriter::UserArrayWriter(const std::string& dir, std::uint32_t users, int rank, bool bias)
    : rank_(rank),
      w_mean_(dir + "/W_mean.npy", users, static_cast<std::size_t>(rank)),
      w_var_(dir + "/W_var.npy", users, static_cast<std::size_t>(rank)),
      w_sample_(dir + "/W_sample.npy", users, static_cast<std::size_t>(rank)) {
  if (bias) {
    bias_mean_ = std::make_unique<NpyRowWriter>(dir + "/user_bias_mean.npy", users);
    bias_var_ = std::make_unique<NpyRowWriter>(dir + "/user_bias_var.npy", users);
  }
}

void UserArrayWriter::Write(const UserSlice& slice) {
  const auto rows = static_cast<std::size_t>(slice.mean.rows());
  w_mean_.AppendRows(RowMajor(slice.mean, 0, rank_).data(), rows);
  w_var_.AppendRows(RowMajor(slice.var, 0, rank_).data(), rows);
  w_sample_.AppendRows(RowMajor(slice.last, 0, rank_).data(), rows);
  if (bias_mean_) {
    bias_mean_->AppendRows(RowMajor(slice.mean, rank_, 1).data(), rows);
    bias_var_->AppendRows(RowMajor(slice.var, rank_, 1).data(), rows);
  }
}

void UserArrayWriter::Commit() {
  w_mean_.Commit();
  w_var_.Commit();
  w_sample_.Commit();
  if (bias_mean_) {
    bias_mean_->Commit();
    bias_var_->Commit();
  }
}

std::string SampleFile(const std::string& factor, std::size_t index) {
  return std::string(kSamplesDir) + "/" + factor + "-" + std::to_string(index) + ".npy";
}

std::optional<std::size_t> SampleFileIndex(const std::string& name) {
  const std::string suffix = ".npy";
  if (name.size() < 2 + 1 + suffix.size() || (name[0] != 'W' && name[0] != 'H') || name[1] != '-' ||
      name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
    return std::nullopt;
  const std::string digits = name.substr(2, name.size() - 2 - suffix.size());
  if (digits.size() > 18 || (digits.size() > 1 && digits[0] == '0')) return std::nullopt;
  std::size_t index = 0;
  for (const char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    index = index * 10 + static_cast<std::size_t>(c - '0');
  }
  return index;
}

SampleWriter::SampleWriter(std::string dir, std::uint32_t users, int width)
    : dir_(std::move(dir)), users_(users), width_(width) {}

void SampleWriter::Begin(std::size_t index, std::uint64_t, const Matrix& h) {
  WriteNpy(dir_ + "/" + SampleFile("H", index), h.data(),
           {static_cast<std::size_t>(h.rows()), static_cast<std::size_t>(h.cols())});
  w_ = std::make_unique<NpyRowWriter>(dir_ + "/" + SampleFile("W", index), users_,
                                      static_cast<std::size_t>(width_), NpyElement::kFloat32);
}

void SampleWriter::Users(std::uint32_t, const Matrix& rows) {
  w_->AppendRows(rows.data(), static_cast<std::size_t>(rows.rows()));
}

void SampleWriter::Finish() {
  w_->Commit();
  w_.reset();
}

void RemoveStaleSamples(const std::string& dir, std::size_t kept) {
  namespace fs = std::filesystem;
  const fs::path samples = fs::path(dir) / kSamplesDir;
  std::error_code ec;
  if (!fs::is_directory(samples, ec)) return;
  std::vector<fs::path> stale;
  for (fs::directory_iterator it(samples, ec), end; !ec && it != end; it.increment(ec)) {
    const std::optional<std::size_t> index = SampleFileIndex(it->path().filename().string());
    if (index && *index >= kept) stale.push_back(it->path());
  }
  if (ec) throw OutputError(samples.string(), "cannot list: " + ec.message());
  for (const fs::path& path : stale) {
    fs::remove(path, ec);
    if (ec) throw OutputError(path.string(), "cannot delete a stale sample: " + ec.message());
  }
  if (fs::is_empty(samples, ec)) fs::remove(samples, ec);
}

std::string SamplesJson(const std::vector<std::uint64_t>& iterations) {
  std::string out = "[";
  for (std::size_t n = 0; n < iterations.size(); ++n) {
    out += n == 0 ? "\n" : ",\n";
    out += "    {\"iteration\": " + std::to_string(iterations[n]) +
           ", \"W\": " + JsonString(SampleFile("W", n)) +
           ", \"H\": " + JsonString(SampleFile("H", n)) + "}";
  }
  return out + (iterations.empty() ? "]" : "\n  ]");
}

void WriteModelJson(const std::string& dir, const MfModelSummary& m) {
  std::string out = "{\n";
  const auto field = [&](const char* key, const std::string& value) {
    out += "  " + JsonString(key) + ": " + value + ",\n";
  };
  const auto count = [](std::uint64_t n) { return std::to_string(n); };
  ModelJsonHeader header;
  header.model = "mf";
  header.version = m.version;
  header.sampler = m.sampler;
  header.seed = m.seed;
  header.tiles = m.tiles;
  header.iterations = m.iterations;
  header.burn_in = m.burn_in;
  header.thin = m.thin;
  out += ModelJsonHeaderMembers(header);
  field("mu", JsonNumber(m.mu));
  field("clip", "{\"lo\": " + JsonNumber(m.lo) + ", \"hi\": " + JsonNumber(m.hi) + "}");
  field("rank", count(static_cast<std::uint64_t>(m.shape.rank)));
  field("bias", m.shape.bias ? "true" : "false");
  field("users", count(m.users));
  field("items", count(m.items));
  field("train_ratings", count(m.train_ratings));
  field("posterior_draws", count(m.posterior_draws));
  field("moments_every", count(m.moments_every));
  field("moment_draws", count(m.moment_draws));
  field("hyper_sampled", m.hyper_sampled ? "true" : "false");
  std::string hyper = "{\"tau\": " + JsonNumber(m.hyper_mean.tau) +
                      ", \"lambda_w\": " + JsonNumber(m.hyper_mean.lambda_w) +
                      ", \"lambda_h\": " + JsonNumber(m.hyper_mean.lambda_h);
  if (m.shape.bias)
    hyper += ", \"lambda_b\": " + JsonNumber(m.hyper_mean.lambda_b) +
             ", \"lambda_c\": " + JsonNumber(m.hyper_mean.lambda_c);
  field("hyper_mean", hyper + "}");
  field("sample_dtype", JsonString("float32"));
  field("sample_columns", count(static_cast<std::uint64_t>(m.shape.width())));
  field("samples", SamplesJson(m.sample_iterations));
  // The outputs by role, as every model's model.json lists them (io/run_model_json.hpp).
  std::vector<std::pair<std::string, std::string>> files = {
      {"W_mean", "W_mean.npy"},          {"W_var", "W_var.npy"},
      {"H_mean", "H_mean.npy"},          {"H_var", "H_var.npy"},
      {"W_sample", "W_sample.npy"},      {"H_sample", "H_sample.npy"},
      {"user_ids", "user_ids.npy"},      {"item_ids", "item_ids.npy"},
      {"predictions", "predictions.csv"}};
  if (m.shape.bias)
    files.insert(files.end(), {{"user_bias_mean", "user_bias_mean.npy"},
                               {"user_bias_var", "user_bias_var.npy"},
                               {"item_bias_mean", "item_bias_mean.npy"},
                               {"item_bias_var", "item_bias_var.npy"}});
  out += "  \"files\": {";
  for (std::size_t n = 0; n < files.size(); ++n)
    out += (n == 0 ? "\n    " : ",\n    ") + JsonString(files[n].first) + ": " +
           JsonString(files[n].second);
  out += "\n  }\n}\n";
  WriteFileAtomically(dir + "/" + kModelJsonFile, out);
}

std::unique_ptr<SampleWriter> StartSampleWriter(Communicator& comm, const std::string& out,
                                                std::uint64_t keep, std::uint32_t rows, int width) {
  std::unique_ptr<SampleWriter> writer;
  if (keep == 0) return writer;
  RunCollectively(comm, [&] {
    if (comm.rank() != 0) return;
    EnsureDirectory(out + "/" + kSamplesDir);
    writer = std::make_unique<SampleWriter>(out, rows, width);
  });
  return writer;
}

namespace {

MfModelSummary SummaryOfRun(const MfConfig& c, const LoadedMf& data, const BpmfModel& model,
                            const MfPosterior& posterior, const std::string& version) {
  MfModelSummary m;
  m.version = version;
  m.sampler = c.sampler.name;
  m.seed = c.chain.seed;
  m.tiles = c.chain.tiles;
  const ChainOptions chain = c.chain.Resolved();
  m.iterations = chain.iterations;
  m.burn_in = chain.burn_in;
  m.thin = chain.thin;
  m.posterior_draws = posterior.samples;
  m.moments_every = c.moments_every;
  m.moment_draws = posterior.moment_draws;
  m.mu = data.problem.mu;
  m.lo = data.problem.lo;
  m.hi = data.problem.hi;
  m.shape = c.shape;
  m.users = data.problem.rows;
  m.items = data.problem.cols;
  m.train_ratings = data.problem.train_count;
  m.hyper_sampled = c.priors.sample_hyper;
  m.hyper_mean = model.HyperPosteriorMean();
  m.sample_iterations = model.samples_taken();
  return m;
}

}  // namespace

MfRunResult WriteMfRunOutputs(Communicator& comm, const std::string& out,
                              const std::string& comments, const MfConfig& config,
                              const LoadedMf& data, BpmfModel& model, const std::string& version) {
  MfRunResult result{model.Posterior(), {}};
  std::unique_ptr<UserArrayWriter> user_arrays;
  if (comm.rank() == 0)
    user_arrays = std::make_unique<UserArrayWriter>(out, data.problem.rows, config.shape.rank,
                                                    config.shape.bias);
  model.ForEachUserSlice([&](const UserSlice& slice) { user_arrays->Write(slice); });
  result.test = GatherTestSet(comm, data);
  if (comm.rank() != 0) return result;
  DirectorySyncBatch outputs;
  WritePredictions(out + "/predictions.csv", comments, result.test, result.posterior);
  user_arrays->Commit();
  WriteItemArrays(out, result.posterior, config.shape.rank, config.shape.bias, data);
  RemoveStaleSamples(out, model.samples_taken().size());
  WriteModelJson(out, SummaryOfRun(config, data, model, result.posterior, version));
  outputs.Finish();
  return result;
}

}  // namespace carousel::io
