// `carousel amf`: the command adapter of model/amf/amf_spec.hpp (cli/model_pipeline.hpp).
#include "carousel/cli/commands.hpp"
#include "carousel/cli/model_pipeline.hpp"
#include "carousel/model/amf/amf_spec.hpp"

namespace carousel::cli {
namespace {

struct AmfCommand : AmfSpec {
  using Options = CommandOptions<ModelOptions>;

  static void Resolve(const CLI::App& app, Options& o) {
    CheckSamplerChoice(o.config.sampler, BlockKind::kFactor);
    o.rmsprop_lambda_given = app.count("--rmsprop-lambda") > 0;
    o.initial_metric_given = app.count("--initial-metric") > 0;
    o.input.seed = o.config.chain.split_seed;  // the tile grid
    CheckAmfOptions(o);
  }

  static void ResolveWithTiles(Communicator& comm, Options& o, RunStart&) {
    o.input.tiles = o.config.chain.tiles;
    o.config.chain.schedule =
        ResolveFactorSchedule(comm, o.basics, o.config.sampler, o.config.chain.tiles);
  }

  static Data Load(Communicator& comm, Options& o, RunStart&) {
    Data data = LoadAmfData(comm, o);
    RecordDefaults(o.basics.run_config, ResolveAmfDefaults(o, data.problem));
    return data;
  }

  static void Started(Communicator& comm, Options& o, Data& data, Model& model) {
    data.fixed_cols = o.config.fixed_w.cols();
    o.config.fixed_w = Eigen::MatrixXf();  // the model keeps each rank's rows
    data.sample_writer = io::StartSampleWriter(comm, o.basics.out, o.config.keep_samples,
                                               data.problem.rows, o.config.rank);
    model.SetSampleSink(data.sample_writer.get());
  }

  // W and H's posterior moments (rows x K, columns x K), the reconstruction, the id maps of
  // sparse input, model.json and the closing line.
  static std::string Finish(Communicator& comm, const Options& o, const Data& data, Model& model,
                            const RunEnd& end) {
    io::WriteAmfRunOutputs(comm, o.basics.out, o.config, data, data.dense, model,
                           RunDescription(kName, o.config.sampler.name, o.config.chain.Resolved()));
    if (comm.rank() != 0) return {};
    return AmfClosing(model, comm.size(), end.engine.seconds_running(), o.basics.out);
  }
};

}  // namespace

int RunAmfCommand(Communicator& comm, const std::vector<std::string>& args) {
  return RunModelCommand<AmfCommand>(comm, args);
}

OptionList AmfGivenOptions(const std::vector<std::string>& args) {
  return GivenOptionsOf<AmfCommand>(args);
}

}  // namespace carousel::cli
