// carousel lda's own options (those every model shares: cli/command_support.hpp), each
// declared once with its bounds, help and default (util/option_info.hpp); the defaults that
// follow from the sampler, the tiles and the corpus, with the evidence for each; and what a
// run says of its configuration.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "carousel/comm/communicator.hpp"
#include "carousel/data/corpus.hpp"
#include "carousel/io/run_model_json.hpp"
#include "carousel/model/lda/lda_config.hpp"
#include "carousel/model/lda/lda_model.hpp"
#include "carousel/model/tile_model.hpp"
#include "carousel/sampler/registry.hpp"
#include "carousel/util/option_info.hpp"

namespace carousel {

// Default burn-in: 20 passes over the data, but at least half and at most 3/4 of the
// iterations (below). An iteration samples each document in one of its tiles, so a pass is
// --tiles iterations. On the KOS validation split (bench/README.md, "LDA burn-in in
// passes") 20 passes reached perplexity 1500 (and 1400 where reached) as soon as any
// burn-in tried at 1, 2 and 4 tiles; the fixed 100 iterations of before started the
// averages late at 1 and 2 tiles, long after the chain had settled.
inline constexpr std::uint64_t kLdaBurnInPasses = 20;
// With the topics averaged from the assignments (--topic-word-mean), each draw is less
// noisy, so averaging fewer, later draws pays: at least half the run (as in Gelman et al.'s
// rule of discarding the first half) and at most 3/4 of it. On the KOS validation split
// (bench/README.md, "Topics from the assignments") half the run scored the same or lower
// than the 20 passes from 100 to 500 iterations at 2 and 4 tiles (2 tiles, 300 iterations:
// 1400.4 against 1411.5) and at 100 at 1 tile (1425.3 against 1433.2; 1390.7 against 1388.5
// at 300), and 518.2 against 522.1 after 300 iterations on a generated validation corpus of
// 10M tokens; 3/4 of a short run (14 to 80 iterations at 2 tiles) beat half of it (1895.0
// against 1937.5 at 14, 1652.0 against 1680.6 at 30), and at 1 and 4 tiles likewise.
inline constexpr RunFraction kLdaBurnInAtMost{3, 4, "3/4"};
inline constexpr RunFraction kLdaBurnInAtLeast{1, 2, "half"};
// Checkpoints written before the burn-in followed the tiles omit it where it was the
// default of then, min(100, iterations / 2); their command line must parse to that value.
inline constexpr std::uint64_t kLdaBurnInOfUnrecordedCheckpoints = 100;

// Default --eval-every: 5 passes over the data, 5 x --tiles iterations. Every evaluation
// after burn-in keeps a draw (--thin follows --eval-every), and the posterior means that
// a run writes (topic_word.npy, doc_topic.npy) average those draws: on the KOS validation
// split (bench/README.md, "LDA draws every 5 passes") a draw every 5 passes gave topics
// that reached each held-out perplexity in fewer seconds of the whole process, evaluations
// included, than a draw every 50 iterations, at 1, 2 and 4 tiles. An evaluation costs
// about half a pass (10 sweeps over the held-out tenth of the documents), so in passes its
// share of the run stays near a tenth at any tile count.
inline constexpr std::uint64_t kLdaEvalEveryPasses = 5;

struct LdaOptions {
  LdaOptions() {
    config.chain.tiles = 0;  // one tile per rank, resolved once the rank count is known
    // A fresh run resolves its burn-in from the tiles (kLdaBurnInPasses).
    config.chain.burn_in = kLdaBurnInOfUnrecordedCheckpoints;
  }
  std::string corpus, vocab;
  std::string format = "auto";
  std::string sampler = "scir";
  std::string doc_sampler = "gibbs";
  // What a checkpoint's command line without --gibbs-draw parses to: the sparse draw, the
  // only one before the option; a fresh run without it resolves auto.
  std::string gibbs_draw = "sparse";
  std::string initial_topics = "prior";
  std::string first_update = "sweeps";
  // Not given: a fresh run resolves it to "assignments" and records it in the checkpoints'
  // command line; a checkpoint that does not record it was written when the draws were
  // averaged, so its resume keeps "draws".
  std::string topic_word_mean = "draws";
  double step = -1.0;  // < 0: the sampler's default (DefaultLdaStep)
  double tau = 10.0;
  double kappa = 0.33;
  int threads = 0;  // worker threads per rank; 0: DefaultWorkerThreads
  // On the command line (else a fresh run resolves them: ResolveLdaOptions, the command).
  bool gibbs_draw_given = false, topic_word_mean_given = false, sweeps_given = false;
  bool update_every_given = false;
  LdaConfig config;
};

// Default --sweeps from the corpus (DefaultLdaSweeps), the rule in words.
std::string DefaultLdaSweepsRule();
// Default --update-every from the corpus (DefaultLdaUpdateEvery), the rule in words.
std::string DefaultLdaUpdateEveryRule();

// Declares every option of LdaOptions: `declare(field, flag, help, modifiers...)`.
template <class Declare>
void DeclareLdaOptions(Declare& declare, LdaOptions& o) {
  LdaConfig& c = o.config;
  declare(o.corpus, "--corpus", "bag-of-words corpus (UCI docword or LDA-C)");
  declare(o.vocab, "--vocab", "vocabulary file, one word per line");
  declare(o.format, "--corpus-format", "auto|uci|ldac");
  declare(c.topics, "--topics", "number of topics K", opt::Within(1, 65535));
  declare(c.alpha, "--alpha", "document-topic Dirichlet parameter", opt::Positive());
  declare(c.beta, "--beta", "topic-word Dirichlet parameter", opt::Positive());
  std::string samplers;
  for (const std::string& name : SamplerNames(BlockKind::kSimplex))
    samplers += (samplers.empty() ? "" : "|") + name;
  declare(o.sampler, "--sampler", samplers);
  declare(o.step, "--step", "h of h (1 + m/tau)^-kappa", opt::Positive(),
          opt::Shown("per sampler"));
  declare(o.tau, "--step-offset", "tau of h (1 + m/tau)^-kappa", opt::Positive());
  declare(o.kappa, "--step-decay", "kappa of h (1 + m/tau)^-kappa; 0 = constant",
          opt::Within(0.0, 1.0));
  declare(c.minibatch, "--minibatch",
          "documents per iteration (expected number); 0 = every training document",
          opt::NonNegative(), opt::Shown("0"));
  declare(c.sweeps, "--sweeps", "Gibbs sweeps per document; the first half is burn-in",
          opt::Within(1, 100000), opt::Shown(DefaultLdaSweepsRule()));
  declare(c.update_every, "--update-every",
          "update the topic-word blocks every N iterations, each from the counts of the N "
          "tiles it visited (at most --tiles)",
          opt::Within(1, 1000000), opt::Shown(DefaultLdaUpdateEveryRule()));
  declare(o.doc_sampler, "--doc-sampler",
          "gibbs|mh: training sweeps draw each token's topic exactly (sparse Gibbs, O(topics in "
          "the document)) or by O(1) Metropolis-Hastings cycles with alias-table word "
          "proposals (LightLDA)");
  declare(o.gibbs_draw, "--gibbs-draw",
          "auto|sparse|dense: how each Gibbs draw (training and evaluation) is computed: over "
          "the document's topics (sparse, double precision) or over all K topics eight at a "
          "time in vectors (dense, single precision); auto: dense where it is vectorised (AVX2 "
          "and K <= 64), else sparse; the same conditional, other bits",
          opt::Shown("auto"));
  declare(c.mh_steps, "--mh-steps",
          "--doc-sampler mh: cycles (a word and a document proposal) per token",
          opt::Within(1, 1000));
  declare(o.topic_word_mean, "--topic-word-mean",
          "assignments|draws: topic_word.npy averages, at each kept draw, E[phi | the training "
          "tokens' topics] = (beta + n_kw) / (V beta + n_k) (Rao-Blackwellised) or the "
          "sampler's draw of phi; the chain is the same",
          opt::Shown("assignments"));
  declare(o.initial_topics, "--initial-topics",
          "prior|uniform: the first topic of each token, drawn from the model's prior (a "
          "document starts with few topics, as its posterior has them, and the first sweeps "
          "run faster) or uniformly",
          opt::Shown("prior"));
  declare(o.first_update, "--first-update",
          "sweeps|initial-topics: what the first topic-word update counts: the first "
          "iteration's sweeps (under the random initial phi), or the initial topics (that "
          "iteration sweeps no document: faster on KOS-like corpora in short runs, slower on "
          "a generated one)",
          opt::Shown("sweeps"));
  declare(c.test_fraction, "--test-fraction",
          "fraction of documents held out for document completion (seeded)",
          opt::Within(0.0, 0.99));
  declare(c.eval_sweeps, "--eval-sweeps", "Gibbs passes over held-out documents",
          opt::Within(1, 100000));
  declare(o.threads, "--threads",
          "threads per rank for the Gibbs sweeps (training and evaluation) and the topic-word "
          "update; the results do not depend on it; 0 = the rank's CPUs, at most 16 "
          "(doc/lda.md: Threads within a rank)",
          opt::Within(0, 1024));
}

// How --help shows lda's defaults of two chain options (declared by the command line),
// which follow from the tiles (kLdaBurnInPasses, kLdaEvalEveryPasses).
template <class Declare>
void ShowLdaChainDefaults(Declare& declare) {
  declare.Describe("--burn-in",
                   "iterations before samples enter the posterior averages (by default at least "
                   "half and at most 3/4 of --iterations)");
  declare.Show("--burn-in", "20 passes over the data: 20 x --tiles");
  declare.Show("--eval-every", "5 passes over the data: 5 x --tiles");
}

// After parsing: the named choices into the config, the step (its default, if it chose
// one), and the corpus format's check (SettingError).
std::vector<ResolvedDefault> ResolveLdaOptions(LdaOptions& o);

// Default --update-every, then (with the config's update_every) --sweeps, for the corpus
// `counts` of `vocabulary` words on the config's tiles.
int DefaultLdaUpdateEvery(const LdaConfig& c, const LdaCounts& counts, std::uint64_t vocabulary);
int DefaultLdaSweeps(const LdaConfig& c, const LdaCounts& counts, std::uint64_t vocabulary);

// The held-out perplexity needs held-out documents with test words: a corpus too small for
// --test-fraction to hold out a document has none.
bool HasHeldOut(const LdaCounts& counts);

// The run's configuration, the '#' lines of every output after those every model starts with
// (the version, command line, ranks and tiles: cli/model_pipeline.hpp).
std::vector<std::pair<std::string, std::string>> LdaConfigurationLines(const LdaConfig& c,
                                                                       const Corpus& corpus,
                                                                       const LdaCounts& counts);

// The status of a progress line, and the closing line's account of the fit: the held-out
// perplexity, or why there is none.
std::string LdaStatus(const LdaModel& model);
std::string LdaFit(const LdaModel& model);

// The closing lines of a run on the ranks of `comm` that ran `run_seconds` and wrote into
// `out`: its fit and documents, then each rank's rate of Gibbs sweeps. Collective; the text is
// rank 0's.
std::string LdaClosing(Communicator& comm, const LdaModel& model, double run_seconds,
                       const std::string& out);

// model.json's lda members (io/run_model_json.hpp): what `carousel lda infer` needs of the
// run, and the output files by role.
void DescribeLdaRun(const LdaConfig& config, const Corpus& corpus, std::uint64_t samples,
                    io::RunModelJson& description);

}  // namespace carousel
