#include "carousel/analysis/saved_topic_runs.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <unordered_map>

#include "carousel/analysis/run_layout.hpp"
#include "carousel/io/corpus_reader.hpp"
#include "carousel/io/text_input.hpp"
#include "carousel/io/text_output.hpp"
#include "carousel/model/lda/lda_inference.hpp"
#include "carousel/util/error.hpp"

namespace carousel::analysis {
namespace {

// The value of the `# key: value` line of the comment block at the head of `path`.
std::optional<std::string> HeaderValue(const std::string& path, const std::string& key) {
  const std::string text = io::ReadWholeFile(path);
  const std::string prefix = "# " + key + ": ";
  for (std::size_t at = 0; at < text.size() && text[at] == '#';) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    if (text.compare(at, prefix.size(), prefix) == 0)
      return text.substr(at + prefix.size(), end - at - prefix.size());
    at = end + 1;
  }
  return std::nullopt;
}

SavedTopicRun ReadSavedTopicRun(const std::string& dir, double alpha, bool with_vocab) {
  namespace fs = std::filesystem;
  if (!fs::is_directory(dir))
    throw InputError(dir,
                     "not a directory; --run must be the --out directory of a finished "
                     "carousel lda run");
  const std::string topic_word = dir + "/topic_word.npy", trace = dir + "/trace.csv";
  if (!fs::exists(topic_word))
    throw InputError(topic_word,
                     "not found; --run must be the --out directory of a finished carousel lda "
                     "run (topic_word.npy is written when the run ends)");
  const io::NpyArray npy = io::ReadNpy(topic_word);
  if (npy.descr != "<f8" || npy.fortran_order || npy.shape.size() != 2 || npy.shape[0] == 0 ||
      npy.shape[0] > 65535 || npy.shape[1] == 0)
    throw InputError(topic_word,
                     "not a topic-word matrix: expected K x V float64 (<f8, C order, "
                     "1 <= K <= 65535), found " +
                         npy.descr + " of " + std::to_string(npy.shape.size()) + " dimensions");
  SavedTopicRun run;
  run.topics = npy.shape[0];
  run.words = npy.shape[1];
  std::vector<double> rows(run.topics * run.words);
  std::memcpy(rows.data(), npy.data.data(), rows.size() * sizeof(double));
  run.phi.resize(rows.size());
  for (std::size_t k = 0; k < run.topics; ++k) {
    double sum = 0.0;
    for (std::size_t w = 0; w < run.words; ++w) {
      const double p = rows[k * run.words + w];
      if (!(p >= 0.0) || !std::isfinite(p))
        throw InputError(topic_word, "topic " + std::to_string(k) + ", word " + std::to_string(w) +
                                         ": " + io::FormatReal(p) + " is not a probability");
      sum += p;
      run.phi[w * run.topics + k] = p;
    }
    if (std::fabs(sum - 1.0) > 1e-6)
      throw InputError(
          topic_word, "topic " + std::to_string(k) + " sums to " + io::FormatReal(sum) + ", not 1");
  }

  if (!fs::exists(trace))
    throw InputError(trace,
                     "not found; --run must be the --out directory of a finished "
                     "carousel lda run");
  const std::optional<std::string> topics = HeaderValue(trace, "topics");
  if (!topics || *topics != std::to_string(run.topics))
    throw InputError(trace, "its '# topics:' line (" + topics.value_or("none") +
                                ") does not match topic_word.npy's " + std::to_string(run.topics) +
                                " topics");
  if (alpha > 0.0) {
    run.alpha = alpha;
  } else {
    const std::optional<std::string> alpha = HeaderValue(trace, "alpha");
    char* end = nullptr;
    run.alpha = alpha ? std::strtod(alpha->c_str(), &end) : 0.0;
    if (!alpha || end == alpha->c_str() || *end != '\0' || !(run.alpha > 0.0) ||
        !std::isfinite(run.alpha))
      throw InputError(trace, "no valid '# alpha:' line in its header; give --alpha");
  }
  if (with_vocab) {
    const std::string vocab = dir + "/vocab.txt";
    if (!fs::exists(vocab))
      throw InputError(vocab,
                       "not found: the run was trained without --vocab, so its words have no "
                       "spelling to match; give the corpus in the run's word ids, without --vocab");
    run.vocab = io::ReadVocabulary(vocab);
    if (run.vocab.size() != run.words)
      throw InputError(vocab, "has " + std::to_string(run.vocab.size()) +
                                  " words, but topic_word.npy has " + std::to_string(run.words));
  }
  return run;
}

}  // namespace

std::vector<SavedTopicRun> ReadSavedTopicRuns(const std::string& run, double alpha,
                                              bool with_vocab) {
  std::vector<SavedTopicRun> chains;
  for (const std::string& dir : ChainDirectories(run)) {
    chains.push_back(ReadSavedTopicRun(dir, alpha, with_vocab));
    const SavedTopicRun& first = chains.front();
    if (chains.back().topics != first.topics || chains.back().words != first.words ||
        chains.back().vocab != first.vocab)
      throw InputError(dir + "/topic_word.npy",
                       "its topics (" + std::to_string(chains.back().topics) + " x " +
                           std::to_string(chains.back().words) +
                           ", and vocabulary) are not those of the run's first chain");
  }
  return chains;
}

std::vector<std::uint32_t> WordMap(const SavedTopicRun& run, const Corpus& corpus) {
  std::vector<std::uint32_t> map(corpus.vocabulary, kUnknownWord);
  if (run.vocab.empty()) {
    for (std::uint32_t w = 0; w < corpus.vocabulary && w < run.words; ++w) map[w] = w;
    return map;
  }
  std::unordered_map<std::string, std::uint32_t> known;
  for (std::uint32_t w = 0; w < run.vocab.size(); ++w) known.emplace(run.vocab[w], w);  // first
  for (std::uint32_t w = 0; w < corpus.vocab.size() && w < corpus.vocabulary; ++w) {
    const auto it = known.find(corpus.vocab[w]);
    if (it != known.end()) map[w] = it->second;
  }
  return map;
}

double PooledLogProbability(const std::vector<double>& per_chain) {
  if (per_chain.size() == 1) return per_chain[0];
  const double top = *std::max_element(per_chain.begin(), per_chain.end());
  if (!std::isfinite(top)) return top;
  double sum = 0.0;
  for (const double l : per_chain) sum += std::exp(l - top);
  return top + std::log(sum / static_cast<double>(per_chain.size()));
}

Completions InferDocuments(const std::vector<SavedTopicRun>& chains, const Corpus& corpus,
                           const std::vector<std::uint32_t>& map, int sweeps, std::uint64_t seed,
                           bool complete, io::NpyRowWriter& out) {
  const SavedTopicRun& run = chains.front();
  const std::size_t C = chains.size(), K = run.topics, D = corpus.documents;
  Completions done{std::vector<std::uint64_t>(D, 0), std::vector<std::uint64_t>(D, 0),
                   std::vector<std::vector<double>>(C, std::vector<double>(D, 0.0)), 0};
  std::vector<std::uint32_t> words;
  std::vector<double> rows;
  constexpr std::size_t kSliceDocuments = 4096;
  const std::vector<double> ones(K, 1.0);
  for (std::size_t chain = 0; chain < C; ++chain) {
    TopicWordView view;
    view.Assign(chains[chain].phi.data(), run.words, static_cast<int>(K), ones.data(), run.alpha);
    DocumentInference inference(view, sweeps, seed);
    for (std::uint32_t d = 0; d < D; ++d) {
      words.clear();
      for (std::uint64_t e = corpus.doc_start[d]; e < corpus.doc_start[d + 1]; ++e)
        if (map[corpus.word[e]] != kUnknownWord)
          words.insert(words.end(), corpus.count[e], map[corpus.word[e]]);
      if (words.empty() && chain == 0) ++done.without_known;
      rows.resize(rows.size() + K);
      inference.Infer(d, words, rows.data() + rows.size() - K);
      if (rows.size() == kSliceDocuments * K || d + 1 == D) {
        out.AppendRows(rows.data(), rows.size() / K);
        rows.clear();
      }
      if (!complete) continue;
      const DocumentInference::Completion c = inference.Complete(d, words);
      done.log_likelihood[chain][d] = c.log_likelihood;
      done.test_tokens[d] = c.test_tokens;
      done.tokens[d] = words.size();
    }
  }
  return done;
}

KnownTokens CountKnownTokens(const SavedTopicRun& run, const std::string& run_dir,
                             const Corpus& corpus, const std::string& corpus_path, bool vocab_given,
                             const std::vector<std::uint32_t>& map) {
  KnownTokens n;
  std::vector<char> unknown_word(corpus.vocabulary, 0);
  for (std::size_t e = 0; e < corpus.word.size(); ++e) {
    if (map[corpus.word[e]] != kUnknownWord) {
      n.known += corpus.count[e];
    } else {
      n.unknown += corpus.count[e];
      unknown_word[corpus.word[e]] = 1;
    }
  }
  n.unknown_words =
      static_cast<std::size_t>(std::count(unknown_word.begin(), unknown_word.end(), 1));
  n.vocabulary_name = run.vocab.empty() ? "the run's " + std::to_string(run.words) + " word ids"
                                        : "the run's vocabulary (" + run_dir + "/vocab.txt)";
  if (n.known == 0)
    throw InputError(
        corpus_path,
        "no word of its " + std::to_string(n.unknown) + " tokens is in " + n.vocabulary_name +
            (run.vocab.empty() && !vocab_given ? "; are its word ids the run's? (give --vocab to "
                                                 "match words by spelling)"
                                               : ""));
  return n;
}

double CompletionPerplexity::Of(double log_probability) const {
  return test_tokens > 0 ? std::exp(-log_probability / static_cast<double>(test_tokens))
                         : std::nan("");
}

CompletionPerplexity PooledPerplexity(const Completions& done, std::uint32_t documents,
                                      const std::string& comments, std::string& csv) {
  const std::size_t C = done.log_likelihood.size();
  csv = comments + "doc,tokens,test_tokens,perplexity\n";
  CompletionPerplexity p;
  p.chain_log_likelihood.assign(C, 0.0);
  std::vector<double> per_chain(C);
  for (std::uint32_t d = 0; d < documents; ++d) {
    for (std::size_t chain = 0; chain < C; ++chain) {
      per_chain[chain] = done.log_likelihood[chain][d];
      p.chain_log_likelihood[chain] += per_chain[chain];
    }
    const double pooled = PooledLogProbability(per_chain);
    p.log_likelihood += pooled;
    p.test_tokens += done.test_tokens[d];
    csv += std::to_string(d) + ',' + std::to_string(done.tokens[d]) + ',' +
           std::to_string(done.test_tokens[d]) + ',';
    io::AppendCsvNumber(csv, done.test_tokens[d] > 0
                                 ? std::exp(-pooled / static_cast<double>(done.test_tokens[d]))
                                 : std::nan(""));
    csv += '\n';
  }
  return p;
}

}  // namespace carousel::analysis
