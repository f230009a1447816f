#include "carousel/model/dpmix/dpmix_outputs.hpp"

#include <algorithm>
#include <cstdio>

#include "carousel/comm/collective.hpp"
#include "carousel/io/atomic_file.hpp"
#include "carousel/io/npy.hpp"
#include "carousel/io/text_output.hpp"
#include "carousel/model/dpmix/dpmix_options.hpp"
#include "carousel/model/lda/lda_outputs.hpp"

namespace carousel::io {
namespace {

// components.txt: a line per component of components.npy (rows of the mean weight, then the
// mean omega over the categories): "component k (weight w): category (probability) ...",
// its 20 most probable categories named.
std::string ComponentLines(const std::vector<double>& means, std::size_t components,
                           const std::vector<std::string>& vocab) {
  const std::size_t cols = means.size() / std::max<std::size_t>(components, 1);
  std::string text;
  for (std::size_t k = 0; k < components; ++k) {
    const std::vector<double> omega(means.begin() + static_cast<std::ptrdiff_t>(k * cols + 1),
                                    means.begin() + static_cast<std::ptrdiff_t>((k + 1) * cols));
    std::string line = TopWordsLines(omega, k, 1, vocab, 20, "component");
    char weight[48];
    std::snprintf(weight, sizeof weight, " (weight %.4f)", means[k * cols]);
    line.insert(line.find(':'), weight);
    text += line;
  }
  return text;
}

}  // namespace

void WriteDpmixTrace(const std::string& path, const std::string& comments,
                     const std::vector<DpmixTraceRow>& rows) {
  std::string out = comments + "iter,seconds,log_pred,log_pred_sample,occupied,alpha,samples\n";
  for (const DpmixTraceRow& r : rows) {
    out += std::to_string(r.iteration);
    for (double v : {r.seconds, r.log_pred, r.log_pred_sample}) {
      out += ',';
      AppendCsvNumber(out, v);
    }
    out += ',' + std::to_string(r.occupied) + ',';
    AppendCsvNumber(out, r.alpha);
    out += ',' + std::to_string(r.samples) + '\n';
  }
  WriteFileAtomically(path, out);
}

DrawsTable DpmixDraws(const std::vector<DpmixTraceRow>& trace) {
  DrawsTable table({"log_pred_sample", "occupied", "alpha"});
  ForEachKeptRow(trace, [&](const DpmixTraceRow& row) {
    table.Add({row.log_pred_sample, static_cast<double>(row.occupied), row.alpha});
  });
  return table;
}

void WriteDpmixComponents(const std::string& out, const std::string& comments,
                          const std::vector<double>& means, std::size_t components,
                          std::size_t categories, const std::vector<DpmixCluster>& clusters,
                          const std::vector<std::string>& vocab) {
  WriteNpy(out + "/components.npy", means.data(), {components, 1 + categories});
  std::string text = comments + "observation,component,share,held_out\n";
  for (const DpmixCluster& c : clusters) {
    text += std::to_string(c.observation) + ',' + std::to_string(c.component) + ',';
    AppendCsvNumber(text, c.share);
    text += c.held_out ? ",1\n" : ",0\n";
  }
  WriteFileAtomically(out + "/clusters.csv", text);
  if (!vocab.empty())
    WriteFileAtomically(out + "/components.txt",
                        comments + ComponentLines(means, components, vocab));
}

void WriteDpmixRunOutputs(Communicator& comm, const std::string& out, const std::string& comments,
                          const DpmixConfig& config, const Corpus& corpus, DpmixModel& model,
                          RunModelJson description) {
  const std::vector<double> means = model.ComponentMeans();
  const std::vector<DpmixCluster> clusters = model.Clusters();
  RunCollectively(comm, [&] {
    if (comm.rank() != 0) return;
    const std::size_t K = model.occupied();
    WriteDpmixComponents(out, comments, means, K, corpus.vocabulary, clusters, corpus.vocab);
    DescribeDpmixRun(config, corpus.vocabulary, K, !corpus.vocab.empty(), description);
    WriteRunModelJson(out, description);
  });
}

}  // namespace carousel::io
