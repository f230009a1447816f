// `carousel dpmix`: the command adapter of model/dpmix/dpmix_spec.hpp (cli/model_pipeline.hpp).
#include "carousel/cli/commands.hpp"
#include "carousel/cli/model_pipeline.hpp"
#include "carousel/model/dpmix/dpmix_spec.hpp"

namespace carousel::cli {
namespace {

struct DpmixCommand : DpmixSpec {
  using Options = CommandOptions<ModelOptions>;

  static void Resolve(const CLI::App&, Options& o) {
    o.config.chain.schedule = ResolveSchedule(o.basics);
    RecordDefaults(o.basics.run_config, ResolveDpmixOptions(o));
  }

  static Data Load(Communicator& comm, Options& o, RunStart&) {
    Data data{LoadCommandCorpus(comm, o.corpus, o.vocab, o.format, o.config.chain.tiles,
                                o.config.chain.split_seed),
              {}};
    data.survey = SurveyDpmixShare(comm, data.share, o.config);
    return data;
  }

  // components.npy, clusters.csv, components.txt (with --vocab), model.json, the closing line.
  static std::string Finish(Communicator& comm, const Options& o, const Data& data, Model& model,
                            const RunEnd& end) {
    io::WriteDpmixRunOutputs(comm, o.basics.out, end.comments, o.config, data.share, model,
                             RunDescription(kName, o.sampler, o.config.chain.Resolved()));
    if (comm.rank() != 0) return {};
    return DpmixClosing(model, data.survey.held_out > 0, o.config.test_fraction, comm.size(),
                        end.engine.seconds_running(), o.basics.out);
  }
};

}  // namespace

int RunDpmixCommand(Communicator& comm, const std::vector<std::string>& args) {
  return RunModelCommand<DpmixCommand>(comm, args);
}

OptionList DpmixGivenOptions(const std::vector<std::string>& args) {
  return GivenOptionsOf<DpmixCommand>(args);
}

}  // namespace carousel::cli
