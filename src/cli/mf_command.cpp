// `carousel mf`: options, wiring of loader, engine and outputs, progress and summary.
#include <CLI/CLI.hpp>
#include <cstdio>

#include "carousel/cli/chain_driver.hpp"
#include "carousel/cli/command_support.hpp"
#include "carousel/cli/commands.hpp"
#include "carousel/cli/declared_options.hpp"
#include "carousel/cli/draw_selection.hpp"
#include "carousel/cli/kept_samples.hpp"
#include "carousel/cli/model_pipeline.hpp"
#include "carousel/comm/collective.hpp"
#include "carousel/io/atomic_file.hpp"
#include "carousel/io/mf_loader.hpp"
#include "carousel/io/text_output.hpp"
#include "carousel/model/bpmf/bpmf_model.hpp"
#include "carousel/model/bpmf/mf_defaults.hpp"
#include "carousel/model/bpmf/mf_options.hpp"
#include "carousel/model/bpmf/mf_outputs.hpp"
#include "carousel/model/bpmf/predictive_calibration.hpp"
#include "carousel/util/error.hpp"
#include "carousel/version.hpp"

namespace carousel::cli {
namespace {

struct MfCommandOptions : MfOptions {
  RunBasics basics{"carousel-out"};
  std::vector<std::string> argv;  // as given, for checkpoints and output headers
};

MfCommandOptions ParseMf(const std::vector<std::string>& args) {
  MfCommandOptions o;
  CLI::App app{"carousel mf: Bayesian matrix factorization by distributed SG-MCMC", "carousel mf"};
  SetUpCommandApp(app);
  OptionDeclarer declare(app);
  DeclareMfOptions(declare, o);
  AddChainOptions(app, o.config.chain, o.basics);
  ShowMfChainDefaults(declare);
  ParseOrThrow(app, args, "carousel mf");
  CheckSamplerChoice(o.config.sampler, BlockKind::kFactor, MfOwnSamplers());
  ResolveChainOptions(app, o.config.chain, o.basics);
  o.rmsprop_lambda_given = app.count("--rmsprop-lambda") > 0;
  o.argv = SelfContainedArgs(app, args);
  o.input.seed = o.config.chain.split_seed;  // the held-out split and the tile grid
  RecordDefaults(o.basics.run_config, ResolveMfOptions(o));
  if (o.basics.resume.empty() && o.input.train.empty())
    throw UsageError("--train", "a training file is required (or --resume DIR)");
  if (!o.input.test.empty() && o.input.test_fraction > 0)
    throw UsageError("--test-fraction", "give either --test or --test-fraction, not both");
  return o;
}

// The run's configuration: the lines every run starts with, then mf's.
std::vector<std::pair<std::string, std::string>> MfComments(const MfCommandOptions& o, int ranks,
                                                            const io::LoadedMf& data) {
  auto lines = RunHeadLines("mf", o.argv, ranks, o.config.chain.tiles);
  for (auto& line : MfConfigurationLines(o, data)) lines.push_back(std::move(line));
  return lines;
}

io::MfModelSummary ModelSummary(const MfConfig& c, const io::LoadedMf& data, const BpmfModel& model,
                                std::uint64_t posterior_draws) {
  io::MfModelSummary m;
  m.version = kVersion;
  m.sampler = c.sampler.name;
  m.seed = c.chain.seed;
  m.tiles = c.chain.tiles;
  const ChainOptions chain = c.chain.Resolved();
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
      ResolveBurnInOfPasses(kMfBurnInPasses, config.chain.tiles, config.chain.iterations,
                            config.chain.burn_in, options.basics, start.recorded_args);
    if (!options.basics.eval_every_given)
      ResolveEvalEveryOfPasses(kMfEvalEveryPasses, config.chain.tiles, config.chain.eval_every,
                               config.chain.thin, options.basics, start.recorded_args);
    RunCollectively(comm, [&] {
      if (options.step_warmup > 0 &&
          static_cast<std::uint64_t>(options.step_warmup) > config.chain.burn_in)
        throw UsageError("--step-warmup", "must not exceed --burn-in (" +
                                              std::to_string(config.chain.burn_in) +
                                              "): the samples kept must follow the step schedule");
    });
    options.input.tiles = config.chain.tiles;
    options.input.balance_columns = true;  // mf's item blocks hold about equal ratings each
  }

  static Data Load(Communicator& comm, Options& options, RunStart&) {
    MfConfig& config = options.config;
    Data data;
    static_cast<io::LoadedMf&>(data) = io::LoadMf(comm, options.input);
    config.chain.schedule =
        ResolveFactorSchedule(comm, options.basics, config.sampler, config.chain.tiles);
    RunCollectively(comm, [&] {  // the id maps are the same on every rank
      config.draws =
          ResolveDrawSelection(options.save_draws, data.users, data.items, config.chain.seed);
    });
    RecordDefaults(options.basics.run_config, ResolveMfDefaults(options, data.problem));
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
                             io::CommentBlock(MfComments(options, 1, data)), options.basics.quiet);
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
                                                                   const Data& data, const Model&) {
    return MfConfigurationLines(options, data);
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
    return MfStatus(model.trace().back(), HasTest(data));
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
