// `carousel lda infer`: the topic proportions of new documents given a finished
// `carousel lda` run's posterior-mean topics (its topic_word.npy), held fixed.
//
// Each document's topics are drawn by the model's own per-document collapsed Gibbs sampler
// (DocumentInference over DocumentGibbs, model/lda/lda_inference.hpp), the one that
// evaluates held-out documents, with alpha as the run had it. One process: the topics of
// the whole vocabulary (K x V) are read whole, and documents are independent.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <unordered_map>

#include "carousel/cli/command_support.hpp"
#include "carousel/cli/commands.hpp"
#include "carousel/comm/collective.hpp"
#include "carousel/io/atomic_file.hpp"
#include "carousel/io/corpus_reader.hpp"
#include "carousel/io/npy.hpp"
#include "carousel/io/text_input.hpp"
#include "carousel/io/text_output.hpp"
#include "carousel/model/lda/lda_inference.hpp"
#include "carousel/util/error.hpp"
#include "carousel/version.hpp"

namespace carousel::cli {
namespace {

struct InferOptions {
  std::string run, corpus, vocab;
  std::string format = "auto";
  std::string out = "inferred_doc_topic.npy";
  std::string perplexity;  // per-document CSV; empty: none
  int sweeps = 50;
  std::uint64_t seed = 1;
  double alpha = 0.0;  // 0: the run's
};

InferOptions Parse(const std::vector<std::string>& args) {
  InferOptions o;
  CLI::App app{
      "carousel lda infer: topic proportions of new documents given a finished carousel lda "
      "run (one process)",
      "carousel lda infer"};
  SetUpCommandApp(app);
  app.add_option("--run", o.run, "the --out directory of a finished carousel lda run")
      ->required()
      ->check(NonEmpty());
  app.add_option("--corpus", o.corpus, "new documents (UCI docword or LDA-C), the run's word ids")
      ->required()
      ->check(NonEmpty());
  app.add_option("--vocab", o.vocab,
                 "vocabulary of --corpus, one word per line: its words are matched by spelling "
                 "to the run's vocab.txt (without it, word ids are the run's)");
  app.add_option("--corpus-format", o.format, "auto|uci|ldac");
  app.add_option("--out", o.out, "topic proportions, D x K float64 .npy")->check(NonEmpty());
  app.add_option("--perplexity", o.perplexity,
                 "also write each document's document-completion perplexity (CSV)");
  app.add_option("--sweeps", o.sweeps,
                 "Gibbs sweeps per document; theta is averaged over the second half")
      ->check(Within(2, 100000));
  app.add_option("--seed", o.seed, "seed of the topic draws")->check(NonNegative());
  app.add_option("--alpha", o.alpha, "document-topic Dirichlet parameter")
      ->check(Positive())
      ->default_str("the run's");
  ParseOrThrow(app, args, "carousel lda infer");
  io::ParseCorpusFormat(o.format);
  return o;
}

// What inference needs of the run: its topics, word-major, and its alpha and vocabulary.
struct FinishedRun {
  std::size_t topics = 0, words = 0;
  std::vector<double> phi;  // words x topics
  double alpha = 0.0;
  std::vector<std::string> vocab;  // empty: the run had no --vocab
};

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

FinishedRun ReadRun(const InferOptions& o) {
  namespace fs = std::filesystem;
  if (!fs::is_directory(o.run))
    throw InputError(o.run,
                     "not a directory; --run must be the --out directory of a finished "
                     "carousel lda run");
  const std::string topic_word = o.run + "/topic_word.npy", trace = o.run + "/trace.csv";
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
  FinishedRun run;
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
  if (o.alpha > 0.0) {
    run.alpha = o.alpha;
  } else {
    const std::optional<std::string> alpha = HeaderValue(trace, "alpha");
    char* end = nullptr;
    run.alpha = alpha ? std::strtod(alpha->c_str(), &end) : 0.0;
    if (!alpha || end == alpha->c_str() || *end != '\0' || !(run.alpha > 0.0) ||
        !std::isfinite(run.alpha))
      throw InputError(trace, "no valid '# alpha:' line in its header; give --alpha");
  }
  if (!o.vocab.empty()) {
    const std::string vocab = o.run + "/vocab.txt";
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

constexpr std::uint32_t kUnknownWord = ~std::uint32_t{0};

// The run's word id of each word id of the corpus, or kUnknownWord.
std::vector<std::uint32_t> WordMap(const FinishedRun& run, const Corpus& corpus) {
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

}  // namespace

int RunLdaInferCommand(Communicator& comm, const std::vector<std::string>& args) {
  InferOptions o;
  RunCollectively(comm, [&] {
    o = Parse(args);
    if (comm.size() > 1)
      throw Error(ExitCode::kUsage, "carousel lda infer runs on one process, not " +
                                        std::to_string(comm.size()) +
                                        ": start it without mpirun (or with -np 1)");
  });
  const FinishedRun run = ReadRun(o);
  const Corpus corpus = io::ReadCorpus(o.corpus, o.vocab, io::ParseCorpusFormat(o.format));
  const std::vector<std::uint32_t> map = WordMap(run, corpus);

  // Every document's tokens in file order, in the run's word ids; unknown words dropped.
  std::uint64_t known_tokens = 0, unknown_tokens = 0;
  std::vector<char> unknown_word(corpus.vocabulary, 0);
  for (std::size_t e = 0; e < corpus.word.size(); ++e) {
    if (map[corpus.word[e]] != kUnknownWord) {
      known_tokens += corpus.count[e];
    } else {
      unknown_tokens += corpus.count[e];
      unknown_word[corpus.word[e]] = 1;
    }
  }
  const std::size_t unknown_words =
      static_cast<std::size_t>(std::count(unknown_word.begin(), unknown_word.end(), 1));
  const std::string vocabulary_name = run.vocab.empty()
                                          ? "the run's " + std::to_string(run.words) + " word ids"
                                          : "the run's vocabulary (" + o.run + "/vocab.txt)";
  if (known_tokens == 0)
    throw InputError(o.corpus, "no word of its " + std::to_string(unknown_tokens) +
                                   " tokens is in " + vocabulary_name +
                                   (run.vocab.empty() && o.vocab.empty()
                                        ? "; are its word ids the run's? (give --vocab to match "
                                          "words by spelling)"
                                        : ""));

  TopicWordView view;
  const std::vector<double> ones(run.topics, 1.0);
  view.Assign(run.phi.data(), run.words, static_cast<int>(run.topics), ones.data(), run.alpha);
  DocumentInference inference(view, o.sweeps, o.seed);

  const std::size_t K = run.topics;
  io::NpyRowWriter out(o.out, corpus.documents, K);
  std::string perplexity_csv;
  if (!o.perplexity.empty()) {
    perplexity_csv = io::CommentBlock({{"carousel", kVersion},
                                       {"command", "carousel lda infer " + JoinArgs(args)},
                                       {"run", o.run},
                                       {"corpus", corpus.path},
                                       {"topics", std::to_string(K)},
                                       {"alpha", io::FormatReal(run.alpha)},
                                       {"sweeps", std::to_string(o.sweeps)},
                                       {"seed", std::to_string(o.seed)}});
    perplexity_csv += "doc,tokens,test_tokens,perplexity\n";
  }
  std::vector<std::uint32_t> words;
  std::vector<double> rows;
  std::uint64_t without_known = 0, test_tokens = 0;
  double log_likelihood = 0.0;
  constexpr std::size_t kSliceDocuments = 4096;
  for (std::uint32_t d = 0; d < corpus.documents; ++d) {
    words.clear();
    for (std::uint64_t e = corpus.doc_start[d]; e < corpus.doc_start[d + 1]; ++e)
      if (map[corpus.word[e]] != kUnknownWord)
        words.insert(words.end(), corpus.count[e], map[corpus.word[e]]);
    if (words.empty()) ++without_known;
    rows.resize(rows.size() + K);
    inference.Infer(d, words, rows.data() + rows.size() - K);
    if (rows.size() == kSliceDocuments * K || d + 1 == corpus.documents) {
      out.AppendRows(rows.data(), rows.size() / K);
      rows.clear();
    }
    if (o.perplexity.empty()) continue;
    const DocumentInference::Completion c = inference.Complete(d, words);
    log_likelihood += c.log_likelihood;
    test_tokens += c.test_tokens;
    perplexity_csv += std::to_string(d) + ',' + std::to_string(words.size()) + ',' +
                      std::to_string(c.test_tokens) + ',';
    io::AppendCsvNumber(perplexity_csv,
                        c.test_tokens > 0
                            ? std::exp(-c.log_likelihood / static_cast<double>(c.test_tokens))
                            : std::nan(""));
    perplexity_csv += '\n';
  }
  out.Commit();
  if (!o.perplexity.empty()) io::WriteFileAtomically(o.perplexity, perplexity_csv);

  std::printf(
      "carousel lda infer: %u documents, %llu tokens, %zu topics of %s; theta written to "
      "%s\n",
      corpus.documents, static_cast<unsigned long long>(known_tokens + unknown_tokens), K,
      o.run.c_str(), o.out.c_str());
  if (unknown_tokens > 0)
    std::printf("  %llu tokens of %zu distinct words outside %s ignored\n",
                static_cast<unsigned long long>(unknown_tokens), unknown_words,
                vocabulary_name.c_str());
  if (without_known > 0)
    std::printf("  %llu documents without a known word have the prior mean 1/K\n",
                static_cast<unsigned long long>(without_known));
  if (!o.perplexity.empty())
    std::printf(
        "  document-completion perplexity %.1f over %llu held-out tokens (every 10th "
        "known token); per document in %s\n",
        test_tokens > 0 ? std::exp(-log_likelihood / static_cast<double>(test_tokens))
                        : std::nan(""),
        static_cast<unsigned long long>(test_tokens), o.perplexity.c_str());
  return 0;
}

}  // namespace carousel::cli
