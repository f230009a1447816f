// `carousel lda infer`: the topic proportions of new documents given a finished
// `carousel lda` run's posterior-mean topics, held fixed (analysis/saved_topic_runs.hpp), with
// alpha as the run had it, and with --perplexity their document-completion perplexity. One
// process: the topics of the whole vocabulary (K x V) are read whole, and documents are
// independent. A run of several chains (--chains) gives C x D x K proportions, and its
// chains' predictive pooled.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

#include "carousel/analysis/saved_topic_runs.hpp"
#include "carousel/cli/command_support.hpp"
#include "carousel/cli/commands.hpp"
#include "carousel/comm/collective.hpp"
#include "carousel/io/atomic_file.hpp"
#include "carousel/io/corpus_reader.hpp"
#include "carousel/io/npy.hpp"
#include "carousel/io/text_output.hpp"
#include "carousel/util/error.hpp"
#include "carousel/version.hpp"

namespace carousel::cli {
namespace {

using analysis::CompletionPerplexity;
using analysis::Completions;
using analysis::KnownTokens;
using analysis::kUnknownWord;
using analysis::SavedTopicRun;

struct InferOptions : TopicRunInputs {
  InferOptions() { out = "inferred_doc_topic.npy"; }
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
  AddTopicRunInputs(app, o, "lda", "new documents (UCI docword or LDA-C), the run's word ids",
                    "vocabulary of --corpus, one word per line: its words are matched by "
                    "spelling to the run's vocab.txt (without it, word ids are the run's)");
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

// --perplexity's file: a line per document, the chains' predictive pooled.
CompletionPerplexity WritePerplexity(const InferOptions& o, const std::vector<std::string>& args,
                                     const SavedTopicRun& run, const Corpus& corpus,
                                     const Completions& done, io::AtomicFileWriter& file) {
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
  std::string csv;
  const CompletionPerplexity p =
      analysis::PooledPerplexity(done, corpus.documents, io::CommentBlock(comments), csv);
  file.Append(csv);
  file.Commit();
  return p;
}

void PrintInferSummary(const InferOptions& o, const Corpus& corpus, std::size_t topics,
                       const KnownTokens& tokens, const Completions& done,
                       const std::optional<CompletionPerplexity>& perplexity) {
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
  const InferOptions o = ParseOnOneProcess(comm, "carousel lda infer", Parse, args);
  const std::vector<SavedTopicRun> chains =
      analysis::ReadSavedTopicRuns(o.run, o.alpha, !o.vocab.empty());
  const SavedTopicRun& run = chains.front();
  const std::size_t C = chains.size(), K = run.topics;
  const Corpus corpus = io::ReadCorpus(o.corpus, o.vocab, io::ParseCorpusFormat(o.format));
  const std::vector<std::uint32_t> map = analysis::WordMap(run, corpus);
  const KnownTokens tokens =
      analysis::CountKnownTokens(run, o.run, corpus, o.corpus, !o.vocab.empty(), map);
  // Both outputs are opened before any is written, so that one that cannot be written stops
  // the command with neither in place (each is written atomically).
  std::optional<io::AtomicFileWriter> perplexity_file;
  if (!o.perplexity.empty()) perplexity_file.emplace(o.perplexity);
  const std::size_t D = corpus.documents;
  io::NpyRowWriter out(o.out,
                       C == 1 ? std::vector<std::size_t>{D, K} : std::vector<std::size_t>{C, D, K});
  const Completions done = analysis::InferDocuments(chains, corpus, map, o.sweeps, o.seed,
                                                    perplexity_file.has_value(), out);
  out.Commit();
  std::optional<CompletionPerplexity> perplexity;
  if (perplexity_file) perplexity = WritePerplexity(o, args, run, corpus, done, *perplexity_file);
  PrintInferSummary(o, corpus, K, tokens, done, perplexity);
  return 0;
}

}  // namespace carousel::cli
