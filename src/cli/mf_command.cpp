// `carousel mf`: the command adapter of model/bpmf/mf_spec.hpp (cli/model_pipeline.hpp).
#include "carousel/cli/commands.hpp"
#include "carousel/cli/model_pipeline.hpp"
#include "carousel/model/bpmf/mf_draw_selection.hpp"
#include "carousel/model/bpmf/mf_gibbs_run.hpp"
#include "carousel/model/bpmf/mf_spec.hpp"
#include "carousel/version.hpp"

namespace carousel::cli {
namespace {

struct MfCommand : MfSpec {
  using Options = CommandOptions<ModelOptions>;

  static void Resolve(const CLI::App& app, Options& o) {
    CheckSamplerChoice(o.config.sampler, BlockKind::kFactor, MfOwnSamplers());
    o.rmsprop_lambda_given = app.count("--rmsprop-lambda") > 0;
    o.input.seed = o.config.chain.split_seed;  // the held-out split and the tile grid
    RecordDefaults(o.basics.run_config, ResolveMfOptions(o));
    if (!o.input.test.empty() && o.input.test_fraction > 0)
      throw UsageError("--test-fraction", "give either --test or --test-fraction, not both");
  }

  static Data Load(Communicator& comm, Options& o, RunStart&) {
    RunCollectively(comm, [&] { CheckStepWarmup(o.step_warmup, o.config.chain.burn_in); });
    o.input.tiles = o.config.chain.tiles;
    o.input.balance_columns = true;  // mf's item blocks hold about equal ratings each
    Data data;
    static_cast<io::LoadedMf&>(data) = io::LoadMf(comm, o.input);
    o.config.chain.schedule =
        ResolveFactorSchedule(comm, o.basics, o.config.sampler, o.config.chain.tiles);
    RunCollectively(comm, [&] {  // the id maps are the same on every rank
      o.config.draws =
          ResolveDrawSelection(o.save_draws, data.users, data.items, o.config.chain.seed);
    });
    RecordDefaults(o.basics.run_config, ResolveMfDefaults(o, data.problem));
    return data;
  }

  // --sampler gibbs: the exact Gibbs sampler for the same model, not a chain of the engine.
  static std::optional<int> RunInstead(Communicator& comm, Options& o, Data& data) {
    if (!IsMfGibbsReference(o.config.sampler.name)) return std::nullopt;
    RunCollectively(comm, [&] { CheckGibbsReference(comm.size(), o.config.keep_samples); });
    WriteRunConfig(comm, kName, o.basics);
    return RunGibbsReference(o.basics.out, o.config, data,
                             RunComments(kName, o, 1, MfConfigurationLines(o, data)),
                             o.basics.quiet);
  }

  static void Started(Communicator& comm, Options& o, Data& data, Model& model) {
    data.sample_writer = io::StartSampleWriter(comm, o.basics.out, o.config.keep_samples,
                                               data.problem.rows, o.config.shape.width());
    model.SetSampleSink(data.sample_writer.get());
  }

  // predictions.csv, the factor arrays, the kept samples, model.json and the closing lines.
  static std::string Finish(Communicator& comm, const Options& o, const Data& data, Model& model,
                            const RunEnd& end) {
    const io::MfRunResult result =
        io::WriteMfRunOutputs(comm, o.basics.out, end.comments, o.config, data, model, kVersion);
    if (comm.rank() != 0) return {};
    return MfClosing(data, model, result, comm.size(), end.engine.seconds_running(), o.basics.out);
  }
};

}  // namespace

int RunMfCommand(Communicator& comm, const std::vector<std::string>& args) {
  return RunModelCommand<MfCommand>(comm, args);
}

OptionList MfGivenOptions(const std::vector<std::string>& args) {
  return GivenOptionsOf<MfCommand>(args);
}

}  // namespace carousel::cli
