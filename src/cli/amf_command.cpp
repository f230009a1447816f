// `carousel amf`: alpha-stable non-negative matrix factorisation with mirroring (HAMCMC
// Sec. 4.2, Eq. 14-15; model/amf/amf_model.hpp) on the tile engine: options, the mf loader,
// the chain driver; its outputs: model/amf/amf_outputs.hpp.
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
#include "carousel/cli/kept_samples.hpp"
#include "carousel/cli/model_pipeline.hpp"
#include "carousel/cli/sampler_options.hpp"
#include "carousel/comm/collective.hpp"
#include "carousel/engine/tile_engine.hpp"
#include "carousel/io/atomic_file.hpp"
#include "carousel/io/dense_npy_loader.hpp"
#include "carousel/io/json.hpp"
#include "carousel/io/mf_loader.hpp"
#include "carousel/io/npy.hpp"
#include "carousel/io/ratings_reader.hpp"
#include "carousel/io/text_output.hpp"
#include "carousel/model/amf/amf_defaults.hpp"
#include "carousel/model/amf/amf_model.hpp"
#include "carousel/model/amf/amf_outputs.hpp"
#include "carousel/model/bpmf/mf_defaults.hpp"
#include "carousel/model/bpmf/mf_outputs.hpp"
#include "carousel/model/draws_table.hpp"
#include "carousel/model/sample_plan.hpp"
#include "carousel/util/error.hpp"
#include "carousel/version.hpp"

namespace carousel::cli {
namespace {

struct AmfCommandOptions {
  io::MfInput input;
  std::string format = "auto";
  std::string fix_rows;  // --fix-rows W.npy
  AmfConfig config;
  bool rmsprop_lambda_given = false;  // else PSGLD's floor is mf's, 2 / entries
  bool initial_metric_given = false;  // else HAMCMC's H^0 is gamma I: the model has no metric
  long long keep_samples = -1;        // < 0: from the data (DefaultKeepSamples)
  RunBasics basics{"carousel-out"};
  std::vector<std::string> argv;
};

AmfCommandOptions ParseAmf(const std::vector<std::string>& args) {
  AmfCommandOptions o;
  auto& c = o.config;
  c.tiles = 0;  // one tile per rank unless given
  c.sampler.name = "psgld";
  c.step.a = -1.0;  // < 0: mf's default for the sampler and the data (DefaultMfStep)
  CLI::App app{
      "carousel amf: alpha-stable non-negative matrix factorization (HAMCMC Sec. 4.2) "
      "by distributed SG-MCMC with mirroring",
      "carousel amf"};
  SetUpCommandApp(app);
  app.add_option("--train", o.input.train,
                 "X: a dense 2-d .npy (float32/64: any real values; complex64/128: the model "
                 "of complex data), or non-negative entries in any carousel mf format");
  app.add_option("--format", o.format, "auto|movielens|whitespace|csv|mtx (sparse input)");
  app.add_option("--fix-rows", o.fix_rows,
                 "I x K_f non-negative .npy (float32/64), K_f <= --rank: the first K_f columns "
                 "of W, fixed (rows in W_mean.npy's order; dense input: row index)");
  app.add_option("--rank", c.rank, "number of latent factors K")->check(Within(1, 4096));
  app.add_option("--alpha", c.alpha, "stability index alpha of Eq. 14 (2: Gaussian)")
      ->check(Within(0.2, 2.0));
  app.add_option("--lambda-w", c.lambda_w, "rate of W's Exponential prior")->check(Positive());
  app.add_option("--lambda-h", c.lambda_h, "rate of H's Exponential prior")->check(Positive());
  app.add_option("--init-sd", c.init_sd,
                 "W and H start at c exp(s z), z standard normal, K c^2 = mean(x)^alpha")
      ->check(Within(0.0, 10.0));
  AddSamplerOptions(app, c.sampler, BlockKind::kFactor);
  // HAMCMC's H^0: the model supplies no metric, so gamma I unless given (RunAmfCommand).
  app.get_option("--initial-metric")->default_str("identity");
  app.add_option("--step", c.step.a, "step size a of a(b + t)^-c")
      ->check(Positive())
      ->default_str("per sampler, from the data, as carousel mf's");
  app.add_option("--step-offset", c.step.b, "b of a(b + t)^-c")->check(Within(1e-9, 1e18));
  app.add_option("--step-decay", c.step.c, "c of a(b + t)^-c; 0 = constant")
      ->check(Within(0.0, 1.0));
  AddKeepSamplesOption(app, o.keep_samples, "as many as fit in 256 MiB, from 2 to 20");
  AddChainOptions(app, c, o.basics);
  ParseOrThrow(app, args, "carousel amf");
  // Every factor sampler of the registry, mirrored after its update (amf_model.hpp); the
  // coupled ones (hamcmc, sgnht) step W and H together. sgrld / sgrhmc need a metric the
  // model does not supply, and the registry says so when it builds them.
  CheckSamplerChoice(c.sampler, BlockKind::kFactor);
  ResolveChainOptions(app, c, o.basics);
  o.rmsprop_lambda_given = app.count("--rmsprop-lambda") > 0;
  o.initial_metric_given = app.count("--initial-metric") > 0;
  o.argv = SelfContainedArgs(app, args);
  o.input.seed = c.split_seed;  // the tile grid
  o.input.format = io::ParseRatingsFormat(o.format);
  if (o.basics.resume.empty() && o.input.train.empty())
    throw UsageError("--train", "a training file is required (or --resume DIR)");
  if (o.format != "auto" && io::IsNpyFile(o.input.train))
    throw UsageError("--format", "applies to sparse input, not the .npy file " + o.input.train);
  return o;
}

// The model needs X >= 0. The loader keeps no line numbers, so when its range of values
// reaches below 0, rank 0 reads the file whole to name the first negative entry's line.
void RejectNegative(Communicator& comm, const io::MfInput& input, const MfProblem& problem) {
  RunCollectively(comm, [&] {
    if (!(problem.lo < 0.0f) || comm.rank() != 0) return;
    const io::RatingsFile file = io::ReadRatings(input.train, input.format);
    for (const io::RawRating& r : file.ratings)
      if (r.value < 0.0)
        throw InputError(input.train + ":" + std::to_string(r.line),
                         "negative value " + io::FormatReal(r.value) +
                             " (alpha-stable NMF needs non-negative data)");
    throw InputError(input.train, "negative values (alpha-stable NMF needs non-negative data)");
  });
  // The other ranks learn of rank 0's error from RunCollectively; a clean file passes.
}

// --fix-rows: I x K_f, 1 <= K_f <= K, every element finite and >= 0; read whole by every
// rank (it is the size of K_f columns of W), which keeps its own rows in AmfModel::Attach.
Eigen::MatrixXf ReadFixedRows(Communicator& comm, const std::string& path, std::uint32_t rows,
                              int rank) {
  Eigen::MatrixXf fixed;
  RunCollectively(comm, [&] {
    const io::NpyArray npy = io::ReadNpy(path);
    const bool wide = npy.descr == "<f8";
    if ((npy.descr != "<f4" && !wide) || npy.fortran_order)
      throw InputError(path, "--fix-rows needs a C-order float32 or float64 array, not '" +
                                 npy.descr + "'" + (npy.fortran_order ? " in Fortran order" : ""));
    std::string shape;
    for (std::size_t d : npy.shape) shape += (shape.empty() ? "" : ", ") + std::to_string(d);
    if (npy.shape.size() != 2 || npy.shape[0] != rows || npy.shape[1] < 1 ||
        npy.shape[1] > static_cast<std::size_t>(rank))
      throw InputError(path, "--fix-rows has shape (" + shape + "), expected (" +
                                 std::to_string(rows) + ", K_f): a row for each of the " +
                                 std::to_string(rows) + " rows of X and 1 <= K_f <= --rank " +
                                 std::to_string(rank));
    const auto cols = static_cast<Eigen::Index>(npy.shape[1]);
    fixed.resize(rows, cols);
    for (Eigen::Index i = 0; i < fixed.rows(); ++i)
      for (Eigen::Index k = 0; k < cols; ++k) {
        const std::size_t e = static_cast<std::size_t>(i * cols + k);
        double x;
        if (wide) {
          std::memcpy(&x, npy.data.data() + e * sizeof x, sizeof x);
        } else {
          float f;
          std::memcpy(&f, npy.data.data() + e * sizeof f, sizeof f);
          x = f;
        }
        if (!std::isfinite(x) || x < 0.0 || !std::isfinite(static_cast<float>(x)))
          throw InputError(path, "element [" + std::to_string(i) + ", " + std::to_string(k) +
                                     "] is " + io::FormatReal(x) +
                                     " (fixed rows of W must be finite and non-negative)");
        fixed(i, k) = static_cast<float>(x);
      }
  });
  return fixed;
}

std::vector<std::pair<std::string, std::string>> AmfComments(const AmfCommandOptions& o, int ranks,
                                                             const MfProblem& problem, bool dense,
                                                             Eigen::Index fixed_cols) {
  const AmfConfig& c = o.config;
  return {{"carousel", kVersion},
          {"command", "carousel amf " + JoinArgs(o.argv)},
          {"ranks", std::to_string(ranks)},
          {"tiles", std::to_string(c.tiles)},
          {"sampler", c.sampler.name + " + mirroring (|.| after each block update)"},
          {"step", io::FormatReal(c.step.a) + " * (" + io::FormatReal(c.step.b) + " + t)^-" +
                       io::FormatReal(c.step.c)},
          {"rank", std::to_string(c.rank)},
          {"alpha", io::FormatReal(c.alpha)},
          {"likelihood", AmfLikelihoodName(c.likelihood)},
          {"input", dense ? "dense .npy, every element observed" : "sparse entries"},
          {"fix_rows", o.fix_rows.empty() ? "none"
                                          : o.fix_rows + " (the first " +
                                                std::to_string(fixed_cols) + " columns of W)"},
          {"prior", "W ~ Exponential(" + io::FormatReal(c.lambda_w) + "), H ~ Exponential(" +
                        io::FormatReal(c.lambda_h) + ")"},
          {"schedule", o.basics.schedule},
          {"iterations", std::to_string(c.iterations)},
          {"burn_in", std::to_string(c.burn_in)},
          {"eval_every", std::to_string(c.eval_every)},
          {"seed", std::to_string(c.seed)},
          {"train", o.input.train},
          {"rows", std::to_string(problem.rows)},
          {"cols", std::to_string(problem.cols)},
          {"entries", std::to_string(problem.train_count)}};
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
    options.input.tiles = config.tiles;
    config.schedule = ResolveFactorSchedule(comm, options.basics, config.sampler, config.tiles);
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
                                                                   int ranks, const Data& data,
                                                                   const Model&) {
    return AmfComments(options, ranks, data.problem, data.dense, data.fixed_cols);
  }

  static void WriteTrace(const std::string& path, const std::string& comments, const Model& model) {
    io::WriteAmfTrace(path, comments, model.trace());
  }
  static DrawsTable Draws(const Model& model) { return io::AmfDraws(model.trace()); }

  static std::string Status(const Model& model, const Data&) {
    const AmfTraceRow& row = model.trace().back();
    char status[96];
    std::snprintf(status, sizeof status, "log-likelihood %.6g, Phi acceptance %.3f",
                  row.log_likelihood, row.acceptance);
    return std::string(status);
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
        io::LoadDenseNpy(comm, options.input.train, config.tiles, options.input.seed);
    static_cast<io::LoadedMf&>(data) = std::move(loaded.data);
    if (loaded.complex) config.likelihood = AmfLikelihood::kComplex;
  } else {
    static_cast<io::LoadedMf&>(data) = io::LoadMf(comm, options.input);
    RejectNegative(comm, options.input, data.problem);
  }
  if (!options.fix_rows.empty())
    config.fixed_w = ReadFixedRows(comm, options.fix_rows, data.problem.rows, config.rank);
  // The alpha-Wiener reconstruction needs the fixed part and a rest, on every entry.
  config.reconstruct =
      data.dense && config.fixed_w.cols() > 0 && config.fixed_w.cols() < config.rank;
  if (!options.initial_metric_given) {
    config.sampler.initial_metric = "identity";
    options.basics.run_config.Resolve("--initial-metric", "identity",
                                      "amf's default: the model supplies no metric");
  }
  // PSGLD's step and floor are given per entry, as carousel mf's (mf_defaults.hpp): the
  // preconditioner sees the mean gradient over the stratum, which shrinks like 1 / N.
  if (config.step.a <= 0) {
    config.step.a = DefaultAmfStep(config.sampler, data.problem, config.tiles);
    options.basics.run_config.Resolve("--step", io::FormatReal(config.step.a),
                                      "the sampler's default for this data");
  }
  if (!options.rmsprop_lambda_given) {
    config.sampler.rmsprop_lambda = DefaultRmspropLambda(data.problem);
    options.basics.run_config.Resolve("--rmsprop-lambda",
                                      io::FormatReal(config.sampler.rmsprop_lambda),
                                      "the default, 2 / training entries");
  }
  config.keep_samples = ResolveKeepSamples(
      options.keep_samples, DefaultKeepSamples(data.problem.rows, data.problem.cols, config.rank),
      options.basics.run_config);
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
    io::RunModelJson description = RunDescription("amf", config.sampler.name, config.chain());
    description.facts = {
        {"rank", std::to_string(config.rank)},
        {"alpha", io::JsonNumber(config.alpha)},
        {"lambda_w", io::JsonNumber(config.lambda_w)},
        {"lambda_h", io::JsonNumber(config.lambda_h)},
        {"rows", std::to_string(data.problem.rows)},
        {"cols", std::to_string(data.problem.cols)},
        {"likelihood",
         io::JsonString(config.likelihood == AmfLikelihood::kComplex ? "complex" : "real")},
        {"dense", data.dense ? "true" : "false"},
        {"posterior_draws", std::to_string(model.collected())},
        {"sample_dtype", io::JsonString("float32")},
        {"sample_columns", std::to_string(config.rank)},
        {"samples", io::SamplesJson(model.samples_taken())}};
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
