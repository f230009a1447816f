#include "carousel/model/bpmf/mf_outputs.hpp"

#include <cmath>
#include <cstdio>

#include "carousel/io/atomic_file.hpp"
#include "carousel/io/npy.hpp"
#include "carousel/io/text_output.hpp"

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

void WritePredictions(const std::string& path, const std::string& comments, const LoadedMf& data,
                      const MfPosterior& posterior) {
  std::string out = comments;
  out += "user,item,rating,mean,sd\n";
  const auto& test = data.problem.test;
  for (std::size_t k = 0; k < test.size(); ++k) {
    out += std::to_string(data.test_user[k]) + ',' + std::to_string(data.test_item[k]) + ',';
    AppendCsvNumber(out, test[k].value);
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

}  // namespace carousel::io
