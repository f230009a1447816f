// `carousel lda`: the command adapter of model/lda/lda_spec.hpp (cli/model_pipeline.hpp),
// and `carousel lda infer`.
#include "carousel/cli/commands.hpp"
#include "carousel/cli/model_pipeline.hpp"
#include "carousel/driver/thread_ranks.hpp"
#include "carousel/model/lda/lda_spec.hpp"

namespace carousel::cli {
namespace {

struct LdaCommand : LdaSpec {
  using Options = CommandOptions<ModelOptions>;

  static void Resolve(const CLI::App& app, Options& o) {
    o.config.chain.schedule = ResolveSchedule(o.basics);
    o.gibbs_draw_given = app.count("--gibbs-draw") > 0;
    o.topic_word_mean_given = app.count("--topic-word-mean") > 0;
    o.sweeps_given = app.count("--sweeps") > 0;
    o.update_every_given = app.count("--update-every") > 0;
    RecordDefaults(o.basics.run_config, ResolveLdaOptions(o));
  }

  // A fresh run's defaults of today, recorded in the checkpoints' command line: a resumed
  // run's command line has them, or is older and keeps the defaults of then.
  static void ResolveWithTiles(Communicator&, Options& o, RunStart& start) {
    if (!start.fresh) return;
    if (!o.gibbs_draw_given) {
      o.config.gibbs_draw = GibbsDraw::kAuto;
      o.basics.run_config.Record("--gibbs-draw", "auto", "the default");
    }
    if (!o.topic_word_mean_given) {
      o.config.topic_word_mean = TopicWordMean::kAssignments;
      o.basics.run_config.Record("--topic-word-mean", "assignments", "the default");
    }
  }

  static Data Load(Communicator& comm, Options& o, RunStart& start) {
    LdaConfig& config = o.config;
    Data data{LoadCommandCorpus(comm, o.corpus, o.vocab, o.format, config.chain.tiles,
                                config.chain.split_seed, config.topics),
              {}};
    data.survey = SurveyCorpusShare(comm, data.share, config);
    // Resolved from the whole corpus's survey, so every rank resolves the same. A checkpoint
    // written before these defaults records no --update-every (no --sweeps) and resumes with
    // the 1 (the 2) of then.
    if (!o.update_every_given && start.fresh) {
      config.update_every =
          DefaultLdaUpdateEvery(config, data.survey.counts, data.share.vocabulary);
      o.basics.run_config.Record("--update-every", std::to_string(config.update_every),
                                 "the default: " + DefaultLdaUpdateEveryRule());
    }
    if (!o.sweeps_given && start.fresh) {
      config.sweeps = DefaultLdaSweeps(config, data.survey.counts, data.share.vocabulary);
      o.basics.run_config.Record("--sweeps", std::to_string(config.sweeps),
                                 "the default: " + DefaultLdaSweepsRule());
    }
    data.threads = o.threads > 0 ? o.threads : driver::DefaultWorkerThreads(comm.size());
    return data;
  }

  static std::string Finish(Communicator& comm, const Options& o, const Data& data, Model& model,
                            const RunEnd& end) {
    io::WriteLdaRunOutputs(comm, o.basics.out, end.comments, o.config, data.share, model,
                           RunDescription(kName, o.sampler, o.config.chain.Resolved()));
    return LdaClosing(comm, model, end.engine.seconds_running(), o.basics.out);
  }
};

}  // namespace

int RunLdaCommand(Communicator& comm, const std::vector<std::string>& args) {
  if (!args.empty() && args[0] == "infer")
    return RunLdaInferCommand(comm, {args.begin() + 1, args.end()});
  return RunModelCommand<LdaCommand>(comm, args);
}

OptionList LdaGivenOptions(const std::vector<std::string>& args) {
  return GivenOptionsOf<LdaCommand>(args);
}

}  // namespace carousel::cli
