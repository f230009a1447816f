// `carousel amf`: alpha-stable non-negative matrix factorisation with mirroring (HAMCMC
// Sec. 4.2, Eq. 14-15; model/amf/amf_model.hpp) on the tile engine: options, the mf loader,
// the chain driver; its outputs: model/amf/amf_outputs.hpp.
#include <CLI/CLI.hpp>
#include <cstdio>

#include "carousel/cli/command_support.hpp"
#include "carousel/cli/commands.hpp"
#include "carousel/cli/declared_options.hpp"
#include "carousel/cli/kept_samples.hpp"
#include "carousel/cli/model_pipeline.hpp"
#include "carousel/cli/sampler_options.hpp"
#include "carousel/comm/collective.hpp"
#include "carousel/io/dense_npy_loader.hpp"
#include "carousel/io/mf_loader.hpp"
#include "carousel/io/text_output.hpp"
#include "carousel/model/amf/amf_input.hpp"
#include "carousel/model/amf/amf_model.hpp"
#include "carousel/model/amf/amf_options.hpp"
#include "carousel/model/amf/amf_outputs.hpp"
#include "carousel/model/bpmf/mf_outputs.hpp"
#include "carousel/model/draws_table.hpp"
#include "carousel/util/error.hpp"

namespace carousel::cli {
namespace {

struct AmfCommandOptions : AmfOptions {
  RunBasics basics{"carousel-out"};
  std::vector<std::string> argv;
};

AmfCommandOptions ParseAmf(const std::vector<std::string>& args) {
  AmfCommandOptions o;
  auto& c = o.config;
  CLI::App app{
      "carousel amf: alpha-stable non-negative matrix factorization (HAMCMC Sec. 4.2) "
      "by distributed SG-MCMC with mirroring",
      "carousel amf"};
  SetUpCommandApp(app);
  OptionDeclarer declare(app);
  DeclareAmfOptions(declare, o);
  AddChainOptions(app, c.chain, o.basics);
  ParseOrThrow(app, args, "carousel amf");
  CheckSamplerChoice(c.sampler, BlockKind::kFactor);
  ResolveChainOptions(app, c.chain, o.basics);
  o.rmsprop_lambda_given = app.count("--rmsprop-lambda") > 0;
  o.initial_metric_given = app.count("--initial-metric") > 0;
  o.argv = SelfContainedArgs(app, args);
  o.input.seed = c.chain.split_seed;  // the tile grid
  CheckAmfOptions(o);
  if (o.basics.resume.empty() && o.input.train.empty())
    throw UsageError("--train", "a training file is required (or --resume DIR)");
  return o;
}

struct AmfData : io::LoadedMf {
  bool dense = false;                               // a dense .npy: every element observed
  Eigen::Index fixed_cols = 0;                      // --fix-rows' columns of W
  std::unique_ptr<io::SampleWriter> sample_writer;  // rank 0, with --keep-samples
};

struct AmfCommand : ModelSpecDefaults {
  static constexpr const char* kName = "amf";
  using Options = AmfCommandOptions;
  using Model = AmfModel;
  using Data = AmfData;

  static Options Parse(const std::vector<std::string>& args) { return ParseAmf(args); }

  static void ResolveWithTiles(Communicator& comm, Options& options, RunStart&) {
    AmfConfig& config = options.config;
    options.input.tiles = config.chain.tiles;
    config.chain.schedule =
        ResolveFactorSchedule(comm, options.basics, config.sampler, config.chain.tiles);
  }

  static Data Load(Communicator& comm, Options& options, RunStart&);

  static std::unique_ptr<Model> Make(Options& options, Data& data) {
    return std::make_unique<AmfModel>(options.config, data.problem, std::move(data.share));
  }
  static void Started(Communicator& comm, Options& options, Data& data, Model& model) {
    data.fixed_cols = options.config.fixed_w.cols();
    options.config.fixed_w = Eigen::MatrixXf();  // the model keeps each rank's rows
    data.sample_writer = StartSampleWriter(comm, options.basics.out, options.config.keep_samples,
                                           data.problem.rows, options.config.rank);
    model.SetSampleSink(data.sample_writer.get());
  }

  static std::vector<std::pair<std::string, std::string>> Comments(const Options& options,
                                                                   const Data& data, const Model&) {
    return AmfConfigurationLines(options, data.problem, data.dense, data.fixed_cols);
  }

  static void WriteTrace(const std::string& path, const std::string& comments, const Model& model) {
    io::WriteAmfTrace(path, comments, model.trace());
  }
  static DrawsTable Draws(const Model& model) { return io::AmfDraws(model.trace()); }

  static std::string Status(const Model& model, const Data&) {
    return AmfStatus(model.trace().back());
  }

  static void Finish(Communicator& comm, const Options& options, const Data& data, Model& model,
                     const RunEnd& end);
};

AmfData AmfCommand::Load(Communicator& comm, Options& options, RunStart&) {
  AmfConfig& config = options.config;
  // Dense .npy input: every element observed, any real value (the model is symmetric), or
  // complex (the paper's likelihood, Eq. 15). Sparse input: non-negative magnitudes.
  Data data;
  data.dense = io::IsNpyFile(options.input.train);
  if (data.dense) {
    io::LoadedDense loaded =
        io::LoadDenseNpy(comm, options.input.train, config.chain.tiles, options.input.seed);
    static_cast<io::LoadedMf&>(data) = std::move(loaded.data);
    if (loaded.complex) config.likelihood = AmfLikelihood::kComplex;
  } else {
    static_cast<io::LoadedMf&>(data) = io::LoadMf(comm, options.input);
    RejectNegativeEntries(comm, options.input, data.problem);
  }
  if (!options.fix_rows.empty())
    config.fixed_w = ReadFixedRows(comm, options.fix_rows, data.problem.rows, config.rank);
  // The alpha-Wiener reconstruction needs the fixed part and a rest, on every entry.
  config.reconstruct =
      data.dense && config.fixed_w.cols() > 0 && config.fixed_w.cols() < config.rank;
  RecordDefaults(options.basics.run_config, ResolveAmfDefaults(options, data.problem));
  return data;
}

// W and H's posterior means and variances (rows x K, columns x K), the reconstruction,
// the id maps of sparse input, model.json and the closing line.
void AmfCommand::Finish(Communicator& comm, const Options& options, const Data& data, Model& model,
                        const RunEnd& end) {
  const AmfConfig& config = options.config;
  const std::string& out = options.basics.out;
  io::AmfMoments moments;
  model.PosteriorMeans(moments.w_mean, moments.h_mean);
  model.PosteriorVariances(moments.w_var, moments.h_var);
  if (config.reconstruct) model.Reconstruction(moments.reconstruction);
  RunCollectively(comm, [&] {
    if (comm.rank() != 0) return;  // RunChain wrote the trace as it stands at the end
    io::RunModelJson description =
        RunDescription(kName, config.sampler.name, config.chain.Resolved());
    DescribeAmfRun(config, data.problem, data.dense, model, description);
    // Sparse input names its rows and columns.
    description.files = io::WriteAmfArrays(out, moments, data.dense ? nullptr : &data.users,
                                           data.dense ? nullptr : &data.items);
    io::RemoveStaleSamples(out, model.samples_taken().size());
    io::WriteRunModelJson(out, description);
    const AmfTraceRow& last = model.trace().back();
    std::printf(
        "carousel amf: %llu iterations on %d rank(s) in %.2f s; training log-likelihood %.6g "
        "(given Phi), Phi acceptance %.3f; posterior means of %llu samples in %s\n",
        static_cast<unsigned long long>(last.iteration), comm.size(), end.engine.seconds_running(),
        last.log_likelihood, last.acceptance, static_cast<unsigned long long>(model.collected()),
        out.c_str());
  });
}

}  // namespace

int RunAmfCommand(Communicator& comm, const std::vector<std::string>& args) {
  return RunModelCommand<AmfCommand>(comm, args);
}

}  // namespace carousel::cli
