#include "carousel/model/lda/lda_outputs.hpp"

#include <algorithm>
#include <cstdio>
#include <numeric>

#include "carousel/comm/collective.hpp"
#include "carousel/io/atomic_file.hpp"
#include "carousel/model/lda/lda_options.hpp"

namespace carousel::io {

void WriteLdaTrace(const std::string& path, const std::string& comments,
                   const std::vector<LdaTraceRow>& rows) {
  std::string out = comments + "iter,seconds,perplexity,perplexity_sample,samples\n";
  for (const LdaTraceRow& r : rows) {
    out += std::to_string(r.iteration);
    for (double v : {r.seconds, r.perplexity, r.perplexity_sample}) {
      out += ',';
      AppendCsvNumber(out, v);
    }
    out += ',' + std::to_string(r.samples) + '\n';
  }
  WriteFileAtomically(path, out);
}

std::string TopWordsLines(const std::vector<double>& rows, std::size_t first, std::size_t count,
                          const std::vector<std::string>& vocab, std::size_t top,
                          const std::string& label) {
  const std::size_t V = count > 0 ? rows.size() / count : 0;
  const std::size_t shown = std::min(top, V);
  std::string out;
  std::vector<std::uint32_t> order(V);
  for (std::size_t c = 0; c < count; ++c) {
    const double* row = rows.data() + c * V;
    std::iota(order.begin(), order.end(), 0u);
    // Ties go to the smaller word id, so the file does not depend on the sort.
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(shown),
                      order.end(), [row](std::uint32_t a, std::uint32_t b) {
                        return row[a] != row[b] ? row[a] > row[b] : a < b;
                      });
    out += label + " " + std::to_string(first + c) + ":";
    for (std::size_t i = 0; i < shown; ++i) {
      const std::uint32_t w = order[i];
      char probability[32];
      std::snprintf(probability, sizeof probability, " (%.4f)", row[w]);
      out += ' ' + (w < vocab.size() ? vocab[w] : std::to_string(w)) + probability;
    }
    out += '\n';
  }
  return out;
}

void WriteHeldOut(const std::string& path, const std::string& comments,
                  const std::vector<std::uint32_t>& documents) {
  std::string out = comments;
  for (std::uint32_t d : documents) out += std::to_string(d) + '\n';
  WriteFileAtomically(path, out);
}

void WriteVocabulary(const std::string& path, const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) out += w + '\n';
  WriteFileAtomically(path, out);
}

LdaMeanFiles StreamLdaMeans(Communicator& comm, const std::string& out, const std::string& comments,
                            const Corpus& corpus, int topics, LdaModel& model) {
  LdaMeanFiles files;
  files.top_words = comments;
  RunCollectively(comm, [&] {
    if (comm.rank() == 0)
      files.topic_word = std::make_unique<NpyRowWriter>(
          out + "/topic_word.npy", static_cast<std::size_t>(topics), corpus.vocabulary);
  });
  model.StreamTopicWordMean(
      [&](std::size_t first, std::size_t count, const std::vector<double>& rows) {
        files.topic_word->AppendRows(rows.data(), count);
        files.top_words += TopWordsLines(rows, first, count, corpus.vocab);
      });
  RunCollectively(comm, [&] {
    if (comm.rank() == 0)
      files.doc_topic = std::make_unique<NpyRowWriter>(out + "/doc_topic.npy", corpus.documents,
                                                       static_cast<std::size_t>(topics));
  });
  model.StreamDocumentTopicMean(
      [&](std::size_t, std::size_t count, const std::vector<double>& rows) {
        files.doc_topic->AppendRows(rows.data(), count);
      });
  return files;
}

void WriteLdaRunOutputs(Communicator& comm, const std::string& out, const std::string& comments,
                        const LdaConfig& config, const Corpus& corpus, LdaModel& model,
                        RunModelJson description) {
  LdaMeanFiles means = StreamLdaMeans(comm, out, comments, corpus, config.topics, model);
  const std::vector<std::uint32_t> held_out = model.HeldOutDocuments();
  if (comm.rank() != 0) return;
  WriteLdaTrace(out + "/trace.csv", comments, model.trace());
  means.topic_word->Commit();
  means.doc_topic->Commit();
  if (!corpus.vocab.empty()) WriteVocabulary(out + "/vocab.txt", corpus.vocab);
  WriteFileAtomically(out + "/topics.txt", means.top_words);
  WriteHeldOut(out + "/heldout.txt", comments, held_out);
  DescribeLdaRun(config, corpus, model.samples(), description);
  WriteRunModelJson(out, description);
}

}  // namespace carousel::io
