// `carousel mf`: options, wiring of loader, engine and outputs, progress and summary.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "carousel/cli/chain_driver.hpp"
#include "carousel/cli/command_support.hpp"
#include "carousel/cli/commands.hpp"
#include "carousel/cli/declared_options.hpp"
#include "carousel/cli/draw_selection.hpp"
#include "carousel/cli/kept_samples.hpp"
#include "carousel/cli/model_pipeline.hpp"
#include "carousel/cli/sampler_options.hpp"
#include "carousel/comm/collective.hpp"
#include "carousel/engine/tile_engine.hpp"
#include "carousel/io/atomic_file.hpp"
#include "carousel/io/checkpoint_file.hpp"
#include "carousel/io/mf_loader.hpp"
#include "carousel/io/text_output.hpp"
#include "carousel/model/bpmf/bpmf_metric.hpp"
#include "carousel/model/bpmf/bpmf_model.hpp"
#include "carousel/model/bpmf/mf_defaults.hpp"
#include "carousel/model/bpmf/mf_outputs.hpp"
#include "carousel/model/bpmf/predictive_calibration.hpp"
#include "carousel/model/sample_plan.hpp"
#include "carousel/sampler/registry.hpp"
#include "carousel/util/error.hpp"
#include "carousel/version.hpp"

namespace carousel::cli {
namespace {

// Checkpoints written before every run recorded its resolved burn-in (2026-11-24) omit it
// where it was the default of then, min(60, iterations / 2); their command line must parse
// to that value.
constexpr std::uint64_t kBurnInOfUnrecordedCheckpoints = 60;

struct MfCommandOptions {
  io::MfInput input;
  std::string format = "auto";
  std::string hyper = "sample";
  std::string ridge_move = "on";
  long long keep_samples = -1;  // < 0: from the data (DefaultKeepSamples)
  std::string metric = "default";
  bool no_bias = false;
  double step = -1.0;                 // < 0: the sampler's default (see DefaultStep)
  long long step_warmup = -1;         // < 0: the sampler's default (DefaultMfStepWarmup)
  long long hyper_every = -1;         // < 0: the sampler's default (DefaultMfHyperEvery)
  bool rmsprop_lambda_given = false;  // else PSGLD's floor is DefaultRmspropLambda
  std::string save_draws;             // --save-draws, resolved once the ids are known
  MfConfig config;
  RunBasics basics{"carousel-out"};
  std::vector<std::string> argv;  // as given, for checkpoints and output headers
};

void AddOptions(CLI::App& app, MfCommandOptions& o) {
  auto& c = o.config;
  app.add_option("--train", o.input.train, "training ratings file");
  app.add_option("--test", o.input.test, "test ratings file");
  app.add_option("--test-fraction", o.input.test_fraction,
                 "hold out this fraction of --train as test set (seeded)")
      ->check(Within(0.0, 0.99));
  app.add_option("--format", o.format, "auto|movielens|whitespace|csv|mtx");
  app.add_option("--rank", c.shape.rank, "number of latent factors K")->check(Within(1, 4096));
  AddSamplerOptions(app, c.sampler, BlockKind::kFactor, MfOwnSamplers());
  app.add_option("--step", o.step, "step size a of a(b + t)^-c")
      ->check(Positive())
      ->default_str("per sampler, from the data (doc/mf.md, \"Step sizes\")");
  app.add_option("--step-warmup", o.step_warmup,
                 "iterations over which the step grows geometrically to --step, within the "
                 "burn-in (0: none)")
      ->check(Within(0LL, 1LL << 40))
      ->default_str("30 for sgrld, from a sixth of the step; 0 otherwise (at most --burn-in)");
  app.add_option("--step-offset", c.step.b, "b of a(b + t)^-c")->check(Within(1e-9, 1e18));
  app.add_option("--step-decay", c.step.c, "c of a(b + t)^-c; 0 = constant")
      ->check(Within(0.0, 1.0));
  app.add_option("--minibatch", c.minibatch, "fraction of each stratum per iteration")
      ->check(Within(1e-6, 1.0));
  app.add_option("--curvature-fraction", c.curvature_fraction,
                 "hamcmc: fraction (rounded to 1/k) of each minibatch for the gradients of y_t (1 "
                 "= Alg. 1)")
      ->check(Within(1e-6, 1.0));
  app.add_option("--hyper-every", o.hyper_every, "Gibbs step for the precisions every N")
      ->check(Within(1LL, 1LL << 40))
      ->default_str("sgrld: --tiles, once per pass over the data; 10 otherwise");
  app.add_option("--hyper", o.hyper, "sample|fixed precisions (fixed: all 1)")
      ->check(CLI::IsMember({"sample", "fixed"}));
  app.add_option("--ridge-move", o.ridge_move,
                 "on|off: after each Gibbs step of the precisions, an exact move along the W/H "
                 "scale ridge (W -> cW, H -> H/c with the precisions), which mixes lambda_w, "
                 "lambda_h and lp__; not made for hamcmc or --hyper fixed")
      ->check(CLI::IsMember({"on", "off"}));
  app.add_flag("--no-bias", o.no_bias, "no user and item biases");
  app.add_option("--metric", o.metric,
                 "SGRLD/SGRHMC metric: fisher (G = lambda + ratings * tau * mean square of the "
                 "partner factors; default for sgrld) or rating-count (G = 1 + ratings; default "
                 "for sgrhmc)")
      ->check(CLI::IsMember({"default", "fisher", "rating-count"}));
  app.add_option("--init-sd", c.init_sd, "sd of the initial factors")->check(Within(0.0, 10.0));
  app.add_option("--save-draws", o.save_draws,
                 "factors whose every kept draw goes to draws/: \"users=1,5,9 items=3\" (ids "
                 "of the input) or a count N (N users and N items picked with the seed)");
  OptionDeclarer declare(app);
  DeclareKeepSamples(declare, o.keep_samples,
                     "as many as fit in 256 MiB, from 2 to 20 (none with --sampler gibbs)");
  AddChainOptions(app, c, o.basics);
}

// Whether the registry's sampler of `sampler` reads `flag` (mf's gibbs reads none).
bool Reads(const SamplerOptions& sampler, const std::string& flag) {
  const SamplerInfo* info = SamplerNamed(sampler.name);
  return info && info->Reads(flag);
}

// The sampler as the run's header names it: with its metric if it uses one, and its
// transition if it has a choice of them.
std::string SamplerText(const SamplerOptions& sampler) {
  const SamplerInfo* info = SamplerNamed(sampler.name);
  if (!info || !info->riemannian) return sampler.name;
  return sampler.name + " (metric " + sampler.metric->name() +
         (info->Reads("--transition") ? ", transition " + sampler.transition : "") + ")";
}

// "sgrld and sgrhmc": the factor samplers that take --metric.
std::string RiemannianSamplersText() {
  std::vector<std::string> names;
  for (const std::string& name : SamplerNames(BlockKind::kFactor))
    if (SamplerNamed(name)->riemannian) names.push_back(name);
  std::string text;
  for (std::size_t i = 0; i < names.size(); ++i)
    text += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  return text;
}

MfCommandOptions ParseMf(const std::vector<std::string>& args) {
  MfCommandOptions o;
  o.config.tiles = 0;  // 0: one tile per rank, resolved once the rank count is known
  // The defaults of `carousel mf` chosen on validation splits of ml-100k and of 25M ratings
  // (doc/mf.md, "Step sizes" and "Defaults"): SGRLD with the expected-Fisher metric and the
  // "ou" transition, a burn-in of 30 passes over the data (DefaultMfBurnIn, in RunMfCommand
  // once the tiles are known), and an evaluation with a kept draw once per pass over the
  // data (kMfEvalEveryPasses). The Gibbs step of the precisions comes once per pass over the
  // data for SGRLD (DefaultMfHyperEvery, in RunMfCommand).
  o.config.sampler.name = "sgrld";
  o.config.sampler.transition = "ou";
  // A fresh run resolves its burn-in from the tiles (DefaultMfBurnIn, in RunMfCommand).
  o.config.burn_in = kBurnInOfUnrecordedCheckpoints;
  CLI::App app{"carousel mf: Bayesian matrix factorization by distributed SG-MCMC", "carousel mf"};
  SetUpCommandApp(app);
  AddOptions(app, o);
  app.get_option("--burn-in")
      ->description(
          "iterations before samples enter the posterior averages (by default at most half "
          "of --iterations)")
      ->default_str("30 passes over the data: 30 x --tiles");
  app.get_option("--eval-every")->default_str("once per pass over the data: --tiles");
  ParseOrThrow(app, args, "carousel mf");
  CheckSamplerChoice(o.config.sampler, BlockKind::kFactor, MfOwnSamplers());
  ResolveChainOptions(app, o.config, o.basics);
  o.rmsprop_lambda_given = app.count("--rmsprop-lambda") > 0;
  o.argv = SelfContainedArgs(app, args);
  o.input.seed = o.config.split_seed;  // the held-out split and the tile grid
  o.input.format = io::ParseRatingsFormat(o.format);
  o.config.shape.bias = !o.no_bias;
  const std::string& sampler = o.config.sampler.name;
  const SamplerInfo* info = SamplerNamed(sampler);  // null for the Gibbs reference
  const bool riemannian = info && info->riemannian;
  if (o.metric != "default" && !riemannian)
    throw UsageError("--metric", "applies to --sampler " + RiemannianSamplersText() +
                                     " only (not " + sampler +
                                     "; hamcmc's H0 is --initial-metric)");
  if (o.metric == "default") {
    o.metric = DefaultMfMetric(sampler);
    if (riemannian) o.basics.run_config.Resolve("--metric", o.metric, "the sampler's default");
  }
  if (info && info->step_problem) {
    const std::string problem = info->step_problem(o.config.sampler, o.step);
    if (!problem.empty())
      throw UsageError("--step", problem + " (now " + io::FormatReal(o.step) + ")");
  }
  if (o.metric == "fisher") {
    o.config.sampler.metric = std::make_shared<ExpectedFisherMetric>();
  } else {
    o.config.sampler.metric = std::make_shared<RatingCountMetric>();
  }
  o.config.priors.use_bias = !o.no_bias;
  o.config.priors.sample_hyper = o.hyper == "sample";
  o.config.ridge_move = o.ridge_move == "on";
  if (o.basics.resume.empty() && o.input.train.empty())
    throw UsageError("--train", "a training file is required (or --resume DIR)");
  if (!o.input.test.empty() && o.input.test_fraction > 0)
    throw UsageError("--test-fraction", "give either --test or --test-fraction, not both");
  return o;
}

std::vector<std::pair<std::string, std::string>> MfComments(const MfCommandOptions& o,
                                                            const MfConfig& c, int ranks,
                                                            const io::LoadedMf& data) {
  return {{"carousel", kVersion},
          {"command", "carousel mf " + JoinArgs(o.argv)},
          {"ranks", std::to_string(ranks)},
          {"tiles", std::to_string(c.tiles)},
          {"sampler", SamplerText(c.sampler)},
          {"step", io::FormatReal(c.step.a) + " * (" + io::FormatReal(c.step.b) + " + t)^-" +
                       io::FormatReal(c.step.c) +
                       (c.step.warmup > 0 ? ", times " + io::FormatReal(c.step.warmup_start) +
                                                "^(1 - t/" + std::to_string(c.step.warmup) +
                                                ") for t < " + std::to_string(c.step.warmup)
                                          : "")},
          {"rank", std::to_string(c.shape.rank)},
          {"rmsprop", Reads(c.sampler, "--rmsprop-alpha")
                          ? "alpha " + io::FormatReal(c.sampler.rmsprop_alpha) + ", lambda " +
                                io::FormatReal(c.sampler.rmsprop_lambda)
                          : "unused"},
          {"init_sd", io::FormatReal(c.init_sd)},
          {"bias", c.shape.bias ? "yes" : "no"},
          {"hyper", c.priors.sample_hyper ? "sampled (Gamma(1,1) priors) every " +
                                                std::to_string(c.hyper_every) + " iterations"
                                          : "fixed at 1"},
          {"minibatch", io::FormatReal(c.minibatch)},
          {"curvature_fraction", io::FormatReal(c.curvature_fraction)},
          {"schedule", o.basics.schedule},
          {"iterations", std::to_string(c.iterations)},
          {"burn_in", std::to_string(c.burn_in)},
          {"eval_every", std::to_string(c.eval_every)},
          {"thin", std::to_string(c.chain().thin)},
          {"seed", std::to_string(c.seed)},
          {"train", o.input.train},
          {"test", o.input.test.empty() ? "fraction " + io::FormatReal(o.input.test_fraction)
                                        : o.input.test},
          {"users", std::to_string(data.problem.rows)},
          {"items", std::to_string(data.problem.cols)},
          {"train_ratings", std::to_string(data.problem.train_count)},
          {"test_ratings", std::to_string(data.problem.test_count)},
          {"cold_test_ratings", std::to_string(data.cold_test)}};
}

io::MfModelSummary ModelSummary(const MfConfig& c, const io::LoadedMf& data, const BpmfModel& model,
                                std::uint64_t posterior_draws) {
  io::MfModelSummary m;
  m.version = kVersion;
  m.sampler = c.sampler.name;
  m.seed = c.seed;
  m.tiles = c.tiles;
  const ChainOptions chain = c.chain();
  m.iterations = chain.iterations;
  m.burn_in = chain.burn_in;
  m.thin = chain.thin;
  m.posterior_draws = posterior_draws;
  m.mu = data.problem.mu;
  m.lo = data.problem.lo;
  m.hi = data.problem.hi;
  m.shape = c.shape;
  m.users = data.problem.rows;
  m.items = data.problem.cols;
  m.train_ratings = data.problem.train_count;
  m.hyper_sampled = c.priors.sample_hyper;
  m.hyper_mean = model.HyperPosteriorMean();
  m.sample_iterations = model.samples_taken();
  return m;
}

// The predictive intervals' coverage of the test ratings (predictive_calibration.hpp).
PredictiveCalibration TestCalibration(const io::WholeTestSet& test, const MfPosterior& posterior,
                                      double noise_variance) {
  const std::vector<double> rating(test.value.begin(), test.value.end());
  return CalibrationOf(rating, posterior.pred_mean, posterior.pred_sd, noise_variance);
}

struct MfData : io::LoadedMf {
  std::unique_ptr<io::SampleWriter> sample_writer;  // rank 0, with --keep-samples
};

// The defaults that follow from the data (doc/mf.md, "Step sizes" and "Defaults"), each
// recorded for config.toml.
void ResolveMfDefaultsFromData(MfCommandOptions& options, const io::LoadedMf& data) {
  MfConfig& config = options.config;
  RunConfig& run_config = options.basics.run_config;
  config.step.a = options.step > 0 ? options.step
                                   : DefaultMfStep(config.sampler, data.problem,
                                                   config.tiles / config.minibatch);
  if (options.step <= 0)
    run_config.Resolve("--step", io::FormatReal(config.step.a),
                       "the sampler's default for this data");
  if (options.hyper_every < 0) {
    config.hyper_every = DefaultMfHyperEvery(config.sampler, config.tiles);
    run_config.Resolve("--hyper-every", std::to_string(config.hyper_every),
                       "the sampler's default");
  } else {
    config.hyper_every = static_cast<std::uint64_t>(options.hyper_every);
  }
  if (options.step_warmup < 0) {
    config.step.warmup = std::min(DefaultMfStepWarmup(config.sampler), config.burn_in);
    run_config.Resolve("--step-warmup", std::to_string(config.step.warmup),
                       "the sampler's default, at most --burn-in");
  } else {
    config.step.warmup = static_cast<std::uint64_t>(options.step_warmup);
  }
  config.step.warmup_start = kMfStepWarmupStart;
  if (!options.rmsprop_lambda_given) {
    config.sampler.rmsprop_lambda = DefaultRmspropLambda(data.problem);
    run_config.Resolve("--rmsprop-lambda", io::FormatReal(config.sampler.rmsprop_lambda),
                       "the default, 2 / training ratings");
  }
  std::vector<ResolvedDefault> chosen;
  config.keep_samples = ResolveKeepSamples(
      options.keep_samples,
      IsMfGibbsReference(config.sampler.name)
          ? 0
          : DefaultKeepSamples(data.problem.rows, data.problem.cols, config.shape.width()),
      chosen);
  RecordDefaults(run_config, chosen);
}

bool HasTest(const io::LoadedMf& data) {
  return data.problem.test_count > 0;
}

struct MfCommand : ModelSpecDefaults {
  static constexpr const char* kName = "mf";
  using Options = MfCommandOptions;
  using Model = BpmfModel;
  using Data = MfData;

  static Options Parse(const std::vector<std::string>& args) { return ParseMf(args); }

  static void ResolveWithTiles(Communicator& comm, Options& options, RunStart& start) {
    MfConfig& config = options.config;
    if (!options.basics.burn_in_given)
      ResolveBurnInOfPasses(kMfBurnInPasses, config.tiles, config.iterations, config.burn_in,
                            options.basics, start.recorded_args);
    if (!options.basics.eval_every_given)
      ResolveEvalEveryOfPasses(kMfEvalEveryPasses, config.tiles, config.eval_every, config.thin,
                               options.basics, start.recorded_args);
    RunCollectively(comm, [&] {
      if (options.step_warmup > 0 &&
          static_cast<std::uint64_t>(options.step_warmup) > config.burn_in)
        throw UsageError("--step-warmup", "must not exceed --burn-in (" +
                                              std::to_string(config.burn_in) +
                                              "): the samples kept must follow the step schedule");
    });
    options.input.tiles = config.tiles;
    options.input.balance_columns = true;  // mf's item blocks hold about equal ratings each
  }

  static Data Load(Communicator& comm, Options& options, RunStart&) {
    MfConfig& config = options.config;
    Data data;
    static_cast<io::LoadedMf&>(data) = io::LoadMf(comm, options.input);
    config.schedule = ResolveFactorSchedule(comm, options.basics, config.sampler, config.tiles);
    RunCollectively(comm, [&] {  // the id maps are the same on every rank
      config.draws = ResolveDrawSelection(options.save_draws, data.users, data.items, config.seed);
    });
    ResolveMfDefaultsFromData(options, data);
    return data;
  }

  // --sampler gibbs: the exact Gibbs sampler for the same model, not a chain of the engine.
  static std::optional<int> RunInstead(Communicator& comm, Options& options, Data& data) {
    const MfConfig& config = options.config;
    if (!IsMfGibbsReference(config.sampler.name)) return std::nullopt;
    RunCollectively(comm, [&] {
      if (comm.size() != 1) throw UsageError("--sampler gibbs", "runs in a single process only");
      if (config.keep_samples > 0)
        throw UsageError("--keep-samples", "is not available with --sampler gibbs");
    });
    WriteRunConfig(comm, "mf", options.basics);
    return RunGibbsReference(options.basics.out, config, data,
                             io::CommentBlock(MfComments(options, config, 1, data)),
                             options.basics.quiet);
  }

  static std::unique_ptr<Model> Make(Options& options, Data& data) {
    return std::make_unique<BpmfModel>(options.config, data.problem, std::move(data.share));
  }
  static void Started(Communicator& comm, Options& options, Data& data, Model& model) {
    data.sample_writer = StartSampleWriter(comm, options.basics.out, options.config.keep_samples,
                                           data.problem.rows, options.config.shape.width());
    model.SetSampleSink(data.sample_writer.get());
  }

  static std::vector<std::pair<std::string, std::string>> Comments(const Options& options,
                                                                   int ranks, const Data& data,
                                                                   const Model&) {
    return MfComments(options, options.config, ranks, data);
  }

  static void Note(const Options&, const Data& data, const Model&) {
    if (!HasTest(data))
      std::fprintf(stderr,
                   "carousel mf: note: no test set (use --test or --test-fraction): progress "
                   "shows the RMSE on the training minibatches\n");
  }

  static void WriteTrace(const std::string& path, const std::string& comments, const Model& model) {
    io::WriteTrace(path, comments, model.trace());
  }
  static decltype(auto) Draws(const Model& model) { return model.draws(); }

  static std::string Status(const Model& model, const Data& data) {
    const TraceRow& row = model.trace().back();
    char status[96];
    if (!HasTest(data)) {
      std::snprintf(status, sizeof status, "train rmse %.4f", row.rmse_train);
      return std::string(status);
    }
    int n = std::snprintf(status, sizeof status, "rmse %.4f", row.rmse_sample);
    if (!std::isnan(row.rmse_mean) && n > 0)
      std::snprintf(status + n, sizeof status - n, "  (posterior mean %.4f)", row.rmse_mean);
    return std::string(status);
  }

  static void Finish(Communicator& comm, const Options& options, const Data& data, Model& model,
                     const RunEnd& end);
};

// The closing lines: the run's test RMSE (or the training minibatches' without a test set),
// the predictive intervals' calibration and each rank's statistics.
void PrintMfClosing(const MfCommandOptions& options, int ranks, const io::LoadedMf& data,
                    const io::WholeTestSet& test, const BpmfModel& model,
                    const MfPosterior& posterior, double run_seconds,
                    const std::vector<RankStats>& stats) {
  const TraceRow& last = model.trace().back();
  if (!HasTest(data))
    std::printf(
        "carousel mf: %llu iterations on %d rank(s) in %.2f s; no test set (use --test or "
        "--test-fraction), training minibatch RMSE %.4f; %llu kept draws; output in %s\n",
        static_cast<unsigned long long>(last.iteration), ranks, run_seconds, last.rmse_train,
        static_cast<unsigned long long>(posterior.samples), options.basics.out.c_str());
  else
    std::printf(
        "carousel mf: %llu iterations on %d rank(s) in %.2f s; test RMSE %.4f (sample), "
        "%.4f (posterior mean of %llu samples); %llu of %llu test ratings had an unseen user "
        "or item; output in %s\n",
        static_cast<unsigned long long>(last.iteration), ranks, run_seconds, last.rmse_sample,
        last.rmse_mean, static_cast<unsigned long long>(posterior.samples),
        static_cast<unsigned long long>(data.cold_test),
        static_cast<unsigned long long>(data.problem.test_count), options.basics.out.c_str());
  if (HasTest(data) && posterior.samples > 0)
    std::printf(
        "carousel mf: calibration: %s\n",
        DescribeCalibration(TestCalibration(test, posterior, model.NoiseVariancePosteriorMean()))
            .c_str());
  PrintRankStats(stats, "training ratings");
}

// predictions.csv, the factor arrays, the kept samples, model.json and the closing lines.
void MfCommand::Finish(Communicator& comm, const Options& options, const Data& data, Model& model,
                       const RunEnd& end) {
  const MfConfig& config = options.config;
  const std::string& out = options.basics.out;
  const MfPosterior posterior = model.Posterior();
  std::unique_ptr<io::UserArrayWriter> user_arrays;
  if (comm.rank() == 0)
    user_arrays = std::make_unique<io::UserArrayWriter>(out, data.problem.rows, config.shape.rank,
                                                        config.shape.bias);
  model.ForEachUserSlice([&](const UserSlice& slice) { user_arrays->Write(slice); });
  const double run_seconds = end.engine.seconds_running();
  const std::vector<RankStats> stats = GatherRankStats(
      comm, end.outcome.sampling, model.ratings_held(), end.load, model.footprint());
  const io::WholeTestSet test = io::GatherTestSet(comm, data);
  if (comm.rank() != 0) return;  // RunChain wrote the trace and the draws as they stand
  io::DirectorySyncBatch outputs;
  io::WritePredictions(out + "/predictions.csv", end.comments, test, posterior);
  user_arrays->Commit();
  io::WriteItemArrays(out, posterior, config.shape.rank, config.shape.bias, data);
  io::RemoveStaleSamples(out, model.samples_taken().size());
  io::WriteModelJson(out, ModelSummary(config, data, model, posterior.samples));
  outputs.Finish();
  PrintMfClosing(options, comm.size(), data, test, model, posterior, run_seconds, stats);
}

}  // namespace

int RunMfCommand(Communicator& comm, const std::vector<std::string>& args) {
  return RunModelCommand<MfCommand>(comm, args);
}

}  // namespace carousel::cli
