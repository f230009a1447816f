#include "carousel/model/sam/sam_outputs.hpp"

#include <algorithm>

#include "carousel/comm/collective.hpp"
#include "carousel/io/atomic_file.hpp"
#include "carousel/io/npy.hpp"
#include "carousel/io/text_output.hpp"
#include "carousel/model/lda/lda_outputs.hpp"
#include "carousel/model/sam/sam_options.hpp"

namespace carousel::io {

void WriteSamTrace(const std::string& path, const std::string& comments,
                   const std::vector<SamTraceRow>& rows) {
  std::string out = comments +
                    "iter,seconds,log_perplexity,log_perplexity_sample,log_perplexity_se,samples,"
                    "theta_acceptance,theta_step,thermostat\n";
  for (const SamTraceRow& r : rows) {
    out += std::to_string(r.iteration);
    for (double v : {r.seconds, r.log_perplexity, r.log_perplexity_sample, r.log_perplexity_se}) {
      out += ',';
      AppendCsvNumber(out, v);
    }
    out += ',' + std::to_string(r.samples);
    for (double v : {r.theta_acceptance, r.theta_step, r.thermostat}) {
      out += ',';
      AppendCsvNumber(out, v);
    }
    out += '\n';
  }
  WriteFileAtomically(path, out);
}

void WriteSamTopics(const std::string& out, const std::string& comments,
                    const std::vector<double>& directions, std::size_t topics,
                    const TfIdfCorpus& corpus, const std::vector<std::string>& vocab) {
  const std::vector<std::uint32_t>& kept = corpus.vocabulary;
  const std::size_t V = kept.size();
  WriteNpy(out + "/topic_vectors.npy", directions.data(), {topics, V});
  WriteNpy(out + "/idf.npy", corpus.idf.data(), {V});
  std::vector<std::string> names(V);
  for (std::size_t w = 0; w < V; ++w)
    names[w] = kept[w] < vocab.size() ? vocab[kept[w]] : std::to_string(kept[w] + 1);
  WriteVocabulary(out + "/words.txt", names);
  WriteFileAtomically(out + "/topics.txt", comments + TopWordsLines(directions, 0, topics, names));
}

void WriteSamRunOutputs(Communicator& comm, const std::string& out, const std::string& comments,
                        const SamConfig& config, const TfIdfCorpus& corpus,
                        const std::vector<std::string>& vocab,
                        const std::vector<std::uint32_t>& held_out, SamModel& model,
                        RunModelJson description) {
  const std::vector<double> directions = model.TopicMeanDirections();
  RunCollectively(comm, [&] {
    if (comm.rank() != 0) return;
    WriteSamTopics(out, comments, directions, static_cast<std::size_t>(config.topics), corpus,
                   vocab);
    std::vector<std::uint32_t> sorted = held_out;
    std::sort(sorted.begin(), sorted.end());
    WriteHeldOut(out + "/heldout.txt", comments, sorted);
    DescribeSamRun(config, corpus.vocabulary.size(), model.trace().back().theta_step, description);
    WriteRunModelJson(out, description);
  });
}

}  // namespace carousel::io
