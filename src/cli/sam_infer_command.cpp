// `carousel sam infer`: the topic proportions of new documents given a finished `carousel sam`
// run's topics, held fixed (analysis/saved_sam_runs.hpp). One process: the topics of the kept
// words (K x V) are read whole, and documents are independent. A run of several chains
// (--chains) gives C x D x K proportions, one slice per chain.
#include <CLI/CLI.hpp>
#include <cstdio>

#include "carousel/analysis/saved_sam_runs.hpp"
#include "carousel/cli/command_support.hpp"
#include "carousel/cli/commands.hpp"
#include "carousel/io/corpus_reader.hpp"
#include "carousel/util/error.hpp"

namespace carousel::cli {
namespace {

struct SamInferOptions : TopicRunInputs {
  SamInferOptions() { out = "inferred_theta.npy"; }
  int steps = 200;
  std::uint64_t seed = 1;
};

SamInferOptions Parse(const std::vector<std::string>& args) {
  SamInferOptions o;
  CLI::App app{
      "carousel sam infer: topic proportions of new documents given a finished carousel sam "
      "run (one process)",
      "carousel sam infer"};
  SetUpCommandApp(app);
  AddTopicRunInputs(app, o, "sam", "new documents (UCI docword or LDA-C)",
                    "vocabulary of --corpus, one word per line: its words are matched by "
                    "spelling to the run's words.txt (without it, by the 1-based word ids "
                    "words.txt holds for a run without --vocab)");
  app.add_option("--steps", o.steps,
                 "MALA steps of a document's proportions (at the run's final step size); theta "
                 "is averaged over the second half")
      ->check(Within(2, 1000000));
  app.add_option("--seed", o.seed, "seed of the MALA draws")->check(NonNegative());
  ParseOrThrow(app, args, "carousel sam infer");
  io::ParseCorpusFormat(o.format);
  return o;
}

}  // namespace

int RunSamInferCommand(Communicator& comm, const std::vector<std::string>& args) {
  const SamInferOptions o = ParseOnOneProcess(comm, "carousel sam infer", Parse, args);
  const std::vector<analysis::SavedSamRun> chains = analysis::ReadSavedSamRuns(o.run);
  const analysis::SavedSamRun& run = chains.front();
  const Corpus corpus = io::ReadCorpus(o.corpus, o.vocab, io::ParseCorpusFormat(o.format));
  const std::vector<std::uint32_t> map = analysis::SamWordMap(run, corpus);
  std::uint64_t known = 0, tokens = 0;
  for (std::size_t e = 0; e < corpus.word.size(); ++e) {
    tokens += corpus.count[e];
    if (map[corpus.word[e]] != analysis::kUnknownWord) known += corpus.count[e];
  }
  if (known == 0)
    throw InputError(o.corpus,
                     "no word of its " + std::to_string(tokens) + " tokens is among the run's " +
                         std::to_string(run.words) + " kept words (" + o.run + "/words.txt)" +
                         (o.vocab.empty() ? "; give --vocab to match words by spelling" : ""));
  const std::size_t C = chains.size(), D = corpus.documents, K = run.topics;
  io::NpyRowWriter out(o.out,
                       C == 1 ? std::vector<std::size_t>{D, K} : std::vector<std::size_t>{C, D, K});
  const std::uint64_t without_known =
      analysis::InferSamDocuments(chains, corpus, map, o.steps, o.seed, out);
  out.Commit();
  std::printf(
      "carousel sam infer: %u documents, %llu tokens (%llu of the run's kept words), %zu topics "
      "of %s (%zu chain%s); theta written to %s\n",
      corpus.documents, static_cast<unsigned long long>(tokens),
      static_cast<unsigned long long>(known), K, o.run.c_str(), C, C == 1 ? "" : "s",
      o.out.c_str());
  if (without_known > 0)
    std::printf("  %llu documents without a kept word have the prior mean 1/K\n",
                static_cast<unsigned long long>(without_known));
  return 0;
}

}  // namespace carousel::cli
