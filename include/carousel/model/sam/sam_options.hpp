// carousel sam's own options (those every model shares: cli/command_support.hpp), each
// declared once with its bounds, help and default (util/option_info.hpp); the checks across
// them; the rules that set the defaults that follow from the data; and what a run says of
// its configuration.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "carousel/data/corpus.hpp"
#include "carousel/io/run_model_json.hpp"
#include "carousel/model/sam/sam_config.hpp"
#include "carousel/model/sam/sam_model.hpp"
#include "carousel/model/sam/tfidf.hpp"
#include "carousel/sampler/registry.hpp"
#include "carousel/util/option_info.hpp"

namespace carousel {

// Step-size defaults in SGD terms (supplement Sec. C: h = sqrt(gamma / D), C = rho / h, with
// gamma the per-batch learning rate and rho the momentum coefficient; doc/sam.md, "Spherical
// admixture model", says how these were chosen).
inline constexpr double kSamDefaultLearningRate = 1e-6;
inline constexpr double kSamDefaultMomentum = 0.1;

struct SamOptions {
  SamOptions() {
    sampler.name = "gsgnht";
    config.chain.tiles = 0;  // the ranks'
  }
  std::string corpus, vocab;
  std::string format = "auto";
  SamplerOptions sampler;
  double step = -1.0;  // < 0: from --learning-rate and the training documents
  double learning_rate = kSamDefaultLearningRate;
  double momentum = kSamDefaultMomentum;
  bool friction_given = false, thermostat_given = false;  // on the command line
  SamConfig config;
};

// Declares every option of SamOptions: `declare(field, flag, help, modifiers...)` for each,
// and `declare.Samplers(sampler options, block kind)` where the sampler's options go.
template <class Declare>
void DeclareSamOptions(Declare& declare, SamOptions& o) {
  SamConfig& c = o.config;
  declare(o.corpus, "--corpus", "bag-of-words corpus (UCI docword or LDA-C)");
  declare(o.vocab, "--vocab", "vocabulary file, one word per line");
  declare(o.format, "--corpus-format", "auto|uci|ldac");
  declare(c.topics, "--topics", "number of topics K", opt::Within(1, 4096));
  declare(c.alpha, "--alpha", "Dirichlet prior of the topic proportions", opt::Positive());
  declare(c.sigma, "--sigma", "concentration of the topics about the corpus mean", opt::Positive());
  declare(c.kappa0, "--kappa0", "concentration of the corpus mean about m", opt::Positive());
  declare(c.kappa1, "--kappa1", "concentration of a document about its mean direction",
          opt::Positive());
  declare.Samplers(o.sampler, BlockKind::kSphere);
  declare(o.step, "--step", "h of SGGMC/gSGNHT", opt::Positive(),
          opt::Shown("sqrt(learning rate / training documents)"));
  declare(o.learning_rate, "--learning-rate",
          "gamma: the default step is sqrt(gamma / D) (supplement Sec. C)", opt::Positive());
  declare(o.momentum, "--momentum", "rho: the default friction C is rho / h (supplement Sec. C)",
          opt::Within(0.0, 1.0));
  declare(c.minibatch, "--minibatch", "training documents per iteration (expected)",
          opt::Positive());
  declare(c.theta_steps, "--theta-steps",
          "MALA steps of a document's topic proportions per visit; moments over the second half",
          opt::Within(2, 100000));
  declare(c.tfidf.min_df, "--min-df", "keep words in at least this fraction of documents",
          opt::Within(0.0, 1.0));
  declare(c.tfidf.max_df, "--max-df", "keep words in at most this fraction of documents",
          opt::Within(0.0, 1.0));
  declare(c.tfidf.max_vocabulary, "--max-words",
          "then keep at most this many words, the most frequent (0: no cap)");
  declare(c.test_fraction, "--test-fraction",
          "fraction of documents held out for the log-perplexity (seeded)", opt::Within(0.0, 0.99));
  declare(c.eval_draws, "--eval-draws",
          "draws of theta from its prior per held-out document (Sec. 5.3)",
          opt::Within(2, 1000000));
}

// After parsing: the checks across options (SettingError), and the sampler into the config.
void CheckSamOptions(SamOptions& o);

// h = sqrt(gamma / D) and C = rho / h unless given, and gSGNHT's xi_0 = C (Alg. 2), for D
// training documents; the defaults it chose.
std::vector<ResolvedDefault> ResolveSamStep(SamOptions& o, std::uint64_t train_documents);

// The run's configuration, the '#' lines of every output after those every model starts with
// (the version, command line, ranks and tiles: cli/model_pipeline.hpp).
std::vector<std::pair<std::string, std::string>> SamConfigurationLines(const SamOptions& o,
                                                                       const Corpus& corpus,
                                                                       const TfIdfCorpus& sam,
                                                                       const SamCounts& counts);

// The status of a progress line: the held-out log-perplexity of the last evaluation.
std::string SamStatus(const SamTraceRow& row);

// The closing line of a run on `ranks` ranks that ran `run_seconds` and wrote into `out`: the
// held-out log-perplexity, the documents and the words kept.
std::string SamClosing(const SamModel& model, const SamCounts& counts, std::size_t words_kept,
                       int ranks, double run_seconds, const std::string& out);

// model.json's sam members (io/run_model_json.hpp): the model's dimensions and priors, the
// MALA step of the topic proportions at the end (`theta_step`, for `carousel sam infer`), and
// its output files by role; V kept words.
void DescribeSamRun(const SamConfig& config, std::size_t V, double theta_step,
                    io::RunModelJson& description);

}  // namespace carousel
