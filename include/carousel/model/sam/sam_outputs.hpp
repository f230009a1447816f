// The files `carousel sam` leaves in --out, each written atomically, text files starting with
// the run's configuration as '#' comment lines:
//   trace.csv          iter,seconds,log_perplexity,log_perplexity_sample,log_perplexity_se,
//                      samples,theta_acceptance,theta_step,thermostat per evaluation
//   topic_vectors.npy  the posterior mean direction of every topic, K x V float64 (row k:
//                      topic k over the kept words, in the order of words.txt)
//   topics.txt         the 20 words of largest weight in every topic's mean direction
//   words.txt          the kept vocabulary, line i = column i of topic_vectors.npy: the
//                      --vocab word, or the word's 1-based id in the corpus without --vocab
//   idf.npy            each kept word's idf, V float64, for the tf-idf of new documents
//   heldout.txt        the held-out document ids (0-based, file order)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "carousel/comm/communicator.hpp"
#include "carousel/io/run_model_json.hpp"
#include "carousel/model/sam/sam_config.hpp"
#include "carousel/model/sam/sam_model.hpp"
#include "carousel/model/sam/tfidf.hpp"

namespace carousel::io {

void WriteSamTrace(const std::string& path, const std::string& comments,
                   const std::vector<SamTraceRow>& rows);

// topic_vectors.npy, words.txt, idf.npy and topics.txt from the topics' mean `directions`
// (K x V, SamModel::TopicMeanDirections) over the `kept` words of the tf-idf `corpus`
// (TfIdfCorpus::vocabulary, corpus ids) named by `vocab` (empty: by 1-based id).
void WriteSamTopics(const std::string& out, const std::string& comments,
                    const std::vector<double>& directions, std::size_t topics,
                    const TfIdfCorpus& corpus, const std::vector<std::string>& vocab);

// The outputs of a finished run, collective: the topics' mean directions gathered, and on
// rank 0 WriteSamTopics' files, heldout.txt (the `held_out` document ids, sorted) and
// model.json (`description`, with sam's members added).
void WriteSamRunOutputs(Communicator& comm, const std::string& out, const std::string& comments,
                        const SamConfig& config, const TfIdfCorpus& corpus,
                        const std::vector<std::string>& vocab,
                        const std::vector<std::uint32_t>& held_out, SamModel& model,
                        RunModelJson description);

}  // namespace carousel::io
