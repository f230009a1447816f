// `carousel dpmix`: a Dirichlet-process mixture of multinomials by distributed SG-MCMC (SCIR
// paper Sec. 4.2; model/dpmix/dpmix_model.hpp). Reads the corpora `carousel lda` reads: a row
// is an observation, a column a category. Its outputs: model/dpmix/dpmix_outputs.hpp.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "carousel/cli/chain_driver.hpp"
#include "carousel/cli/command_support.hpp"
#include "carousel/cli/commands.hpp"
#include "carousel/cli/model_pipeline.hpp"
#include "carousel/comm/collective.hpp"
#include "carousel/engine/tile_engine.hpp"
#include "carousel/io/corpus_loader.hpp"
#include "carousel/io/corpus_reader.hpp"
#include "carousel/io/json.hpp"
#include "carousel/io/text_output.hpp"
#include "carousel/model/dpmix/dpmix_model.hpp"
#include "carousel/model/dpmix/dpmix_outputs.hpp"
#include "carousel/model/draws_table.hpp"
#include "carousel/util/error.hpp"
#include "carousel/version.hpp"

namespace carousel::cli {
namespace {

struct DpmixCommandOptions {
  std::string corpus, vocab;
  std::string format = "auto";
  std::string sampler = "scir";
  double step = -1.0, weight_step = -1.0;  // < 0: the sampler's default
  DpmixConfig config;
  RunBasics basics{"carousel-dpmix-out"};
  std::vector<std::string> argv;
};

// Fixed steps, as the paper's Sec. 4.2 (multimodal posteriors): the best of a 3-point grid
// per sampler on KOS with another held-out split than the benchmark reports (bench/README.md,
// "Dirichlet-process mixture on KOS": h = 0.1 of {0.1, 0.5, 2}, eps = 0.05 of {0.01, 0.05,
// 0.2}).
double DefaultStep(SimplexSampler s) {
  return s == SimplexSampler::kScir ? 0.1 : 0.05;
}

DpmixCommandOptions ParseDpmix(const std::vector<std::string>& args) {
  DpmixCommandOptions o;
  o.config.tiles = 0;
  auto& c = o.config;
  CLI::App app{
      "carousel dpmix: Dirichlet-process mixture of multinomials by distributed "
      "SG-MCMC (minibatched slice sampler; SCIR or SGRLD)",
      "carousel dpmix"};
  SetUpCommandApp(app);
  app.add_option("--corpus", o.corpus,
                 "count data (UCI docword or LDA-C): a row is an observation, a column a "
                 "category");
  app.add_option("--vocab", o.vocab, "category names, one per line");
  app.add_option("--corpus-format", o.format, "auto|uci|ldac");
  app.add_option("--a", c.a, "base measure Dir(a, ..., a) of the components")->check(Positive());
  app.add_option("--alpha-shape", c.alpha_shape, "Gamma prior of the concentration: shape")
      ->check(Positive());
  app.add_option("--alpha-rate", c.alpha_rate, "Gamma prior of the concentration: rate")
      ->check(Positive());
  app.add_option("--sampler", o.sampler, "scir|sgrld (component parameters and weights)")
      ->check(CLI::IsMember({"scir", "sgrld"}));
  app.add_option("--step", o.step, "h (scir) or eps (sgrld) of the component parameters")
      ->check(Positive())
      ->default_str("0.1 scir, 0.05 sgrld");
  app.add_option("--weight-step", o.weight_step, "the same for the weights")
      ->check(Positive())
      ->default_str("--step");
  app.add_option("--minibatch", c.minibatch, "observations per iteration (expected number)")
      ->check(Positive());
  app.add_option("--init-components", c.init_components,
                 "components the observations are spread over at the start")
      ->check(Within(1, 100000));
  app.add_option("--max-components", c.max_components,
                 "stop with an error when the slice sampler asks for more components")
      ->check(Within(1, 1000000));
  app.add_option("--test-fraction", c.test_fraction,
                 "fraction of observations held out for the log predictive (seeded)")
      ->check(Within(0.0, 0.99));
  AddChainOptions(app, c, o.basics);
  ParseOrThrow(app, args, "carousel dpmix");
  ResolveChainOptions(app, c, o.basics);
  if (o.basics.schedule == "default") {
    o.basics.schedule = "cyclic";
    o.basics.run_config.Resolve("--schedule", o.basics.schedule, "the default");
  }
  o.argv = SelfContainedArgs(app, args);
  c.sampler = ParseSimplexSampler(o.sampler);
  const double h = o.step > 0 ? o.step : DefaultStep(c.sampler);
  if (o.step <= 0) o.basics.run_config.Resolve("--step", io::FormatReal(h), "the default");
  const double hw = o.weight_step > 0 ? o.weight_step : h;
  if (o.weight_step <= 0)
    o.basics.run_config.Resolve("--weight-step", io::FormatReal(hw), "--step");
  c.step = StepSchedule{h, 1.0, 0.0};
  c.weight_step = StepSchedule{hw, 1.0, 0.0};
  c.schedule = o.basics.schedule == "random" ? StratumSchedule::Kind::kRandom
                                             : StratumSchedule::Kind::kCyclic;
  if (c.init_components > c.max_components)
    throw UsageError("--init-components",
                     "is " + std::to_string(c.init_components) + ", more than --max-components " +
                         std::to_string(c.max_components) +
                         ": the chain would stop at its first iteration; raise "
                         "--max-components or lower --init-components");
  io::ParseCorpusFormat(o.format);
  if (o.basics.resume.empty() && o.corpus.empty())
    throw UsageError("--corpus", "a corpus file is required (or --resume DIR)");
  return o;
}

std::vector<std::pair<std::string, std::string>> DpmixComments(const DpmixCommandOptions& o,
                                                               int ranks, const Corpus& corpus,
                                                               const DpmixSurvey& s) {
  const DpmixConfig& c = o.config;
  return {{"carousel", kVersion},
          {"command", "carousel dpmix " + JoinArgs(o.argv)},
          {"ranks", std::to_string(ranks)},
          {"tiles", std::to_string(c.tiles)},
          {"sampler", SimplexSamplerName(c.sampler)},
          {"step", io::FormatReal(c.step.a)},
          {"weight_step", io::FormatReal(c.weight_step.a)},
          {"a", io::FormatReal(c.a)},
          {"alpha_prior",
           "Gamma(" + io::FormatReal(c.alpha_shape) + ", " + io::FormatReal(c.alpha_rate) + ")"},
          {"minibatch", io::FormatReal(c.minibatch) + " observations"},
          {"schedule", o.basics.schedule},
          {"iterations", std::to_string(c.iterations)},
          {"burn_in", std::to_string(c.burn_in)},
          {"eval_every", std::to_string(c.eval_every)},
          {"seed", std::to_string(c.seed)},
          {"corpus", corpus.path + " (" + io::CorpusFormatName(corpus.format) + ")"},
          {"categories", std::to_string(corpus.vocabulary)},
          {"observations", std::to_string(corpus.documents)},
          {"train_observations", std::to_string(s.train)},
          {"held_out_observations", std::to_string(s.held_out)},
          {"empty_observations_skipped", std::to_string(s.empty)}};
}

struct DpmixData : io::LoadedCorpus {
  DpmixSurvey survey;
};

struct DpmixCommand : ModelSpecDefaults {
  static constexpr const char* kName = "dpmix";
  using Options = DpmixCommandOptions;
  using Model = DpmixModel;
  using Data = DpmixData;

  static Options Parse(const std::vector<std::string>& args) { return ParseDpmix(args); }

  static Data Load(Communicator& comm, Options& options, RunStart&) {
    const DpmixConfig& config = options.config;
    Data data{LoadCommandCorpus(comm, options.corpus, options.vocab, options.format, config.tiles,
                                config.split_seed),
              {}};
    data.survey = SurveyDpmixShare(comm, data.share, config);
    return data;
  }

  static std::unique_ptr<Model> Make(Options& options, Data& data) {
    return std::make_unique<DpmixModel>(options.config, data.share, data.survey);
  }
  static void Check(const Model& model, const Data& data) {
    if (model.survey().train == 0)
      throw InputError(data.share.path,
                       "no training observations (every row is empty or held out)");
  }

  static std::vector<std::pair<std::string, std::string>> Comments(const Options& options,
                                                                   int ranks, const Data& data,
                                                                   const Model&) {
    return DpmixComments(options, ranks, data.share, data.survey);
  }

  // Without held-out observations the log predictive is not defined: trace.csv's log_pred
  // columns hold NaN, and the progress and closing lines say why instead of printing it.
  static void Note(const Options& options, const Data& data, const Model&) {
    if (data.survey.held_out == 0)
      std::fprintf(stderr,
                   "carousel dpmix: note: no held-out observations (--test-fraction %s): the "
                   "held-out log predictive is not evaluated (NaN in trace.csv)\n",
                   io::FormatReal(options.config.test_fraction).c_str());
  }

  static void WriteTrace(const std::string& path, const std::string& comments, const Model& model) {
    io::WriteDpmixTrace(path, comments, model.trace());
  }
  static DrawsTable Draws(const Model& model) { return io::DpmixDraws(model.trace()); }

  static std::string Status(const Model& model, const Data& data) {
    const DpmixTraceRow& row = model.trace().back();
    char status[128];
    if (data.survey.held_out > 0)
      std::snprintf(status, sizeof status,
                    "log pred %.4f (sample %.4f), %llu components, alpha %.3g", row.log_pred,
                    row.log_pred_sample, static_cast<unsigned long long>(row.occupied), row.alpha);
    else
      std::snprintf(status, sizeof status, "%llu components, alpha %.3g",
                    static_cast<unsigned long long>(row.occupied), row.alpha);
    return std::string(status);
  }

  static void Finish(Communicator& comm, const Options& options, const Data& data, Model& model,
                     const RunEnd& end);
};

// components.npy, clusters.csv, components.txt (with --vocab), model.json and the closing line.
void DpmixCommand::Finish(Communicator& comm, const Options& options, const Data& data,
                          Model& model, const RunEnd& end) {
  const DpmixConfig& config = options.config;
  const std::string& out = options.basics.out;
  const Corpus& corpus = data.share;
  const std::vector<double> means = model.ComponentMeans();
  const std::vector<DpmixCluster> clusters = model.Clusters();
  RunCollectively(comm, [&] {
    if (comm.rank() != 0) return;  // RunChain wrote the trace as it stands at the end
    const std::size_t K = model.occupied();
    io::WriteDpmixComponents(out, end.comments, means, K, corpus.vocabulary, clusters,
                             corpus.vocab);
    io::RunModelJson description = RunDescription("dpmix", options.sampler, config.chain());
    description.facts = {{"categories", std::to_string(corpus.vocabulary)},
                         {"components", std::to_string(K)},
                         {"alpha_shape", io::JsonNumber(config.alpha_shape)},
                         {"alpha_rate", io::JsonNumber(config.alpha_rate)},
                         {"max_components", std::to_string(config.max_components)}};
    description.files = {{"components", "components.npy"}, {"clusters", "clusters.csv"}};
    if (!corpus.vocab.empty()) description.files.push_back({"component_words", "components.txt"});
    io::WriteRunModelJson(out, description);
    const DpmixTraceRow& last = model.trace().back();
    char fit[160];
    if (data.survey.held_out > 0)
      std::snprintf(fit, sizeof fit,
                    "held-out log predictive per observation %.4f (averaged over %llu samples), "
                    "%.4f (last sample)",
                    last.log_pred, static_cast<unsigned long long>(last.samples),
                    last.log_pred_sample);
    else
      std::snprintf(fit, sizeof fit, "no held-out observations (--test-fraction %s)",
                    io::FormatReal(config.test_fraction).c_str());
    std::printf(
        "carousel dpmix: %llu iterations on %d rank(s) in %.2f s (%.2f s sampling); %s; %zu "
        "occupied components, alpha %.4g; output in %s\n",
        static_cast<unsigned long long>(last.iteration), comm.size(), end.engine.seconds_running(),
        model.seconds_sampling(), fit, K, last.alpha, out.c_str());
  });
}

}  // namespace

int RunDpmixCommand(Communicator& comm, const std::vector<std::string>& args) {
  return RunModelCommand<DpmixCommand>(comm, args);
}

}  // namespace carousel::cli
