#include "carousel/model/amf/amf_outputs.hpp"

#include <sstream>

#include "carousel/comm/collective.hpp"
#include "carousel/io/atomic_file.hpp"
#include "carousel/io/npy.hpp"
#include "carousel/io/text_output.hpp"
#include "carousel/model/amf/amf_options.hpp"
#include "carousel/model/bpmf/mf_outputs.hpp"

namespace carousel::io {
namespace {

// Row-major doubles for WriteNpy (Eigen's default is column-major).
void WriteMatrixNpy(const std::string& path, const Eigen::MatrixXd& m) {
  const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> r = m;
  WriteNpy(path, r.data(),
           {static_cast<std::size_t>(r.rows()), static_cast<std::size_t>(r.cols())});
}

}  // namespace

void WriteAmfTrace(const std::string& path, const std::string& comments,
                   const std::vector<AmfTraceRow>& trace) {
  std::ostringstream s;
  s << comments << "iter,seconds,log_likelihood,phi_acceptance,samples\n";
  for (const AmfTraceRow& r : trace)
    s << r.iteration << ',' << FormatReal(r.seconds) << ',' << FormatReal(r.log_likelihood) << ','
      << FormatReal(r.acceptance) << ',' << r.samples << '\n';
  WriteFileAtomically(path, s.str());
}

DrawsTable AmfDraws(const std::vector<AmfTraceRow>& trace) {
  DrawsTable table({"log_lik", "phi_acceptance"});
  ForEachKeptRow(trace, [&](const AmfTraceRow& row) {
    table.Add({row.log_likelihood, row.acceptance});
  });
  return table;
}

std::vector<std::pair<std::string, std::string>> WriteAmfArrays(const std::string& out,
                                                                const AmfMoments& moments,
                                                                const IdMap* rows,
                                                                const IdMap* cols) {
  WriteMatrixNpy(out + "/W_mean.npy", moments.w_mean);
  // H is K x columns in the model (V = W H); written columns x K, as mf's items x K.
  WriteMatrixNpy(out + "/H_mean.npy", moments.h_mean.transpose());
  WriteMatrixNpy(out + "/W_var.npy", moments.w_var);
  WriteMatrixNpy(out + "/H_var.npy", moments.h_var.transpose());
  std::vector<std::pair<std::string, std::string>> files = {{"W_mean", "W_mean.npy"},
                                                            {"H_mean", "H_mean.npy"},
                                                            {"W_var", "W_var.npy"},
                                                            {"H_var", "H_var.npy"}};
  if (moments.reconstruction.size() > 0) {
    WriteMatrixNpy(out + "/reconstruction.npy", moments.reconstruction);
    files.push_back({"reconstruction", "reconstruction.npy"});
  }
  if (rows && cols) {  // row i of W_mean.npy is row_ids[i]
    WriteNpy(out + "/row_ids.npy", rows->externals().data(), {rows->externals().size()});
    WriteNpy(out + "/col_ids.npy", cols->externals().data(), {cols->externals().size()});
    files.push_back({"row_ids", "row_ids.npy"});
    files.push_back({"col_ids", "col_ids.npy"});
  }
  return files;
}

void WriteAmfRunOutputs(Communicator& comm, const std::string& out, const AmfConfig& config,
                        const LoadedMf& data, bool dense, AmfModel& model,
                        RunModelJson description) {
  AmfMoments moments;
  model.PosteriorMeans(moments.w_mean, moments.h_mean);
  model.PosteriorVariances(moments.w_var, moments.h_var);
  if (config.reconstruct) model.Reconstruction(moments.reconstruction);
  RunCollectively(comm, [&] {
    if (comm.rank() != 0) return;
    DescribeAmfRun(config, data.problem, dense, model, description);
    description.files =
        WriteAmfArrays(out, moments, dense ? nullptr : &data.users, dense ? nullptr : &data.items);
    RemoveStaleSamples(out, model.samples_taken().size());
    WriteRunModelJson(out, description);
  });
}

}  // namespace carousel::io
