// `carousel lda`: options, wiring of corpus reader, engine and outputs, progress and summary.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstring>

#include "carousel/cli/command_support.hpp"
#include "carousel/cli/commands.hpp"
#include "carousel/cli/declared_options.hpp"
#include "carousel/cli/model_pipeline.hpp"
#include "carousel/cli/thread_ranks.hpp"
#include "carousel/comm/collective.hpp"
#include "carousel/io/atomic_file.hpp"
#include "carousel/io/corpus_loader.hpp"
#include "carousel/io/text_output.hpp"
#include "carousel/model/lda/lda_model.hpp"
#include "carousel/model/lda/lda_options.hpp"
#include "carousel/model/lda/lda_outputs.hpp"
#include "carousel/util/error.hpp"

namespace carousel::cli {
namespace {

struct LdaCommandOptions : LdaOptions {
  RunBasics basics{"carousel-lda-out"};
  std::vector<std::string> argv;  // as given, for checkpoints and output headers
};

LdaCommandOptions ParseLda(const std::vector<std::string>& args) {
  LdaCommandOptions o;
  CLI::App app{
      "carousel lda: latent Dirichlet allocation by distributed SG-MCMC\n"
      "(carousel lda infer --help: topics of new documents given a finished run)",
      "carousel lda"};
  SetUpCommandApp(app);
  OptionDeclarer declare(app);
  DeclareLdaOptions(declare, o);
  AddChainOptions(app, o.config.chain, o.basics);
  ShowLdaChainDefaults(declare);
  ParseOrThrow(app, args, "carousel lda");
  ResolveChainOptions(app, o.config.chain, o.basics);
  o.config.chain.schedule = ResolveSchedule(o.basics);
  o.argv = SelfContainedArgs(app, args);
  o.gibbs_draw_given = app.count("--gibbs-draw") > 0;
  o.topic_word_mean_given = app.count("--topic-word-mean") > 0;
  o.sweeps_given = app.count("--sweeps") > 0;
  RecordDefaults(o.basics.run_config, ResolveLdaOptions(o));
  if (o.basics.resume.empty() && o.corpus.empty())
    throw UsageError("--corpus", "a corpus file is required (or --resume DIR)");
  return o;
}

struct LdaData : io::LoadedCorpus {
  CorpusSurvey survey;  // the whole corpus's counts
  int threads = 1;      // worker threads of this rank
};

struct LdaCommand : ModelSpecDefaults {
  static constexpr const char* kName = "lda";
  using Options = LdaCommandOptions;
  using Model = LdaModel;
  using Data = LdaData;

  static Options Parse(const std::vector<std::string>& args) { return ParseLda(args); }

  // A fresh run's defaults that follow from the tiles, recorded in the checkpoints' command
  // line; a resumed run's command line has them.
  static void ResolveWithTiles(Communicator&, Options& options, RunStart& start) {
    if (!start.fresh) return;
    LdaConfig& config = options.config;
    RunBasics& basics = options.basics;
    if (!options.gibbs_draw_given) {
      config.gibbs_draw = GibbsDraw::kAuto;
      basics.run_config.Resolve("--gibbs-draw", "auto", "the default");
      start.recorded_args.insert(start.recorded_args.end(), {"--gibbs-draw", "auto"});
    }
    if (!options.topic_word_mean_given) {
      config.topic_word_mean = TopicWordMean::kAssignments;
      basics.run_config.Resolve("--topic-word-mean", "assignments", "the default");
      start.recorded_args.insert(start.recorded_args.end(), {"--topic-word-mean", "assignments"});
    }
    if (!basics.burn_in_given)
      ResolveBurnInOfPasses(kLdaBurnInPasses, config.chain.tiles, config.chain.iterations,
                            config.chain.burn_in, basics, start.recorded_args, kLdaBurnInAtMost,
                            kLdaBurnInAtLeast);
    if (!basics.eval_every_given)
      ResolveEvalEveryOfPasses(kLdaEvalEveryPasses, config.chain.tiles, config.chain.eval_every,
                               config.chain.thin, basics, start.recorded_args);
  }

  static Data Load(Communicator& comm, Options& options, RunStart& start) {
    LdaConfig& config = options.config;
    Data data{LoadCommandCorpus(comm, options.corpus, options.vocab, options.format,
                                config.chain.tiles, config.chain.split_seed, config.topics),
              {}};
    data.survey = SurveyCorpusShare(comm, data.share, config);
    // Resolved from the whole corpus's survey, so every rank resolves the same. A checkpoint
    // written before this default records no --sweeps and resumes with the 2 of then.
    if (!options.sweeps_given && start.fresh) {
      config.sweeps = DefaultLdaSweeps(config, data.survey.counts, data.share.vocabulary);
      options.basics.run_config.Resolve("--sweeps", std::to_string(config.sweeps),
                                        "the default: " + DefaultLdaSweepsRule());
      start.recorded_args.insert(start.recorded_args.end(),
                                 {"--sweeps", std::to_string(config.sweeps)});
    }
    data.threads = options.threads > 0 ? options.threads : DefaultWorkerThreads(comm.size());
    return data;
  }

  // The worker threads are set before the engine attaches the model: they build its tokens.
  static std::unique_ptr<Model> Make(Options& options, Data& data) {
    auto model = std::make_unique<LdaModel>(options.config, data.share, data.survey);
    model->SetWorkerThreads(data.threads);
    return model;
  }
  static void Check(const Model& model, const Data& data) {
    if (model.counts().train_documents == 0)
      throw InputError(data.share.path,
                       "no training documents (every document is empty or held out)");
  }
  // The model's tokens hold the documents now; only the sizes and the words stay.
  static void Started(Communicator&, Options&, Data& data, Model&) {
    std::vector<std::uint64_t>().swap(data.share.doc_start);
    EntryArray().swap(data.share.word);
    EntryArray().swap(data.share.count);
  }

  static std::vector<std::pair<std::string, std::string>> Comments(const Options& options,
                                                                   const Data& data,
                                                                   const Model& model) {
    return LdaConfigurationLines(options.config, data.share, model.counts());
  }

  // Without held-out test words, say so once, not "nan" at every evaluation.
  static void Note(const Options& options, const Data&, const Model& model) {
    const LdaCounts counts = model.counts();
    if (HasHeldOut(counts)) return;
    if (counts.held_out_documents == 0)
      std::fprintf(stderr,
                   "carousel lda: note: no held-out documents (%llu training documents, "
                   "--test-fraction %g), so no held-out perplexity\n",
                   static_cast<unsigned long long>(counts.train_documents),
                   options.config.test_fraction);
    else
      std::fprintf(stderr,
                   "carousel lda: note: the %llu held-out documents are too short to keep test "
                   "words, so no held-out perplexity\n",
                   static_cast<unsigned long long>(counts.held_out_documents));
  }

  static void WriteTrace(const std::string& path, const std::string& comments, const Model& model) {
    io::WriteLdaTrace(path, comments, model.trace());
  }
  static decltype(auto) Draws(const Model& model) { return model.draws(); }

  static std::string Status(const Model& model, const Data&) { return LdaStatus(model); }

  static void Finish(Communicator& comm, const Options& options, const Data& data, Model& model,
                     const RunEnd& end);
};

// The closing lines: the run, then each rank's statistics and Gibbs sweep rate.
void PrintLdaClosing(const LdaCommandOptions& options, int ranks, const LdaModel& model,
                     const RunEnd& end, const std::vector<RankStats>& stats,
                     const std::vector<std::string>& gibbs_all) {
  const LdaCounts counts = model.counts();
  const LdaTraceRow& last = model.trace().back();
  std::printf(
      "carousel lda: %llu iterations on %d rank(s) in %.2f s (%.2f s sampling); %s; %llu "
      "training and %llu held-out documents, %llu empty documents skipped; output in %s\n",
      static_cast<unsigned long long>(last.iteration), ranks, end.engine.seconds_running(),
      model.seconds_sampling(), LdaFit(model).c_str(),
      static_cast<unsigned long long>(counts.train_documents),
      static_cast<unsigned long long>(counts.held_out_documents),
      static_cast<unsigned long long>(counts.empty_documents), options.basics.out.c_str());
  PrintRankStats(stats, "training tokens");
  for (std::size_t r = 0; r < gibbs_all.size(); ++r) {
    LdaGibbsStats g;
    std::memcpy(&g, gibbs_all[r].data(), sizeof g);
    std::printf(
        "  rank %zu: %.2fM token visits per second in training Gibbs sweeps (%llu "
        "thread%s)\n",
        r, g.seconds > 0 ? 1e-6 * static_cast<double>(g.tokens_swept) / g.seconds : 0.0,
        static_cast<unsigned long long>(g.threads), g.threads == 1 ? "" : "s");
  }
}

void LdaCommand::Finish(Communicator& comm, const Options& options, const Data& data, Model& model,
                        const RunEnd& end) {
  const LdaConfig& config = options.config;
  const std::string& out = options.basics.out;
  const Corpus& corpus = data.share;
  io::LdaMeanFiles means =
      io::StreamLdaMeans(comm, out, end.comments, corpus, config.topics, model);
  const std::vector<std::uint32_t> held_out = model.HeldOutDocuments();
  const LdaGibbsStats gibbs = model.gibbs_stats();
  const std::vector<RankStats> stats =
      GatherRankStats(comm, end.outcome.sampling, model.tokens_held(), end.load, model.footprint());
  const std::vector<std::string> gibbs_all =
      comm.AllGather(std::string(reinterpret_cast<const char*>(&gibbs), sizeof gibbs));
  if (comm.rank() != 0) return;
  io::WriteLdaTrace(out + "/trace.csv", end.comments, model.trace());
  means.topic_word->Commit();
  means.doc_topic->Commit();
  if (!corpus.vocab.empty()) io::WriteVocabulary(out + "/vocab.txt", corpus.vocab);
  io::WriteFileAtomically(out + "/topics.txt", means.top_words);
  io::WriteHeldOut(out + "/heldout.txt", end.comments, held_out);
  io::RunModelJson description = RunDescription(kName, options.sampler, config.chain.Resolved());
  DescribeLdaRun(config, corpus, model.samples(), description);
  io::WriteRunModelJson(out, description);
  PrintLdaClosing(options, comm.size(), model, end, stats, gibbs_all);
}

}  // namespace

int RunLdaCommand(Communicator& comm, const std::vector<std::string>& args) {
  if (!args.empty() && args[0] == "infer")
    return RunLdaInferCommand(comm, {args.begin() + 1, args.end()});
  return RunModelCommand<LdaCommand>(comm, args);
}

}  // namespace carousel::cli
