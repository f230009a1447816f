// `carousel sam`: the command adapter of model/sam/sam_spec.hpp (cli/model_pipeline.hpp), and
// `carousel sam infer`.
#include "carousel/cli/commands.hpp"
#include "carousel/cli/model_pipeline.hpp"
#include "carousel/model/sam/sam_spec.hpp"

namespace carousel::cli {
namespace {

struct SamCommand : SamSpec {
  using Options = CommandOptions<ModelOptions>;

  static void Resolve(const CLI::App& app, Options& o) {
    o.friction_given = app.count("--friction") > 0;
    o.thermostat_given = app.count("--thermostat-initial") > 0;
    o.config.chain.schedule = ResolveSchedule(o.basics);
    CheckSamplerChoice(o.sampler, BlockKind::kSphere);
    CheckSamOptions(o);
  }

  static Data Load(Communicator& comm, Options& o, RunStart&) {
    SamConfig& config = o.config;
    Data data{LoadCommandCorpus(comm, o.corpus, o.vocab, o.format, config.chain.tiles,
                                config.chain.split_seed),
              {},
              {}};
    RunCollectively(comm, [&] { data.sam = BuildSamCorpus(comm, data.share, config.tfidf); });
    data.survey = SurveySamCorpus(comm, data.sam.corpus, config);
    RunCollectively(comm, [&] {
      if (data.survey.counts.train_documents == 0)
        throw InputError(data.share.path, "no training documents with a kept word (" +
                                              std::to_string(data.sam.corpus.vocabulary.size()) +
                                              " words kept; widen --min-df/--max-df)");
      RecordDefaults(o.basics.run_config, ResolveSamStep(o, data.survey.counts.train_documents));
    });
    return data;
  }

  static std::string Finish(Communicator& comm, const Options& o, const Data& data, Model& model,
                            const RunEnd& end) {
    io::WriteSamRunOutputs(comm, o.basics.out, end.comments, o.config, data.sam.corpus,
                           data.share.vocab, data.survey.held_out.ids, model,
                           RunDescription(kName, o.sampler.name, o.config.chain.Resolved()));
    if (comm.rank() != 0) return {};
    return SamClosing(model, data.survey.counts, data.sam.corpus.vocabulary.size(), comm.size(),
                      end.engine.seconds_running(), o.basics.out);
  }
};

}  // namespace

int RunSamCommand(Communicator& comm, const std::vector<std::string>& args) {
  if (!args.empty() && args[0] == "infer")
    return RunSamInferCommand(comm, {args.begin() + 1, args.end()});
  return RunModelCommand<SamCommand>(comm, args);
}

OptionList SamGivenOptions(const std::vector<std::string>& args) {
  return GivenOptionsOf<SamCommand>(args);
}

}  // namespace carousel::cli
