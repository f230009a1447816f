// `carousel sam`: the spherical admixture model (model/sam/): its options, its tf-idf corpus,
// the engine and its outputs.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>

#include "carousel/cli/command_support.hpp"
#include "carousel/cli/commands.hpp"
#include "carousel/cli/declared_options.hpp"
#include "carousel/cli/model_pipeline.hpp"
#include "carousel/comm/collective.hpp"
#include "carousel/io/corpus_loader.hpp"
#include "carousel/io/text_output.hpp"
#include "carousel/model/lda/lda_outputs.hpp"
#include "carousel/model/sam/sam_corpus.hpp"
#include "carousel/model/sam/sam_model.hpp"
#include "carousel/model/sam/sam_options.hpp"
#include "carousel/model/sam/sam_outputs.hpp"
#include "carousel/model/sam/sam_survey.hpp"
#include "carousel/util/error.hpp"

namespace carousel::cli {
namespace {

struct SamCommandOptions : SamOptions {
  RunBasics basics{"carousel-sam-out"};
  std::vector<std::string> argv;
};

SamCommandOptions ParseSam(const std::vector<std::string>& args) {
  SamCommandOptions o;
  CLI::App app{
      "carousel sam: the spherical admixture model of tf-idf vectors by distributed "
      "geodesic SG-MCMC (Liu, Zhu and Song 2016)\n"
      "(carousel sam infer --help: topic proportions of new documents given a finished run)",
      "carousel sam"};
  SetUpCommandApp(app);
  OptionDeclarer declare(app);
  DeclareSamOptions(declare, o);
  AddChainOptions(app, o.config.chain, o.basics);
  ParseOrThrow(app, args, "carousel sam");
  ResolveChainOptions(app, o.config.chain, o.basics);
  o.friction_given = app.count("--friction") > 0;
  o.thermostat_given = app.count("--thermostat-initial") > 0;
  o.config.chain.schedule = ResolveSchedule(o.basics);
  o.argv = SelfContainedArgs(app, args);
  CheckSamplerChoice(o.sampler, BlockKind::kSphere);
  CheckSamOptions(o);
  if (o.basics.resume.empty() && o.corpus.empty())
    throw UsageError("--corpus", "a corpus file is required (or --resume DIR)");
  return o;
}

struct SamData : io::LoadedCorpus {
  SamCorpusShare sam;  // the tf-idf vectors of this rank's documents
  SamSurvey survey;
};

struct SamCommand : ModelSpecDefaults {
  static constexpr const char* kName = "sam";
  using Options = SamCommandOptions;
  using Model = SamModel;
  using Data = SamData;

  static Options Parse(const std::vector<std::string>& args) { return ParseSam(args); }

  static Data Load(Communicator& comm, Options& options, RunStart&) {
    SamConfig& config = options.config;
    Data data{LoadCommandCorpus(comm, options.corpus, options.vocab, options.format,
                                config.chain.tiles, config.chain.split_seed),
              {},
              {}};
    RunCollectively(comm, [&] { data.sam = BuildSamCorpus(comm, data.share, config.tfidf); });
    data.survey = SurveySamCorpus(comm, data.sam.corpus, config);
    RunCollectively(comm, [&] {
      if (data.survey.counts.train_documents == 0)
        throw InputError(data.share.path, "no training documents with a kept word (" +
                                              std::to_string(data.sam.corpus.vocabulary.size()) +
                                              " words kept; widen --min-df/--max-df)");
      RecordDefaults(options.basics.run_config,
                     ResolveSamStep(options, data.survey.counts.train_documents));
    });
    return data;
  }

  static std::unique_ptr<Model> Make(Options& options, Data& data) {
    return std::make_unique<SamModel>(options.config, data.sam.corpus, data.survey);
  }

  static std::vector<std::pair<std::string, std::string>> Comments(const Options& options,
                                                                   const Data& data, const Model&) {
    return SamConfigurationLines(options, data.share, data.sam.corpus, data.survey.counts);
  }

  static void WriteTrace(const std::string& path, const std::string& comments, const Model& model) {
    io::WriteSamTrace(path, comments, model.trace());
  }
  static decltype(auto) Draws(const Model& model) { return model.draws(); }
  static std::string Status(const Model& model, const Data&) {
    return SamStatus(model.trace().back());
  }

  static void Finish(Communicator& comm, const Options& options, const Data& data, Model& model,
                     const RunEnd& end);
};

void SamCommand::Finish(Communicator& comm, const Options& options, const Data& data, Model& model,
                        const RunEnd& end) {
  const SamConfig& config = options.config;
  const std::vector<double> directions = model.TopicMeanDirections();
  const std::vector<RankStats> stats = GatherRankStats(
      comm, end.outcome.sampling, data.sam.entries_held, end.load, model.footprint());
  RunCollectively(comm, [&] {
    if (comm.rank() != 0) return;  // RunChain wrote the trace as it stands at the end
    const std::string& out = options.basics.out;
    const std::size_t V = data.sam.corpus.vocabulary.size();
    io::WriteSamTopics(out, end.comments, directions, static_cast<std::size_t>(config.topics),
                       data.sam.corpus, data.share.vocab);
    std::vector<std::uint32_t> held_out = data.survey.held_out.ids;
    std::sort(held_out.begin(), held_out.end());
    io::WriteHeldOut(out + "/heldout.txt", end.comments, held_out);
    io::RunModelJson description =
        RunDescription(kName, options.sampler.name, config.chain.Resolved());
    DescribeSamRun(config, V, model.trace().back().theta_step, description);
    io::WriteRunModelJson(out, description);
    const SamTraceRow& last = model.trace().back();
    std::printf(
        "carousel sam: %llu iterations on %d rank(s) in %.2f s (%.2f s sampling); held-out "
        "log-perplexity %.3f (averaged over %llu samples), %.3f +- %.3f (last sample); %llu "
        "training and %llu held-out documents, %zu words kept; output in %s\n",
        static_cast<unsigned long long>(last.iteration), comm.size(), end.engine.seconds_running(),
        model.seconds_sampling(), last.log_perplexity,
        static_cast<unsigned long long>(model.samples()), last.log_perplexity_sample,
        last.log_perplexity_se, static_cast<unsigned long long>(data.survey.counts.train_documents),
        static_cast<unsigned long long>(data.survey.counts.held_out_documents), V, out.c_str());
    PrintRankStats(stats, "training entries");
  });
}

}  // namespace

int RunSamCommand(Communicator& comm, const std::vector<std::string>& args) {
  if (!args.empty() && args[0] == "infer")
    return RunSamInferCommand(comm, {args.begin() + 1, args.end()});
  return RunModelCommand<SamCommand>(comm, args);
}

}  // namespace carousel::cli
