// `carousel dpmix`: a Dirichlet-process mixture of multinomials by distributed SG-MCMC (SCIR
// paper Sec. 4.2; model/dpmix/dpmix_model.hpp). Reads the corpora `carousel lda` reads: a row
// is an observation, a column a category. Its outputs: model/dpmix/dpmix_outputs.hpp.
#include <CLI/CLI.hpp>
#include <cstdio>

#include "carousel/cli/command_support.hpp"
#include "carousel/cli/commands.hpp"
#include "carousel/cli/declared_options.hpp"
#include "carousel/cli/model_pipeline.hpp"
#include "carousel/comm/collective.hpp"
#include "carousel/io/corpus_loader.hpp"
#include "carousel/io/text_output.hpp"
#include "carousel/model/dpmix/dpmix_model.hpp"
#include "carousel/model/dpmix/dpmix_options.hpp"
#include "carousel/model/dpmix/dpmix_outputs.hpp"
#include "carousel/model/draws_table.hpp"
#include "carousel/util/error.hpp"

namespace carousel::cli {
namespace {

struct DpmixCommandOptions : DpmixOptions {
  RunBasics basics{"carousel-dpmix-out"};
  std::vector<std::string> argv;
};

DpmixCommandOptions ParseDpmix(const std::vector<std::string>& args) {
  DpmixCommandOptions o;
  CLI::App app{
      "carousel dpmix: Dirichlet-process mixture of multinomials by distributed "
      "SG-MCMC (minibatched slice sampler; SCIR or SGRLD)",
      "carousel dpmix"};
  SetUpCommandApp(app);
  OptionDeclarer declare(app);
  DeclareDpmixOptions(declare, o);
  AddChainOptions(app, o.config.chain, o.basics);
  ParseOrThrow(app, args, "carousel dpmix");
  ResolveChainOptions(app, o.config.chain, o.basics);
  o.config.chain.schedule = ResolveSchedule(o.basics);
  o.argv = SelfContainedArgs(app, args);
  RecordDefaults(o.basics.run_config, ResolveDpmixOptions(o));
  if (o.basics.resume.empty() && o.corpus.empty())
    throw UsageError("--corpus", "a corpus file is required (or --resume DIR)");
  return o;
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
    Data data{LoadCommandCorpus(comm, options.corpus, options.vocab, options.format,
                                config.chain.tiles, config.chain.split_seed),
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
                                                                   const Data& data, const Model&) {
    return DpmixConfigurationLines(options, data.share, data.survey);
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
    return DpmixStatus(model.trace().back(), data.survey.held_out > 0);
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
    io::RunModelJson description = RunDescription(kName, options.sampler, config.chain.Resolved());
    DescribeDpmixRun(config, corpus.vocabulary, K, !corpus.vocab.empty(), description);
    io::WriteRunModelJson(out, description);
    const DpmixTraceRow& last = model.trace().back();
    const std::string fit = DpmixFit(last, data.survey.held_out > 0, config.test_fraction);
    std::printf(
        "carousel dpmix: %llu iterations on %d rank(s) in %.2f s (%.2f s sampling); %s; %zu "
        "occupied components, alpha %.4g; output in %s\n",
        static_cast<unsigned long long>(last.iteration), comm.size(), end.engine.seconds_running(),
        model.seconds_sampling(), fit.c_str(), K, last.alpha, out.c_str());
  });
}

}  // namespace

int RunDpmixCommand(Communicator& comm, const std::vector<std::string>& args) {
  return RunModelCommand<DpmixCommand>(comm, args);
}

}  // namespace carousel::cli
