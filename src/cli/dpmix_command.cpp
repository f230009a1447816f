// `carousel dpmix`: a Dirichlet-process mixture of multinomials by distributed SG-MCMC (SCIR
// paper Sec. 4.2; model/dpmix/dpmix_model.hpp). Reads the corpora `carousel lda` reads: a row
// is an observation, a column a category. Writes, each atomically, with the run's
// configuration as '#' lines in the text files:
//   trace.csv       iter,seconds,log_pred,log_pred_sample,occupied,alpha,samples per
//                   evaluation (log_pred: held-out log predictive per observation)
//   components.npy  K x (1 + categories) float64, one row per component occupied at the end:
//                   the posterior mean of its weight, then of its omega (over the collected
//                   samples in which it existed)
//   clusters.csv    observation,component,share,held_out: each observation's most probable
//                   component (row of components.npy, -1 if none of them), for training
//                   observations the one that held it most often over the collected samples
//                   (share: that fraction), for held-out ones the likeliest at the last
//                   evaluation
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "carousel/cli/chain_driver.hpp"
#include "carousel/cli/command_support.hpp"
#include "carousel/cli/commands.hpp"
#include "carousel/comm/collective.hpp"
#include "carousel/engine/tile_engine.hpp"
#include "carousel/io/atomic_file.hpp"
#include "carousel/io/corpus_loader.hpp"
#include "carousel/io/corpus_reader.hpp"
#include "carousel/io/json.hpp"
#include "carousel/io/npy.hpp"
#include "carousel/io/text_output.hpp"
#include "carousel/model/dpmix/dpmix_model.hpp"
#include "carousel/model/draws_table.hpp"
#include "carousel/model/lda/lda_outputs.hpp"
#include "carousel/util/error.hpp"
#include "carousel/version.hpp"

namespace carousel::cli {
namespace {

struct DpmixCommandOptions {
  std::string corpus, vocab;
  std::string format = "auto";
  std::string sampler = "scir";
  double step = -1.0, weight_step = -1.0;  // < 0: the sampler's default
  DpmixConfig config;
  RunBasics basics{"carousel-dpmix-out"};
  std::vector<std::string> argv;
};

// Fixed steps, as the paper's Sec. 4.2 (multimodal posteriors): the best of a 3-point grid
// per sampler on KOS with another held-out split than the benchmark reports (bench/README.md,
// "Dirichlet-process mixture on KOS": h = 0.1 of {0.1, 0.5, 2}, eps = 0.05 of {0.01, 0.05,
// 0.2}).
double DefaultStep(SimplexSampler s) {
  return s == SimplexSampler::kScir ? 0.1 : 0.05;
}

DpmixCommandOptions Parse(const std::vector<std::string>& args) {
  DpmixCommandOptions o;
  o.config.tiles = 0;
  auto& c = o.config;
  CLI::App app{
      "carousel dpmix: Dirichlet-process mixture of multinomials by distributed "
      "SG-MCMC (minibatched slice sampler; SCIR or SGRLD)",
      "carousel dpmix"};
  SetUpCommandApp(app);
  app.add_option("--corpus", o.corpus,
                 "count data (UCI docword or LDA-C): a row is an observation, a column a "
                 "category");
  app.add_option("--vocab", o.vocab, "category names, one per line");
  app.add_option("--corpus-format", o.format, "auto|uci|ldac");
  app.add_option("--a", c.a, "base measure Dir(a, ..., a) of the components")->check(Positive());
  app.add_option("--alpha-shape", c.alpha_shape, "Gamma prior of the concentration: shape")
      ->check(Positive());
  app.add_option("--alpha-rate", c.alpha_rate, "Gamma prior of the concentration: rate")
      ->check(Positive());
  app.add_option("--sampler", o.sampler, "scir|sgrld (component parameters and weights)")
      ->check(CLI::IsMember({"scir", "sgrld"}));
  app.add_option("--step", o.step, "h (scir) or eps (sgrld) of the component parameters")
      ->check(Positive())
      ->default_str("0.1 scir, 0.05 sgrld");
  app.add_option("--weight-step", o.weight_step, "the same for the weights")
      ->check(Positive())
      ->default_str("--step");
  app.add_option("--minibatch", c.minibatch, "observations per iteration (expected number)")
      ->check(Positive());
  app.add_option("--init-components", c.init_components,
                 "components the observations are spread over at the start")
      ->check(Within(1, 100000));
  app.add_option("--max-components", c.max_components,
                 "stop with an error when the slice sampler asks for more components")
      ->check(Within(1, 1000000));
  app.add_option("--test-fraction", c.test_fraction,
                 "fraction of observations held out for the log predictive (seeded)")
      ->check(Within(0.0, 0.99));
  std::int64_t split_seed = -1;
  app.add_option("--split-seed", split_seed, "seed of the held-out split alone")
      ->check(NonNegative())
      ->default_str("--seed");
  AddChainOptions(app, c, o.basics);
  ParseOrThrow(app, args, "carousel dpmix");
  ResolveChainOptions(app, c, o.basics);
  if (o.basics.schedule == "default") {
    o.basics.schedule = "cyclic";
    o.basics.run_config.Resolve("--schedule", o.basics.schedule, "the default");
  }
  o.argv = SelfContainedArgs(app, args);
  c.split_seed = split_seed >= 0 ? static_cast<std::uint64_t>(split_seed) : c.seed;
  if (split_seed < 0)
    o.basics.run_config.Resolve("--split-seed", std::to_string(c.split_seed), "--seed");
  c.sampler = ParseSimplexSampler(o.sampler);
  const double h = o.step > 0 ? o.step : DefaultStep(c.sampler);
  if (o.step <= 0) o.basics.run_config.Resolve("--step", io::FormatReal(h), "the default");
  const double hw = o.weight_step > 0 ? o.weight_step : h;
  if (o.weight_step <= 0)
    o.basics.run_config.Resolve("--weight-step", io::FormatReal(hw), "--step");
  c.step = StepSchedule{h, 1.0, 0.0};
  c.weight_step = StepSchedule{hw, 1.0, 0.0};
  c.schedule = o.basics.schedule == "random" ? StratumSchedule::Kind::kRandom
                                             : StratumSchedule::Kind::kCyclic;
  if (c.init_components > c.max_components)
    throw UsageError("--init-components",
                     "is " + std::to_string(c.init_components) + ", more than --max-components " +
                         std::to_string(c.max_components) +
                         ": the chain would stop at its first iteration; raise "
                         "--max-components or lower --init-components");
  io::ParseCorpusFormat(o.format);
  if (o.basics.resume.empty() && o.corpus.empty())
    throw UsageError("--corpus", "a corpus file is required (or --resume DIR)");
  return o;
}

std::string Comments(const DpmixCommandOptions& o, int ranks, const Corpus& corpus,
                     const DpmixSurvey& s) {
  const DpmixConfig& c = o.config;
  return io::CommentBlock(
      {{"carousel", kVersion},
       {"command", "carousel dpmix " + JoinArgs(o.argv)},
       {"ranks", std::to_string(ranks)},
       {"tiles", std::to_string(c.tiles)},
       {"sampler", SimplexSamplerName(c.sampler)},
       {"step", io::FormatReal(c.step.a)},
       {"weight_step", io::FormatReal(c.weight_step.a)},
       {"a", io::FormatReal(c.a)},
       {"alpha_prior",
        "Gamma(" + io::FormatReal(c.alpha_shape) + ", " + io::FormatReal(c.alpha_rate) + ")"},
       {"minibatch", io::FormatReal(c.minibatch) + " observations"},
       {"schedule", o.basics.schedule},
       {"iterations", std::to_string(c.iterations)},
       {"burn_in", std::to_string(c.burn_in)},
       {"eval_every", std::to_string(c.eval_every)},
       {"seed", std::to_string(c.seed)},
       {"corpus", corpus.path + " (" + io::CorpusFormatName(corpus.format) + ")"},
       {"categories", std::to_string(corpus.vocabulary)},
       {"observations", std::to_string(corpus.documents)},
       {"train_observations", std::to_string(s.train)},
       {"held_out_observations", std::to_string(s.held_out)},
       {"empty_observations_skipped", std::to_string(s.empty)}});
}

void WriteTrace(const std::string& path, const std::string& comments,
                const std::vector<DpmixTraceRow>& rows) {
  std::string out = comments + "iter,seconds,log_pred,log_pred_sample,occupied,alpha,samples\n";
  for (const DpmixTraceRow& r : rows) {
    out += std::to_string(r.iteration);
    for (double v : {r.seconds, r.log_pred, r.log_pred_sample}) {
      out += ',';
      io::AppendCsvNumber(out, v);
    }
    out += ',' + std::to_string(r.occupied) + ',';
    io::AppendCsvNumber(out, r.alpha);
    out += ',' + std::to_string(r.samples) + '\n';
  }
  io::WriteFileAtomically(path, out);
}

// The draws file's scalars (CmdStan's layout, DrawsOutput), one row per kept draw: the
// held-out log predictive of the sample, the occupied components and the concentration.
DrawsTable DpmixDraws(const std::vector<DpmixTraceRow>& trace) {
  DrawsTable table({"log_pred_sample", "occupied", "alpha"});
  ForEachKeptRow(trace, [&](const DpmixTraceRow& row) {
    table.Add({row.log_pred_sample, static_cast<double>(row.occupied), row.alpha});
  });
  return table;
}

// components.txt (with --vocab): a line per component of components.npy (rows of the mean
// weight, then the mean omega over the categories): "component k (weight w): category
// (probability) ...", its 20 most probable categories named.
std::string ComponentLines(const std::vector<double>& means, std::size_t components,
                           const std::vector<std::string>& vocab) {
  const std::size_t cols = means.size() / std::max<std::size_t>(components, 1);
  std::string text;
  for (std::size_t k = 0; k < components; ++k) {
    const std::vector<double> omega(means.begin() + static_cast<std::ptrdiff_t>(k * cols + 1),
                                    means.begin() + static_cast<std::ptrdiff_t>((k + 1) * cols));
    std::string line = io::TopWordsLines(omega, k, 1, vocab, 20, "component");
    char weight[48];
    std::snprintf(weight, sizeof weight, " (weight %.4f)", means[k * cols]);
    line.insert(line.find(':'), weight);
    text += line;
  }
  return text;
}

}  // namespace

int RunDpmixCommand(Communicator& comm, const std::vector<std::string>& args) {
  DpmixCommandOptions options;
  std::string resume_payload;
  if (const std::optional<int> code =
          StartModelCommand(comm, "dpmix", args, RunDpmixCommand, options, Parse, resume_payload))
    return *code;
  DpmixConfig& config = options.config;
  ResolveTiles(comm, config.tiles, options.basics);
  io::LoadedCorpus loaded = LoadCommandCorpus(comm, options.corpus, options.vocab, options.format,
                                              config.tiles, config.seed);
  const Corpus& corpus = loaded.share;
  const DpmixSurvey survey = SurveyDpmixShare(comm, corpus, config);

  const Chain<DpmixModel> chain = StartChain<DpmixModel>(
      comm, [&] { return std::make_unique<DpmixModel>(config, corpus, survey); }, config.chain(),
      resume_payload, options.basics.out,
      [&](const DpmixModel& m) {
        if (m.survey().train == 0)
          throw InputError(corpus.path,
                           "no training observations (every row is empty or held out)");
      });
  WriteRunConfig(comm, "dpmix", options.basics);
  DpmixModel& model = *chain.model;
  TileEngine* engine = chain.engine.get();

  const std::string comments = Comments(options, comm.size(), corpus, survey);
  const std::string trace_path = options.basics.out + "/trace.csv";
  ChainHooks hooks;
  const DrawsOutput draws{options.basics.out, "carousel dpmix", config.chain(), comments};
  hooks.write_trace = [&] {
    WriteTrace(trace_path, comments, model.trace());
    draws.Write(DpmixDraws(model.trace()));
  };
  hooks.last_eval_seconds = [&] { return model.trace().back().seconds; };
  // Without held-out observations the log predictive is not defined: trace.csv's log_pred
  // columns hold NaN, and the progress and closing lines say why instead of printing it.
  const bool has_held_out = survey.held_out > 0;
  if (!has_held_out && comm.rank() == 0 && !options.basics.quiet)
    std::fprintf(stderr,
                 "carousel dpmix: note: no held-out observations (--test-fraction %s): the "
                 "held-out log predictive is not evaluated (NaN in trace.csv)\n",
                 io::FormatReal(config.test_fraction).c_str());
  hooks.eval_status = [&] {
    const DpmixTraceRow& row = model.trace().back();
    char status[128];
    if (has_held_out)
      std::snprintf(status, sizeof status,
                    "log pred %.4f (sample %.4f), %llu components, alpha %.3g", row.log_pred,
                    row.log_pred_sample, static_cast<unsigned long long>(row.occupied), row.alpha);
    else
      std::snprintf(status, sizeof status, "%llu components, alpha %.3g",
                    static_cast<unsigned long long>(row.occupied), row.alpha);
    return std::string(status);
  };
  const ChainOutcome outcome = RunChain(comm, *engine, options.basics, config.iterations,
                                        RunRecord{"dpmix", options.argv}, hooks);
  if (!outcome.finished)
    return StoppedBySignal(comm.rank(), engine->iteration(), "dpmix", options.basics.out);

  const std::vector<double> means = model.ComponentMeans();
  const std::vector<DpmixCluster> clusters = model.Clusters();
  RunCollectively(comm, [&] {
    if (comm.rank() != 0) return;  // RunChain wrote the trace as it stands at the end
    const std::size_t K = model.occupied(), cols = 1 + corpus.vocabulary;
    io::WriteNpy(options.basics.out + "/components.npy", means.data(), {K, cols});
    std::string out = comments + "observation,component,share,held_out\n";
    for (const DpmixCluster& c : clusters) {
      out += std::to_string(c.observation) + ',' + std::to_string(c.component) + ',';
      io::AppendCsvNumber(out, c.share);
      out += c.held_out ? ",1\n" : ",0\n";
    }
    io::WriteFileAtomically(options.basics.out + "/clusters.csv", out);
    if (!corpus.vocab.empty())
      io::WriteFileAtomically(options.basics.out + "/components.txt",
                              comments + ComponentLines(means, K, corpus.vocab));
    io::RunModelJson description = RunDescription("dpmix", options.sampler, config.chain());
    description.facts = {{"categories", std::to_string(corpus.vocabulary)},
                         {"components", std::to_string(K)},
                         {"alpha_shape", io::JsonNumber(config.alpha_shape)},
                         {"alpha_rate", io::JsonNumber(config.alpha_rate)},
                         {"max_components", std::to_string(config.max_components)}};
    description.files = {{"components", "components.npy"}, {"clusters", "clusters.csv"}};
    if (!corpus.vocab.empty()) description.files.push_back({"component_words", "components.txt"});
    io::WriteRunModelJson(options.basics.out, description);
    const DpmixTraceRow& last = model.trace().back();
    char fit[160];
    if (has_held_out)
      std::snprintf(fit, sizeof fit,
                    "held-out log predictive per observation %.4f (averaged over %llu samples), "
                    "%.4f (last sample)",
                    last.log_pred, static_cast<unsigned long long>(last.samples),
                    last.log_pred_sample);
    else
      std::snprintf(fit, sizeof fit, "no held-out observations (--test-fraction %s)",
                    io::FormatReal(config.test_fraction).c_str());
    std::printf(
        "carousel dpmix: %llu iterations on %d rank(s) in %.2f s (%.2f s sampling); %s; %zu "
        "occupied components, alpha %.4g; output in %s\n",
        static_cast<unsigned long long>(last.iteration), comm.size(), engine->seconds_running(),
        model.seconds_sampling(), fit, K, last.alpha, options.basics.out.c_str());
  });
  return 0;
}

}  // namespace carousel::cli
