// `carousel sam`: options, wiring of corpus reader, tf-idf, engine and outputs.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "carousel/cli/chain_driver.hpp"
#include "carousel/cli/command_support.hpp"
#include "carousel/cli/commands.hpp"
#include "carousel/cli/model_pipeline.hpp"
#include "carousel/cli/sampler_options.hpp"
#include "carousel/comm/collective.hpp"
#include "carousel/engine/tile_engine.hpp"
#include "carousel/io/atomic_file.hpp"
#include "carousel/io/corpus_loader.hpp"
#include "carousel/io/corpus_reader.hpp"
#include "carousel/io/json.hpp"
#include "carousel/io/npy.hpp"
#include "carousel/io/text_output.hpp"
#include "carousel/model/lda/lda_outputs.hpp"
#include "carousel/model/sam/sam_corpus.hpp"
#include "carousel/model/sam/sam_model.hpp"
#include "carousel/model/sam/sam_outputs.hpp"
#include "carousel/model/sam/sam_survey.hpp"
#include "carousel/sampler/registry.hpp"
#include "carousel/util/error.hpp"
#include "carousel/version.hpp"

namespace carousel::cli {
namespace {

// Step-size defaults in SGD terms (supplement Sec. C: h = sqrt(gamma / D), C = rho / h, with
// gamma the per-batch learning rate and rho the momentum coefficient; doc/sam.md, "Spherical
// admixture model", says how these were chosen).
constexpr double kDefaultLearningRate = 1e-6;
constexpr double kDefaultMomentum = 0.1;

struct SamCommandOptions {
  std::string corpus, vocab;
  std::string format = "auto";
  SamplerOptions sampler;
  double step = -1.0;  // < 0: from --learning-rate and the training documents
  double learning_rate = kDefaultLearningRate;
  double momentum = kDefaultMomentum;
  bool friction_given = false, thermostat_given = false;
  SamConfig config;
  RunBasics basics{"carousel-sam-out"};
  std::vector<std::string> argv;
};

void AddOptions(CLI::App& app, SamCommandOptions& o) {
  auto& c = o.config;
  app.add_option("--corpus", o.corpus, "bag-of-words corpus (UCI docword or LDA-C)");
  app.add_option("--vocab", o.vocab, "vocabulary file, one word per line");
  app.add_option("--corpus-format", o.format, "auto|uci|ldac");
  app.add_option("--topics", c.topics, "number of topics K")->check(Within(1, 4096));
  app.add_option("--alpha", c.alpha, "Dirichlet prior of the topic proportions")->check(Positive());
  app.add_option("--sigma", c.sigma, "concentration of the topics about the corpus mean")
      ->check(Positive());
  app.add_option("--kappa0", c.kappa0, "concentration of the corpus mean about m")
      ->check(Positive());
  app.add_option("--kappa1", c.kappa1, "concentration of a document about its mean direction")
      ->check(Positive());
  o.sampler.name = "gsgnht";
  AddSamplerOptions(app, o.sampler, BlockKind::kSphere);
  app.add_option("--step", o.step, "h of SGGMC/gSGNHT")
      ->check(Positive())
      ->default_str("sqrt(learning rate / training documents)");
  app.add_option("--learning-rate", o.learning_rate,
                 "gamma: the default step is sqrt(gamma / D) (supplement Sec. C)")
      ->check(Positive());
  app.add_option("--momentum", o.momentum,
                 "rho: the default friction C is rho / h (supplement Sec. C)")
      ->check(Within(0.0, 1.0));
  app.add_option("--minibatch", c.minibatch, "training documents per iteration (expected)")
      ->check(Positive());
  app.add_option("--theta-steps", c.theta_steps,
                 "MALA steps of a document's topic proportions per visit; moments over the "
                 "second half")
      ->check(Within(2, 100000));
  app.add_option("--min-df", c.tfidf.min_df, "keep words in at least this fraction of documents")
      ->check(Within(0.0, 1.0));
  app.add_option("--max-df", c.tfidf.max_df, "keep words in at most this fraction of documents")
      ->check(Within(0.0, 1.0));
  app.add_option("--max-words", c.tfidf.max_vocabulary,
                 "then keep at most this many words, the most frequent (0: no cap)");
  app.add_option("--test-fraction", c.test_fraction,
                 "fraction of documents held out for the log-perplexity (seeded)")
      ->check(Within(0.0, 0.99));
  app.add_option("--eval-draws", c.eval_draws,
                 "draws of theta from its prior per held-out document (Sec. 5.3)")
      ->check(Within(2, 1000000));
  AddChainOptions(app, c, o.basics);
}

SamCommandOptions ParseSam(const std::vector<std::string>& args) {
  SamCommandOptions o;
  o.config.tiles = 0;
  CLI::App app{
      "carousel sam: the spherical admixture model of tf-idf vectors by distributed "
      "geodesic SG-MCMC (Liu, Zhu and Song 2016)",
      "carousel sam"};
  SetUpCommandApp(app);
  AddOptions(app, o);
  ParseOrThrow(app, args, "carousel sam");
  ResolveChainOptions(app, o.config, o.basics);
  o.friction_given = app.count("--friction") > 0;
  o.thermostat_given = app.count("--thermostat-initial") > 0;
  if (o.basics.schedule == "default") o.basics.schedule = "cyclic";
  o.argv = SelfContainedArgs(app, args);
  CheckSamplerChoice(o.sampler, BlockKind::kSphere);
  if (o.sampler.diffusion != "zero")
    throw UsageError("--diffusion",
                     "sam takes the gradient-noise estimate V of Eq. 8 as zero, "
                     "as the paper does for this model (Sec. 5.3)");
  if (o.config.tfidf.min_df > o.config.tfidf.max_df)
    throw UsageError("--min-df", "must not exceed --max-df");
  o.config.sampler = FindSampler(o.sampler.name, BlockKind::kSphere).sphere.value();
  io::ParseCorpusFormat(o.format);
  if (o.basics.resume.empty() && o.corpus.empty())
    throw UsageError("--corpus", "a corpus file is required (or --resume DIR)");
  return o;
}

// h = sqrt(gamma / D) and C = rho / h unless given; gSGNHT's xi_0 = C (Alg. 2).
void ResolveStep(SamCommandOptions& o, std::uint64_t train_documents) {
  SamConfig& c = o.config;
  c.step = o.step > 0 ? o.step : std::sqrt(o.learning_rate / static_cast<double>(train_documents));
  c.friction = o.friction_given ? o.sampler.friction : o.momentum / c.step;
  c.thermostat_initial = o.thermostat_given ? o.sampler.thermostat_initial : c.friction;
  RunConfig& rc = o.basics.run_config;
  if (o.step <= 0) rc.Resolve("--step", io::FormatReal(c.step), "sqrt(learning rate / D)");
  if (!o.friction_given) rc.Resolve("--friction", io::FormatReal(c.friction), "momentum / step");
  if (!o.thermostat_given)
    rc.Resolve("--thermostat-initial", io::FormatReal(c.thermostat_initial), "the friction");
}

std::vector<std::pair<std::string, std::string>> SamComments(const SamCommandOptions& o, int ranks,
                                                             const Corpus& corpus,
                                                             const TfIdfCorpus& sam,
                                                             const SamCounts& counts) {
  const SamConfig& c = o.config;
  return {{"carousel", kVersion},
          {"command", "carousel sam " + JoinArgs(o.argv)},
          {"ranks", std::to_string(ranks)},
          {"tiles", std::to_string(c.tiles)},
          {"sampler", o.sampler.name},
          {"step", io::FormatReal(c.step)},
          {"friction", io::FormatReal(c.friction)},
          {"topics", std::to_string(c.topics)},
          {"alpha", io::FormatReal(c.alpha)},
          {"sigma", io::FormatReal(c.sigma)},
          {"kappa0", io::FormatReal(c.kappa0)},
          {"kappa1", io::FormatReal(c.kappa1)},
          {"minibatch", io::FormatReal(c.minibatch) + " documents"},
          {"theta_steps", std::to_string(c.theta_steps)},
          {"iterations", std::to_string(c.iterations)},
          {"burn_in", std::to_string(c.burn_in)},
          {"eval_every", std::to_string(c.eval_every)},
          {"eval_draws", std::to_string(c.eval_draws)},
          {"seed", std::to_string(c.seed)},
          {"split_seed", std::to_string(c.split_seed)},
          {"corpus", corpus.path + " (" + io::CorpusFormatName(corpus.format) + ")"},
          {"vocabulary", std::to_string(corpus.vocabulary) + " words, " +
                             std::to_string(sam.vocabulary.size()) +
                             " kept (document frequency in [" + io::FormatReal(c.tfidf.min_df) +
                             ", " + io::FormatReal(c.tfidf.max_df) + "])"},
          {"documents", std::to_string(corpus.documents)},
          {"train_documents", std::to_string(counts.train_documents)},
          {"held_out_documents", std::to_string(counts.held_out_documents)},
          {"documents_without_kept_words", std::to_string(counts.excluded_documents)}};
}

struct SamData : io::LoadedCorpus {
  SamCorpusShare sam;  // the tf-idf vectors of this rank's documents
  SamSurvey survey;
};

struct SamCommand : ModelSpecDefaults {
  static constexpr const char* kName = "sam";
  using Options = SamCommandOptions;
  using Model = SamModel;
  using Data = SamData;

  static Options Parse(const std::vector<std::string>& args) { return ParseSam(args); }

  static Data Load(Communicator& comm, Options& options, RunStart&) {
    SamConfig& config = options.config;
    Data data{LoadCommandCorpus(comm, options.corpus, options.vocab, options.format, config.tiles,
                                config.split_seed),
              {},
              {}};
    RunCollectively(comm, [&] { data.sam = BuildSamCorpus(comm, data.share, config.tfidf); });
    data.survey = SurveySamCorpus(comm, data.sam.corpus, config);
    RunCollectively(comm, [&] {
      if (data.survey.counts.train_documents == 0)
        throw InputError(data.share.path, "no training documents with a kept word (" +
                                              std::to_string(data.sam.corpus.vocabulary.size()) +
                                              " words kept; widen --min-df/--max-df)");
      ResolveStep(options, data.survey.counts.train_documents);
    });
    return data;
  }

  static std::unique_ptr<Model> Make(Options& options, Data& data) {
    return std::make_unique<SamModel>(options.config, data.sam.corpus, data.survey);
  }

  static std::vector<std::pair<std::string, std::string>> Comments(const Options& options,
                                                                   int ranks, const Data& data,
                                                                   const Model&) {
    return SamComments(options, ranks, data.share, data.sam.corpus, data.survey.counts);
  }

  static void WriteTrace(const std::string& path, const std::string& comments, const Model& model) {
    io::WriteSamTrace(path, comments, model.trace());
  }
  static decltype(auto) Draws(const Model& model) { return model.draws(); }

  static std::string Status(const Model& model, const Data&) {
    const SamTraceRow& row = model.trace().back();
    char status[128];
    std::snprintf(status, sizeof status, "log-perplexity %.2f (sample %.2f +- %.2f)",
                  row.log_perplexity, row.log_perplexity_sample, row.log_perplexity_se);
    return std::string(status);
  }

  static void Finish(Communicator& comm, const Options& options, const Data& data, Model& model,
                     const RunEnd& end);
};

void SamCommand::Finish(Communicator& comm, const Options& options, const Data& data, Model& model,
                        const RunEnd& end) {
  const SamConfig& config = options.config;
  const std::vector<double> directions = model.TopicMeanDirections();
  const std::vector<RankStats> stats = GatherRankStats(
      comm, end.outcome.sampling, data.sam.entries_held, end.load, model.footprint());
  RunCollectively(comm, [&] {
    if (comm.rank() != 0) return;  // RunChain wrote the trace as it stands at the end
    const std::string& out = options.basics.out;
    const std::size_t V = data.sam.corpus.vocabulary.size();
    io::WriteSamTopics(out, end.comments, directions, static_cast<std::size_t>(config.topics),
                       data.sam.corpus.vocabulary, data.share.vocab);
    std::vector<std::uint32_t> held_out = data.survey.held_out.ids;
    std::sort(held_out.begin(), held_out.end());
    io::WriteHeldOut(out + "/heldout.txt", end.comments, held_out);
    io::RunModelJson description = RunDescription("sam", options.sampler.name, config.chain());
    description.facts = {
        {"topics", std::to_string(config.topics)}, {"alpha", io::JsonNumber(config.alpha)},
        {"sigma", io::JsonNumber(config.sigma)},   {"kappa0", io::JsonNumber(config.kappa0)},
        {"kappa1", io::JsonNumber(config.kappa1)}, {"vocabulary", std::to_string(V)}};
    description.files = {{"topic_vectors", "topic_vectors.npy"},
                         {"words", "words.txt"},
                         {"topics", "topics.txt"},
                         {"held_out_documents", "heldout.txt"}};
    io::WriteRunModelJson(out, description);
    const SamTraceRow& last = model.trace().back();
    std::printf(
        "carousel sam: %llu iterations on %d rank(s) in %.2f s (%.2f s sampling); held-out "
        "log-perplexity %.3f (averaged over %llu samples), %.3f +- %.3f (last sample); %llu "
        "training and %llu held-out documents, %zu words kept; output in %s\n",
        static_cast<unsigned long long>(last.iteration), comm.size(), end.engine.seconds_running(),
        model.seconds_sampling(), last.log_perplexity,
        static_cast<unsigned long long>(model.samples()), last.log_perplexity_sample,
        last.log_perplexity_se, static_cast<unsigned long long>(data.survey.counts.train_documents),
        static_cast<unsigned long long>(data.survey.counts.held_out_documents), V, out.c_str());
    PrintRankStats(stats, "training entries");
  });
}

}  // namespace

int RunSamCommand(Communicator& comm, const std::vector<std::string>& args) {
  return RunModelCommand<SamCommand>(comm, args);
}

}  // namespace carousel::cli
