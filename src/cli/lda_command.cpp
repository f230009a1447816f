// `carousel lda`: options, wiring of corpus reader, engine and outputs, progress and summary.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "carousel/cli/chain_driver.hpp"
#include "carousel/cli/command_support.hpp"
#include "carousel/cli/commands.hpp"
#include "carousel/cli/model_pipeline.hpp"
#include "carousel/cli/thread_ranks.hpp"
#include "carousel/comm/collective.hpp"
#include "carousel/engine/tile_engine.hpp"
#include "carousel/io/atomic_file.hpp"
#include "carousel/io/checkpoint_file.hpp"
#include "carousel/io/corpus_loader.hpp"
#include "carousel/io/corpus_reader.hpp"
#include "carousel/io/json.hpp"
#include "carousel/io/line_ranges.hpp"
#include "carousel/io/npy.hpp"
#include "carousel/io/text_output.hpp"
#include "carousel/model/lda/lda_model.hpp"
#include "carousel/model/lda/lda_outputs.hpp"
#include "carousel/sampler/registry.hpp"
#include "carousel/util/error.hpp"
#include "carousel/version.hpp"

namespace carousel::cli {
namespace {

struct LdaCommandOptions {
  std::string corpus, vocab;
  std::string format = "auto";
  std::string sampler = "scir";
  std::string doc_sampler = "gibbs";
  // What a checkpoint's command line without --gibbs-draw parses to: the sparse draw, the
  // only one before the option; a fresh run without it resolves auto (RunLdaCommand).
  std::string gibbs_draw = "sparse";
  bool gibbs_draw_given = false;
  std::string initial_topics = "prior";
  std::string first_update = "sweeps";
  // Not given: a fresh run resolves it to "assignments" and records it in the checkpoints'
  // command line; a checkpoint that does not record it was written when the draws were
  // averaged, so its resume keeps "draws".
  std::string topic_word_mean = "draws";
  bool topic_word_mean_given = false;
  bool sweeps_given = false;  // not given: a fresh run resolves it from the corpus (below)
  double step = -1.0;         // < 0: the sampler's default (DefaultLdaStep)
  double tau = 10.0;
  double kappa = 0.33;
  int threads = 0;  // worker threads per rank; 0: DefaultWorkerThreads
  LdaConfig config;
  RunBasics basics{"carousel-lda-out"};
  std::vector<std::string> argv;  // as given, for checkpoints and output headers
};

// Default h of h (1 + m / tau)^-kappa. SCIR's h is a time of its CIR process, whose mean
// reverts at rate 1 whatever the counts, so one value carries over between corpora; 2
// reached the perplexity targets soonest on a KOS validation split with every document in
// every iteration (bench/README.md, "LDA defaults for time to perplexity"). The
// Euler samplers' steps are the best of a grid on KOS (K = 50, 1000 documents per
// iteration, tuned on another held-out split than the benchmark's); SGRHMC diverged at
// 0.03 (doc/lda.md, "Defaults").
double DefaultLdaStep(SimplexSampler sampler) {
  switch (sampler) {
    case SimplexSampler::kScir:
      return 2.0;
    case SimplexSampler::kSgrld:
      return 0.5;
    case SimplexSampler::kSgrhmc:
      return 0.02;
  }
  return 0.1;
}

// Default --sweeps: 1 where an iteration of a tile sweeps at least 2 training tokens per
// entry of the tile's topic-word block, else 2 (the first of the two is the document's
// burn-in: the kept sweep's topics have had a sweep to adjust to the new phi). Per
// iteration a tile costs sweeps x its tokens plus one step of its block (words x K
// entries): where the tokens are few against the entries, the second sweep buys better
// counts for a step that is paid anyway; where they are many, the sweeps are nearly all
// the cost and one sweep makes twice the steps in the same time. On validation corpora of
// KOS's vocabulary and document length, one rank (bench/README.md, "One sweep from 2
// training tokens per entry"): KOS at 1.1 tokens per entry was ahead with two sweeps from
// perplexity 1500 down; generated corpora at 2.5, 5.3 and 26.6 were ahead with one at
// equal training time, by least at 2.5.
constexpr double kOneSweepTokensPerEntry = 2.0;

int DefaultLdaSweeps(const LdaConfig& c, const LdaCounts& counts, std::uint64_t vocabulary) {
  // A tile holds 1/tiles^2 of the training tokens (q of them per iteration) and 1/tiles of
  // the words.
  const double tokens = static_cast<double>(counts.train_tokens) *
                        c.MinibatchFraction(counts.train_documents) / c.tiles;
  const double entries = static_cast<double>(vocabulary) * c.topics;
  return tokens >= kOneSweepTokensPerEntry * entries ? 1 : 2;
}

// The rule in words, for --help and config.toml, from the same threshold.
std::string DefaultLdaSweepsRule() {
  return "1 from " + io::FormatReal(kOneSweepTokensPerEntry) +
         " training tokens per topic-word entry of a tile, else 2";
}

// Default burn-in: 20 passes over the data, but at least half and at most 3/4 of the
// iterations (below). An iteration samples each document in one of its tiles, so a pass is
// --tiles iterations. On the KOS validation split (bench/README.md, "LDA burn-in in
// passes") 20 passes reached perplexity 1500 (and 1400 where reached) as soon as any
// burn-in tried at 1, 2 and 4 tiles; the fixed 100 iterations of before started the
// averages late at 1 and 2 tiles, long after the chain had settled.
constexpr std::uint64_t kLdaBurnInPasses = 20;
// With the topics averaged from the assignments (--topic-word-mean), each draw is less
// noisy, so averaging fewer, later draws pays: at least half the run (as in Gelman et al.'s
// rule of discarding the first half) and at most 3/4 of it. On the KOS validation split
// (bench/README.md, "Topics from the assignments") half the run scored the same or lower
// than the 20 passes from 100 to 500 iterations at 2 and 4 tiles (2 tiles, 300 iterations:
// 1400.4 against 1411.5) and at 100 at 1 tile (1425.3 against 1433.2; 1390.7 against 1388.5
// at 300), and 518.2 against 522.1 after 300 iterations on a generated validation corpus of
// 10M tokens; 3/4 of a short run (14 to 80 iterations at 2 tiles) beat half of it (1895.0
// against 1937.5 at 14, 1652.0 against 1680.6 at 30), and at 1 and 4 tiles likewise.
constexpr RunFraction kLdaBurnInAtMost{3, 4, "3/4"};
constexpr RunFraction kLdaBurnInAtLeast{1, 2, "half"};
// Checkpoints written before the burn-in followed the tiles omit it where it was the
// default of then, min(100, iterations / 2); their command line must parse to that value.
constexpr std::uint64_t kBurnInOfUnrecordedCheckpoints = 100;

// Default --eval-every: 5 passes over the data, 5 x --tiles iterations. Every evaluation
// after burn-in keeps a draw (--thin follows --eval-every), and the posterior means that
// a run writes (topic_word.npy, doc_topic.npy) average those draws: on the KOS validation
// split (bench/README.md, "LDA draws every 5 passes") a draw every 5 passes gave topics
// that reached each held-out perplexity in fewer seconds of the whole process, evaluations
// included, than a draw every 50 iterations, at 1, 2 and 4 tiles. An evaluation costs
// about half a pass (10 sweeps over the held-out tenth of the documents), so in passes its
// share of the run stays near a tenth at any tile count.
constexpr std::uint64_t kLdaEvalEveryPasses = 5;

void AddOptions(CLI::App& app, LdaCommandOptions& o) {
  auto& c = o.config;
  app.add_option("--corpus", o.corpus, "bag-of-words corpus (UCI docword or LDA-C)");
  app.add_option("--vocab", o.vocab, "vocabulary file, one word per line");
  app.add_option("--corpus-format", o.format, "auto|uci|ldac");
  app.add_option("--topics", c.topics, "number of topics K")->check(Within(1, 65535));
  app.add_option("--alpha", c.alpha, "document-topic Dirichlet parameter")->check(Positive());
  app.add_option("--beta", c.beta, "topic-word Dirichlet parameter")->check(Positive());
  std::string samplers;
  for (const std::string& name : SamplerNames(BlockKind::kSimplex))
    samplers += (samplers.empty() ? "" : "|") + name;
  app.add_option("--sampler", o.sampler, samplers);
  app.add_option("--step", o.step, "h of h (1 + m/tau)^-kappa")
      ->check(Positive())
      ->default_str("per sampler");
  app.add_option("--step-offset", o.tau, "tau of h (1 + m/tau)^-kappa")->check(Positive());
  app.add_option("--step-decay", o.kappa, "kappa of h (1 + m/tau)^-kappa; 0 = constant")
      ->check(Within(0.0, 1.0));
  app.add_option("--minibatch", c.minibatch,
                 "documents per iteration (expected number); 0 = every training document")
      ->check(CLI::NonNegativeNumber)
      ->default_str("0");
  app.add_option("--sweeps", c.sweeps, "Gibbs sweeps per document; the first half is burn-in")
      ->check(Within(1, 100000))
      ->default_str(DefaultLdaSweepsRule());
  app.add_option("--doc-sampler", o.doc_sampler,
                 "gibbs|mh: training sweeps draw each token's topic exactly (sparse Gibbs, "
                 "O(topics in the document)) or by O(1) Metropolis-Hastings cycles with "
                 "alias-table word proposals (LightLDA)");
  app.add_option("--gibbs-draw", o.gibbs_draw,
                 "auto|sparse|dense: how each Gibbs draw (training and evaluation) is computed: "
                 "over the document's topics (sparse, double precision) or over all K topics "
                 "eight at a time in vectors (dense, single precision); auto: dense where it "
                 "is vectorised (AVX2 and K <= 64), else sparse; the same conditional, other "
                 "bits")
      ->default_str("auto");
  app.add_option("--mh-steps", c.mh_steps,
                 "--doc-sampler mh: cycles (a word and a document proposal) per token")
      ->check(Within(1, 1000));
  app.add_option("--topic-word-mean", o.topic_word_mean,
                 "assignments|draws: topic_word.npy averages, at each kept draw, E[phi | the "
                 "training tokens' topics] = (beta + n_kw) / (V beta + n_k) (Rao-Blackwellised) "
                 "or the sampler's draw of phi; the chain is the same")
      ->default_str("assignments");
  app.add_option("--initial-topics", o.initial_topics,
                 "prior|uniform: the first topic of each token, drawn from the model's prior "
                 "(a document starts with few topics, as its posterior has them, and the "
                 "first sweeps run faster) or uniformly")
      ->default_str("prior");
  app.add_option("--first-update", o.first_update,
                 "sweeps|initial-topics: what the first topic-word update counts: the first "
                 "iteration's sweeps (under the random initial phi), or the initial topics "
                 "(that iteration sweeps no document: faster on KOS-like corpora in short runs, "
                 "slower on a generated one)")
      ->default_str("sweeps");
  app.add_option("--test-fraction", c.test_fraction,
                 "fraction of documents held out for document completion (seeded)")
      ->check(Within(0.0, 0.99));
  app.add_option("--eval-sweeps", c.eval_sweeps, "Gibbs passes over held-out documents")
      ->check(Within(1, 100000));
  app.add_option("--threads", o.threads,
                 "threads per rank for the Gibbs sweeps (training and evaluation) and the "
                 "topic-word update; the results do not depend on it; 0 = the rank's CPUs, "
                 "at most 16 (doc/lda.md: Threads within a rank)")
      ->check(Within(0, 1024));
  AddChainOptions(app, c, o.basics);
}

LdaCommandOptions ParseLda(const std::vector<std::string>& args) {
  LdaCommandOptions o;
  o.config.tiles = 0;  // 0: one tile per rank, resolved once the rank count is known
  CLI::App app{
      "carousel lda: latent Dirichlet allocation by distributed SG-MCMC\n"
      "(carousel lda infer --help: topics of new documents given a finished run)",
      "carousel lda"};
  SetUpCommandApp(app);
  AddOptions(app, o);
  // A fresh run resolves its burn-in from the tiles (kLdaBurnInPasses, in RunLdaCommand).
  o.config.burn_in = kBurnInOfUnrecordedCheckpoints;
  app.get_option("--burn-in")
      ->description(
          "iterations before samples enter the posterior averages (by default at least half "
          "and at most 3/4 of --iterations)")
      ->default_str("20 passes over the data: 20 x --tiles");
  // A fresh run resolves it from the tiles (kLdaEvalEveryPasses, in RunLdaCommand).
  app.get_option("--eval-every")->default_str("5 passes over the data: 5 x --tiles");
  ParseOrThrow(app, args, "carousel lda");
  ResolveChainOptions(app, o.config, o.basics);
  if (o.basics.schedule == "default") {
    o.basics.schedule = "cyclic";
    o.basics.run_config.Resolve("--schedule", o.basics.schedule, "the default");
  }
  o.argv = SelfContainedArgs(app, args);
  auto& c = o.config;
  c.sampler = ParseSimplexSampler(o.sampler);
  c.doc_sampler = ParseDocSampler(o.doc_sampler);
  c.gibbs_draw = ParseGibbsDraw(o.gibbs_draw);
  o.gibbs_draw_given = app.count("--gibbs-draw") > 0;
  c.initial_topics = ParseInitialTopics(o.initial_topics);
  c.first_update = ParseFirstUpdate(o.first_update);
  c.topic_word_mean = ParseTopicWordMean(o.topic_word_mean);
  o.topic_word_mean_given = app.count("--topic-word-mean") > 0;
  o.sweeps_given = app.count("--sweeps") > 0;
  const double h = o.step > 0 ? o.step : DefaultLdaStep(c.sampler);
  if (o.step <= 0)
    o.basics.run_config.Resolve("--step", io::FormatReal(h), "the sampler's default");
  c.step = StepSchedule{h * std::pow(o.tau, o.kappa), o.tau, o.kappa};
  c.schedule = o.basics.schedule == "random" ? StratumSchedule::Kind::kRandom
                                             : StratumSchedule::Kind::kCyclic;
  io::ParseCorpusFormat(o.format);  // rejects a bad value before any file is read
  if (o.basics.resume.empty() && o.corpus.empty())
    throw UsageError("--corpus", "a corpus file is required (or --resume DIR)");
  return o;
}

std::vector<std::pair<std::string, std::string>> LdaComments(const LdaCommandOptions& o,
                                                             const LdaConfig& c, int ranks,
                                                             const Corpus& corpus,
                                                             const LdaCounts& counts) {
  std::vector<std::pair<std::string, std::string>> comments{
      {"carousel", kVersion},
      {"command", "carousel lda " + JoinArgs(o.argv)},
      {"ranks", std::to_string(ranks)},
      {"tiles", std::to_string(c.tiles)},
      {"sampler", SimplexSamplerName(c.sampler)},
      {"step", io::FormatReal(c.step.At(0)) + " * (1 + m / " + io::FormatReal(c.step.b) + ")^-" +
                   io::FormatReal(c.step.c)},
      {"topics", std::to_string(c.topics)},
      {"alpha", io::FormatReal(c.alpha)},
      {"beta", io::FormatReal(c.beta)},
      {"minibatch", c.minibatch > 0 ? io::FormatReal(c.minibatch) + " documents"
                                    : std::string("every training document")},
      {"sweeps", std::to_string(c.sweeps)},
      {"schedule", o.basics.schedule},
      {"iterations", std::to_string(c.iterations)},
      {"burn_in", std::to_string(c.burn_in)},
      {"eval_every", std::to_string(c.eval_every)},
      {"eval_sweeps", std::to_string(c.eval_sweeps)},
      {"seed", std::to_string(c.seed)},
      {"corpus", corpus.path + " (" + io::CorpusFormatName(corpus.format) + ")"},
      {"vocabulary", std::to_string(corpus.vocabulary) + " words"},
      {"documents", std::to_string(corpus.documents)},
      {"train_documents", std::to_string(counts.train_documents)},
      {"held_out_documents", std::to_string(counts.held_out_documents)},
      {"empty_documents_skipped", std::to_string(counts.empty_documents)},
      {"train_tokens", std::to_string(counts.train_tokens)},
      {"test_tokens", std::to_string(counts.test_tokens)}};
  // Only an mh run, a run of other than the sparse draw and one whose first update counts
  // the initial topics say so, after `sweeps`: the headers of the runs before these options
  // stay as they were.
  const auto after_sweeps = [&comments] {
    return std::find_if(comments.begin(), comments.end(),
                        [](const auto& kv) { return kv.first == "sweeps"; }) +
           1;
  };
  if (c.gibbs_draw != GibbsDraw::kSparse)
    comments.insert(after_sweeps(), {"gibbs_draw", GibbsDrawName(c.gibbs_draw)});
  if (c.first_update != FirstUpdate::kSweeps)
    comments.insert(after_sweeps(), {"first_update", FirstUpdateName(c.first_update)});
  if (c.doc_sampler == DocSampler::kMh)
    comments.insert(after_sweeps(),
                    {"doc_sampler", "mh, " + std::to_string(c.mh_steps) + " steps per token"});
  return comments;
}

struct LdaData : io::LoadedCorpus {
  CorpusSurvey survey;  // the whole corpus's counts
  int threads = 1;      // worker threads of this rank
};

// The held-out perplexity needs held-out documents with test words: a corpus too small for
// --test-fraction to hold out a document has none.
bool HasHeldOut(const LdaCounts& counts) {
  return counts.held_out_documents > 0 && counts.test_tokens > 0;
}

struct LdaCommand : ModelSpecDefaults {
  static constexpr const char* kName = "lda";
  using Options = LdaCommandOptions;
  using Model = LdaModel;
  using Data = LdaData;

  static Options Parse(const std::vector<std::string>& args) { return ParseLda(args); }

  // A fresh run's defaults that follow from the tiles, recorded in the checkpoints' command
  // line; a resumed run's command line has them.
  static void ResolveWithTiles(Communicator&, Options& options, RunStart& start) {
    if (!start.fresh) return;
    LdaConfig& config = options.config;
    RunBasics& basics = options.basics;
    if (!options.gibbs_draw_given) {
      config.gibbs_draw = GibbsDraw::kAuto;
      basics.run_config.Resolve("--gibbs-draw", "auto", "the default");
      start.recorded_args.insert(start.recorded_args.end(), {"--gibbs-draw", "auto"});
    }
    if (!options.topic_word_mean_given) {
      config.topic_word_mean = TopicWordMean::kAssignments;
      basics.run_config.Resolve("--topic-word-mean", "assignments", "the default");
      start.recorded_args.insert(start.recorded_args.end(), {"--topic-word-mean", "assignments"});
    }
    if (!basics.burn_in_given)
      ResolveBurnInOfPasses(kLdaBurnInPasses, config.tiles, config.iterations, config.burn_in,
                            basics, start.recorded_args, kLdaBurnInAtMost, kLdaBurnInAtLeast);
    if (!basics.eval_every_given)
      ResolveEvalEveryOfPasses(kLdaEvalEveryPasses, config.tiles, config.eval_every, config.thin,
                               basics, start.recorded_args);
  }

  static Data Load(Communicator& comm, Options& options, RunStart& start) {
    LdaConfig& config = options.config;
    Data data{LoadCommandCorpus(comm, options.corpus, options.vocab, options.format, config.tiles,
                                config.split_seed, config.topics),
              {}};
    data.survey = SurveyCorpusShare(comm, data.share, config);
    // Resolved from the whole corpus's survey, so every rank resolves the same. A checkpoint
    // written before this default records no --sweeps and resumes with the 2 of then.
    if (!options.sweeps_given && start.fresh) {
      config.sweeps = DefaultLdaSweeps(config, data.survey.counts, data.share.vocabulary);
      options.basics.run_config.Resolve("--sweeps", std::to_string(config.sweeps),
                                        "the default: " + DefaultLdaSweepsRule());
      start.recorded_args.insert(start.recorded_args.end(),
                                 {"--sweeps", std::to_string(config.sweeps)});
    }
    data.threads = options.threads > 0 ? options.threads : DefaultWorkerThreads(comm.size());
    return data;
  }

  // The worker threads are set before the engine attaches the model: they build its tokens.
  static std::unique_ptr<Model> Make(Options& options, Data& data) {
    auto model = std::make_unique<LdaModel>(options.config, data.share, data.survey);
    model->SetWorkerThreads(data.threads);
    return model;
  }
  static void Check(const Model& model, const Data& data) {
    if (model.counts().train_documents == 0)
      throw InputError(data.share.path,
                       "no training documents (every document is empty or held out)");
  }
  // The model's tokens hold the documents now; only the sizes and the words stay.
  static void Started(Communicator&, Options&, Data& data, Model&) {
    std::vector<std::uint64_t>().swap(data.share.doc_start);
    EntryArray().swap(data.share.word);
    EntryArray().swap(data.share.count);
  }

  static std::vector<std::pair<std::string, std::string>> Comments(const Options& options,
                                                                   int ranks, const Data& data,
                                                                   const Model& model) {
    return LdaComments(options, options.config, ranks, data.share, model.counts());
  }

  // Without held-out test words, say so once, not "nan" at every evaluation.
  static void Note(const Options& options, const Data&, const Model& model) {
    const LdaCounts counts = model.counts();
    if (HasHeldOut(counts)) return;
    if (counts.held_out_documents == 0)
      std::fprintf(stderr,
                   "carousel lda: note: no held-out documents (%llu training documents, "
                   "--test-fraction %g), so no held-out perplexity\n",
                   static_cast<unsigned long long>(counts.train_documents),
                   options.config.test_fraction);
    else
      std::fprintf(stderr,
                   "carousel lda: note: the %llu held-out documents are too short to keep test "
                   "words, so no held-out perplexity\n",
                   static_cast<unsigned long long>(counts.held_out_documents));
  }

  static void WriteTrace(const std::string& path, const std::string& comments, const Model& model) {
    io::WriteLdaTrace(path, comments, model.trace());
  }
  static decltype(auto) Draws(const Model& model) { return model.draws(); }

  static std::string Status(const Model& model, const Data&) {
    if (!HasHeldOut(model.counts())) return "no held-out perplexity";
    const LdaTraceRow& row = model.trace().back();
    char status[96];
    std::snprintf(status, sizeof status, "perplexity %.1f (sample %.1f)", row.perplexity,
                  row.perplexity_sample);
    return std::string(status);
  }

  static void Finish(Communicator& comm, const Options& options, const Data& data, Model& model,
                     const RunEnd& end);
};

// model.json: what `carousel lda infer` needs of the run.
void WriteLdaModelJson(const std::string& out, const std::string& sampler, const LdaConfig& config,
                       const Corpus& corpus, std::uint64_t samples) {
  io::RunModelJson description = RunDescription("lda", sampler, config.chain());
  description.facts = {{"topics", std::to_string(config.topics)},
                       {"alpha", io::JsonNumber(config.alpha)},
                       {"beta", io::JsonNumber(config.beta)},
                       {"vocabulary", std::to_string(corpus.vocabulary)},
                       {"documents", std::to_string(corpus.documents)},
                       {"posterior_draws", std::to_string(samples)}};
  description.files = {{"topic_word", "topic_word.npy"},
                       {"doc_topic", "doc_topic.npy"},
                       {"topics", "topics.txt"},
                       {"held_out_documents", "heldout.txt"}};
  if (!corpus.vocab.empty()) description.files.push_back({"vocabulary", "vocab.txt"});
  io::WriteRunModelJson(out, description);
}

// The closing lines: the run, then each rank's statistics and Gibbs sweep rate.
void PrintLdaClosing(const LdaCommandOptions& options, int ranks, const LdaModel& model,
                     const RunEnd& end, const std::vector<RankStats>& stats,
                     const std::vector<std::string>& gibbs_all) {
  const LdaCounts counts = model.counts();
  const LdaTraceRow& last = model.trace().back();
  char perplexity[160];
  if (HasHeldOut(counts))
    std::snprintf(perplexity, sizeof perplexity,
                  "held-out perplexity %.1f (averaged over %llu samples), %.1f (last sample)",
                  last.perplexity, static_cast<unsigned long long>(model.samples()),
                  last.perplexity_sample);
  else
    std::snprintf(perplexity, sizeof perplexity,
                  "no held-out perplexity (no held-out test words: use --test-fraction > 0 "
                  "on a larger corpus)");
  std::printf(
      "carousel lda: %llu iterations on %d rank(s) in %.2f s (%.2f s sampling); %s; %llu "
      "training and %llu held-out documents, %llu empty documents skipped; output in %s\n",
      static_cast<unsigned long long>(last.iteration), ranks, end.engine.seconds_running(),
      model.seconds_sampling(), perplexity, static_cast<unsigned long long>(counts.train_documents),
      static_cast<unsigned long long>(counts.held_out_documents),
      static_cast<unsigned long long>(counts.empty_documents), options.basics.out.c_str());
  PrintRankStats(stats, "training tokens");
  for (std::size_t r = 0; r < gibbs_all.size(); ++r) {
    LdaGibbsStats g;
    std::memcpy(&g, gibbs_all[r].data(), sizeof g);
    std::printf(
        "  rank %zu: %.2fM token visits per second in training Gibbs sweeps (%llu "
        "thread%s)\n",
        r, g.seconds > 0 ? 1e-6 * static_cast<double>(g.tokens_swept) / g.seconds : 0.0,
        static_cast<unsigned long long>(g.threads), g.threads == 1 ? "" : "s");
  }
}

void LdaCommand::Finish(Communicator& comm, const Options& options, const Data& data, Model& model,
                        const RunEnd& end) {
  const LdaConfig& config = options.config;
  const std::string& out = options.basics.out;
  const Corpus& corpus = data.share;
  io::LdaMeanFiles means =
      io::StreamLdaMeans(comm, out, end.comments, corpus, config.topics, model);
  const std::vector<std::uint32_t> held_out = model.HeldOutDocuments();
  const LdaGibbsStats gibbs = model.gibbs_stats();
  const std::vector<RankStats> stats =
      GatherRankStats(comm, end.outcome.sampling, model.tokens_held(), end.load, model.footprint());
  const std::vector<std::string> gibbs_all =
      comm.AllGather(std::string(reinterpret_cast<const char*>(&gibbs), sizeof gibbs));
  if (comm.rank() != 0) return;
  io::WriteLdaTrace(out + "/trace.csv", end.comments, model.trace());
  means.topic_word->Commit();
  means.doc_topic->Commit();
  if (!corpus.vocab.empty()) io::WriteVocabulary(out + "/vocab.txt", corpus.vocab);
  io::WriteFileAtomically(out + "/topics.txt", means.top_words);
  io::WriteHeldOut(out + "/heldout.txt", end.comments, held_out);
  WriteLdaModelJson(out, options.sampler, config, corpus, model.samples());
  PrintLdaClosing(options, comm.size(), model, end, stats, gibbs_all);
}

}  // namespace

int RunLdaCommand(Communicator& comm, const std::vector<std::string>& args) {
  if (!args.empty() && args[0] == "infer")
    return RunLdaInferCommand(comm, {args.begin() + 1, args.end()});
  return RunModelCommand<LdaCommand>(comm, args);
}

}  // namespace carousel::cli
