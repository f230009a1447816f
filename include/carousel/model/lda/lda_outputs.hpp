// The files `carousel lda` leaves in --out, each written atomically, text files starting
// with the run's configuration as '#' comment lines:
//   trace.csv        iter,seconds,perplexity,perplexity_sample,samples per evaluation
//   topic_word.npy   posterior mean of phi, K x V float64 (row k: topic k over the words),
//                    written in slices of topics (io::NpyRowWriter)
//   topics.txt       the 20 most probable words of every topic under that mean
//   heldout.txt      the held-out document ids (0-based, file order), one per line
//   doc_topic.npy    posterior mean of every document's topic proportions, D x K float64
//                    (row d: document d of the corpus), written in slices of documents
//   vocab.txt        the --vocab words, line i = word i = column i of topic_word.npy (only
//                    with --vocab), so that `carousel lda infer` can match words by spelling
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "carousel/comm/communicator.hpp"
#include "carousel/data/corpus.hpp"
#include "carousel/io/npy.hpp"
#include "carousel/io/run_model_json.hpp"
#include "carousel/io/text_output.hpp"
#include "carousel/model/lda/lda_config.hpp"
#include "carousel/model/lda/lda_model.hpp"

namespace carousel::io {

void WriteLdaTrace(const std::string& path, const std::string& comments,
                   const std::vector<LdaTraceRow>& rows);

// topics.txt lines for topics first .. first + count - 1, whose phi rows (V words each)
// are `rows`: "topic <k>: word (probability) word (probability) ...", the `top` most
// probable words. Words are named from `vocab` when it is not empty, else by id. `label`
// names the rows ("topic"; dpmix's components.txt: "component").
std::string TopWordsLines(const std::vector<double>& rows, std::size_t first, std::size_t count,
                          const std::vector<std::string>& vocab, std::size_t top = 20,
                          const std::string& label = "topic");

void WriteHeldOut(const std::string& path, const std::string& comments,
                  const std::vector<std::uint32_t>& documents);

// One word per line, as io::ReadVocabulary reads it back.
void WriteVocabulary(const std::string& path, const std::vector<std::string>& words);

// topic_word.npy and topics.txt (after `comments`), and doc_topic.npy, streamed from the
// model a slice at a time (collective); rank 0 holds the writers and commits them with the
// run's other outputs.
struct LdaMeanFiles {
  std::unique_ptr<NpyRowWriter> topic_word, doc_topic;  // rank 0
  std::string top_words;                                // topics.txt
};
LdaMeanFiles StreamLdaMeans(Communicator& comm, const std::string& out, const std::string& comments,
                            const Corpus& corpus, int topics, LdaModel& model);

// The outputs of a finished run, collective: the posterior means streamed to rank 0, and there
// trace.csv, topic_word.npy, doc_topic.npy, vocab.txt (with --vocab), topics.txt,
// heldout.txt and model.json (`description`, with lda's members added), each atomically.
void WriteLdaRunOutputs(Communicator& comm, const std::string& out, const std::string& comments,
                        const LdaConfig& config, const Corpus& corpus, LdaModel& model,
                        RunModelJson description);

}  // namespace carousel::io
