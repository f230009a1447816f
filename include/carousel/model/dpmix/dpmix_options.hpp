// carousel dpmix's own options (those every model shares: cli/command_support.hpp), each
// declared once with its bounds, help and default (util/option_info.hpp); the checks across
// them; the default steps; and what a run says of its configuration.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "carousel/data/corpus.hpp"
#include "carousel/io/run_model_json.hpp"
#include "carousel/model/dpmix/dpmix_config.hpp"
#include "carousel/model/dpmix/dpmix_model.hpp"
#include "carousel/util/option_info.hpp"

namespace carousel {

struct DpmixOptions {
  DpmixOptions() { config.chain.tiles = 0; }  // the ranks'
  std::string corpus, vocab;
  std::string format = "auto";
  std::string sampler = "scir";
  double step = -1.0, weight_step = -1.0;  // < 0: the sampler's default
  DpmixConfig config;
};

// Declares every option of DpmixOptions: `declare(field, flag, help, modifiers...)`.
template <class Declare>
void DeclareDpmixOptions(Declare& declare, DpmixOptions& o) {
  DpmixConfig& c = o.config;
  declare(o.corpus, "--corpus",
          "count data (UCI docword or LDA-C): a row is an observation, a column a category");
  declare(o.vocab, "--vocab", "category names, one per line");
  declare(o.format, "--corpus-format", "auto|uci|ldac");
  declare(c.a, "--a", "base measure Dir(a, ..., a) of the components", opt::Positive());
  declare(c.alpha_shape, "--alpha-shape", "Gamma prior of the concentration: shape",
          opt::Positive());
  declare(c.alpha_rate, "--alpha-rate", "Gamma prior of the concentration: rate", opt::Positive());
  declare(o.sampler, "--sampler", "scir|sgrld (component parameters and weights)",
          opt::OneOf({"scir", "sgrld"}));
  declare(o.step, "--step", "h (scir) or eps (sgrld) of the component parameters", opt::Positive(),
          opt::Shown("0.1 scir, 0.05 sgrld"));
  declare(o.weight_step, "--weight-step", "the same for the weights", opt::Positive(),
          opt::Shown("--step"));
  declare(c.minibatch, "--minibatch", "observations per iteration (expected number)",
          opt::Positive());
  declare(c.init_components, "--init-components",
          "components the observations are spread over at the start", opt::Within(1, 100000));
  declare(c.max_components, "--max-components",
          "stop with an error when the slice sampler asks for more components",
          opt::Within(1, 1000000));
  declare(c.test_fraction, "--test-fraction",
          "fraction of observations held out for the log predictive (seeded)",
          opt::Within(0.0, 0.99));
}

// After parsing: the sampler and the fixed steps into the config (the defaults it chose),
// and the checks across options (SettingError).
std::vector<ResolvedDefault> ResolveDpmixOptions(DpmixOptions& o);

// The run's configuration, the '#' lines of every output after those every model starts with
// (the version, command line, ranks and tiles: cli/model_pipeline.hpp).
std::vector<std::pair<std::string, std::string>> DpmixConfigurationLines(const DpmixOptions& o,
                                                                         const Corpus& corpus,
                                                                         const DpmixSurvey& s);

// The status of a progress line: the held-out log predictive (where there is a held-out
// set), the occupied components and alpha.
std::string DpmixStatus(const DpmixTraceRow& row, bool held_out);

// The closing line's account of the fit: the held-out log predictive, or why there is none.
std::string DpmixFit(const DpmixTraceRow& last, bool held_out, double test_fraction);

// The closing line of a run on `ranks` ranks that ran `run_seconds` and wrote into `out`: its
// fit (DpmixFit), the occupied components and the concentration.
std::string DpmixClosing(const DpmixModel& model, bool held_out, double test_fraction, int ranks,
                         double run_seconds, const std::string& out);

// model.json's dpmix members (io/run_model_json.hpp): `categories`, the K occupied
// components, the concentration's prior, and the output files by role.
void DescribeDpmixRun(const DpmixConfig& config, std::uint32_t categories, std::size_t K,
                      bool with_vocab, io::RunModelJson& description);

}  // namespace carousel
