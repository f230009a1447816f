// `carousel lda infer`: the topic proportions of new documents given a finished
// `carousel lda` run's posterior-mean topics (its topic_word.npy), held fixed.
//
// Each document's topics are drawn by the model's own per-document collapsed Gibbs sampler
// (DocumentInference over DocumentGibbs, model/lda/lda_inference.hpp), the one that
// evaluates held-out documents, with alpha as the run had it. One process: the topics of
// the whole vocabulary (K x V) are read whole, and documents are independent.
//
// A run of several chains (--chains) is read chain by chain. Topics are not aligned across
// chains (topic k of one chain is any topic of another), so the proportions are given per
// chain, C x D x K; the predictive is pooled: a document's held-out tokens have the mean over
// the chains of their probability under each chain's topics.
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
#include "carousel/cli/several_chains.hpp"
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
  app.add_option("--run", o.run,
                 "the --out directory of a finished carousel lda run (of one chain or several)")
      ->required()
      ->check(NonEmpty());
  app.add_option("--corpus", o.corpus, "new documents (UCI docword or LDA-C), the run's word ids")
      ->required()
      ->check(NonEmpty());
  app.add_option("--vocab", o.vocab,
                 "vocabulary of --corpus, one word per line: its words are matched by spelling "
                 "to the run's vocab.txt (without it, word ids are the run's)");
  app.add_option("--corpus-format", o.format, "auto|uci|ldac");
  app.add_option("--out", o.out,
                 "topic proportions, D x K float64 .npy (C x D x K for a run of C chains)")
      ->check(NonEmpty());
  app.add_option("--perplexity", o.perplexity,
                 "also write each document's document-completion perplexity (CSV; the chains' "
                 "predictive pooled)");
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

FinishedRun ReadRun(const std::string& dir, const InferOptions& o) {
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

// log((1/C) sum_c exp(l_c)), the log of the chains' mean probability, without underflow;
// l_0 itself for one chain.
double PooledLogProbability(const std::vector<double>& per_chain) {
  if (per_chain.size() == 1) return per_chain[0];
  const double top = *std::max_element(per_chain.begin(), per_chain.end());
  if (!std::isfinite(top)) return top;
  double sum = 0.0;
  for (const double l : per_chain) sum += std::exp(l - top);
  return top + std::log(sum / static_cast<double>(per_chain.size()));
}

// Every chain of the run (ChainDirectories), each checked to have the first one's topics.
std::vector<FinishedRun> ReadChains(const InferOptions& o) {
  std::vector<FinishedRun> chains;
  for (const std::string& dir : ChainDirectories(o.run)) {
    chains.push_back(ReadRun(dir, o));
    const FinishedRun& first = chains.front();
    if (chains.back().topics != first.topics || chains.back().words != first.words ||
        chains.back().vocab != first.vocab)
      throw InputError(dir + "/topic_word.npy",
                       "its topics (" + std::to_string(chains.back().topics) + " x " +
                           std::to_string(chains.back().words) +
                           ", and vocabulary) are not those of the run's first chain");
  }
  return chains;
}

// The corpus's tokens whose word the run knows, and the others.
struct TokenCounts {
  std::uint64_t known = 0, unknown = 0;
  std::size_t unknown_words = 0;  // distinct
  std::string vocabulary_name;    // what "known" means, for messages
};

TokenCounts CountTokens(const InferOptions& o, const FinishedRun& run, const Corpus& corpus,
                        const std::vector<std::uint32_t>& map) {
  TokenCounts n;
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
                                        : "the run's vocabulary (" + o.run + "/vocab.txt)";
  if (n.known == 0)
    throw InputError(o.corpus, "no word of its " + std::to_string(n.unknown) + " tokens is in " +
                                   n.vocabulary_name +
                                   (run.vocab.empty() && o.vocab.empty()
                                        ? "; are its word ids the run's? (give --vocab to match "
                                          "words by spelling)"
                                        : ""));
  return n;
}

// Each document's held-out tokens (every 10th known token: the same for every chain) and
// their log-probability under each chain's topics.
struct Completions {
  std::vector<std::uint64_t> test_tokens, tokens;   // per document
  std::vector<std::vector<double>> log_likelihood;  // per chain, per document
  std::uint64_t without_known = 0;                  // documents without a known word
};

// Infers every document's topic proportions under every chain's topics into `out` (C x D x
// K, or D x K for one chain), a slice of documents at a time, and with `complete` each
// document's completion.
Completions InferDocuments(const InferOptions& o, const std::vector<FinishedRun>& chains,
                           const Corpus& corpus, const std::vector<std::uint32_t>& map,
                           bool complete, io::NpyRowWriter& out) {
  const FinishedRun& run = chains.front();
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
    DocumentInference inference(view, o.sweeps, o.seed);
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

// The document-completion log-likelihood of the pooled chains and of each chain alone.
struct Perplexity {
  double log_likelihood = 0.0;
  std::vector<double> chain_log_likelihood;
  std::uint64_t test_tokens = 0;
  double Of(double log_probability) const {
    return test_tokens > 0 ? std::exp(-log_probability / static_cast<double>(test_tokens))
                           : std::nan("");
  }
};

// --perplexity's file: a line per document, the chains' predictive pooled.
Perplexity WritePerplexity(const InferOptions& o, const std::vector<std::string>& args,
                           const FinishedRun& run, const Corpus& corpus, const Completions& done,
                           io::AtomicFileWriter& file) {
  const std::size_t C = done.log_likelihood.size();
  std::vector<std::pair<std::string, std::string>> comments{
      {"carousel", kVersion},
      {"command", "carousel lda infer " + JoinArgs(args)},
      {"run", o.run},
      {"corpus", corpus.path},
      {"topics", std::to_string(run.topics)},
      {"alpha", io::FormatReal(run.alpha)},
      {"sweeps", std::to_string(o.sweeps)},
      {"seed", std::to_string(o.seed)}};
  if (C > 1)
    comments.emplace_back("chains", std::to_string(C) +
                                        ", their predictive pooled (the mean "
                                        "of each document's probability)");
  std::string csv = io::CommentBlock(comments);
  csv += "doc,tokens,test_tokens,perplexity\n";
  Perplexity p;
  p.chain_log_likelihood.assign(C, 0.0);
  std::vector<double> per_chain(C);
  for (std::uint32_t d = 0; d < corpus.documents; ++d) {
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
  file.Append(csv);
  file.Commit();
  return p;
}

void PrintInferSummary(const InferOptions& o, const Corpus& corpus, std::size_t topics,
                       const TokenCounts& tokens, const Completions& done,
                       const std::optional<Perplexity>& perplexity) {
  std::printf(
      "carousel lda infer: %u documents, %llu tokens, %zu topics of %s; theta written to "
      "%s\n",
      corpus.documents, static_cast<unsigned long long>(tokens.known + tokens.unknown), topics,
      o.run.c_str(), o.out.c_str());
  if (tokens.unknown > 0)
    std::printf("  %llu tokens of %zu distinct words outside %s ignored\n",
                static_cast<unsigned long long>(tokens.unknown), tokens.unknown_words,
                tokens.vocabulary_name.c_str());
  if (done.without_known > 0)
    std::printf("  %llu documents without a known word have the prior mean 1/K\n",
                static_cast<unsigned long long>(done.without_known));
  if (!perplexity) return;
  std::printf(
      "  document-completion perplexity %.1f over %llu held-out tokens (every 10th "
      "known token); per document in %s\n",
      perplexity->Of(perplexity->log_likelihood),
      static_cast<unsigned long long>(perplexity->test_tokens), o.perplexity.c_str());
  const std::size_t C = perplexity->chain_log_likelihood.size();
  if (C < 2) return;
  std::string each;
  for (std::size_t chain = 0; chain < C; ++chain) {
    char text[32];
    std::snprintf(text, sizeof text, "%s%.1f", chain ? ", " : "",
                  perplexity->Of(perplexity->chain_log_likelihood[chain]));
    each += text;
  }
  std::printf("  the %zu chains' predictive pooled; each chain's alone: %s\n", C, each.c_str());
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
  const std::vector<FinishedRun> chains = ReadChains(o);
  const FinishedRun& run = chains.front();
  const std::size_t C = chains.size(), K = run.topics;
  const Corpus corpus = io::ReadCorpus(o.corpus, o.vocab, io::ParseCorpusFormat(o.format));
  const std::vector<std::uint32_t> map = WordMap(run, corpus);
  const TokenCounts tokens = CountTokens(o, run, corpus, map);
  // Both outputs are opened before any is written, so that one that cannot be written stops
  // the command with neither in place (each is written atomically).
  std::optional<io::AtomicFileWriter> perplexity_file;
  if (!o.perplexity.empty()) perplexity_file.emplace(o.perplexity);
  const std::size_t D = corpus.documents;
  io::NpyRowWriter out(o.out,
                       C == 1 ? std::vector<std::size_t>{D, K} : std::vector<std::size_t>{C, D, K});
  const Completions done = InferDocuments(o, chains, corpus, map, perplexity_file.has_value(), out);
  out.Commit();
  std::optional<Perplexity> perplexity;
  if (perplexity_file) perplexity = WritePerplexity(o, args, run, corpus, done, *perplexity_file);
  PrintInferSummary(o, corpus, K, tokens, done, perplexity);
  return 0;
}

}  // namespace carousel::cli
