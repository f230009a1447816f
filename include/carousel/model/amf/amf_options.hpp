// carousel amf's own options (those every model shares: cli/command_support.hpp), each
// declared once with its bounds, help and default (util/option_info.hpp); the checks across
// them; the rules that set the defaults that follow from the data; and what a run says of
// its configuration.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "carousel/data/mf_problem.hpp"
#include "carousel/io/mf_loader.hpp"
#include "carousel/io/run_model_json.hpp"
#include "carousel/model/amf/amf_model.hpp"
#include "carousel/model/sample_plan.hpp"
#include "carousel/sampler/registry.hpp"
#include "carousel/util/option_info.hpp"

namespace carousel {

struct AmfOptions {
  AmfOptions() {
    config.chain.tiles = 0;  // one tile per rank unless given
    config.sampler.name = "psgld";
    config.step.a = -1.0;  // < 0: mf's default for the sampler and the data (DefaultAmfStep)
  }
  io::MfInput input;
  std::string format = "auto";
  std::string fix_rows;               // --fix-rows W.npy
  long long keep_samples = -1;        // < 0: from the data (DefaultKeepSamples)
  bool rmsprop_lambda_given = false;  // on the command line; else PSGLD's floor is mf's
  bool initial_metric_given = false;  // else HAMCMC's H^0 is gamma I: the model has no metric
  AmfConfig config;
};

// Declares every option of AmfOptions: `declare(field, flag, help, modifiers...)`,
// `declare.Samplers(sampler options, block kind)` where the sampler's options go, and
// `declare.Show(flag, text)` for a sampler option whose default amf shows otherwise.
template <class Declare>
void DeclareAmfOptions(Declare& declare, AmfOptions& o) {
  AmfConfig& c = o.config;
  declare(o.input.train, "--train",
          "X: a dense 2-d .npy (float32/64: any real values; complex64/128: the model of complex "
          "data), or non-negative entries in any carousel mf format");
  declare(o.format, "--format", "auto|movielens|whitespace|csv|mtx (sparse input)");
  declare(o.fix_rows, "--fix-rows",
          "I x K_f non-negative .npy (float32/64), K_f <= --rank: the first K_f columns of W, "
          "fixed (rows in W_mean.npy's order; dense input: row index)");
  declare(c.rank, "--rank", "number of latent factors K", opt::Within(1, 4096));
  declare(c.alpha, "--alpha", "stability index alpha of Eq. 14 (2: Gaussian)",
          opt::Within(0.2, 2.0));
  declare(c.lambda_w, "--lambda-w", "rate of W's Exponential prior", opt::Positive());
  declare(c.lambda_h, "--lambda-h", "rate of H's Exponential prior", opt::Positive());
  declare(c.init_sd, "--init-sd",
          "W and H start at c exp(s z), z standard normal, K c^2 = mean(x)^alpha",
          opt::Within(0.0, 10.0));
  // Every factor sampler of the registry, mirrored after its update (amf_model.hpp); the
  // coupled ones (hamcmc, sgnht) step W and H together. sgrld / sgrhmc need a metric the
  // model does not supply, and the registry says so when it builds them.
  declare.Samplers(c.sampler, BlockKind::kFactor);
  // HAMCMC's H^0: the model supplies no metric, so gamma I unless given (ResolveAmfDefaults).
  declare.Show("--initial-metric", "identity");
  declare(c.step.a, "--step", "step size a of a(b + t)^-c", opt::Positive(),
          opt::Shown("per sampler, from the data, as carousel mf's"));
  declare(c.step.b, "--step-offset", "b of a(b + t)^-c", opt::Within(1e-9, 1e18));
  declare(c.step.c, "--step-decay", "c of a(b + t)^-c; 0 = constant", opt::Within(0.0, 1.0));
  DeclareKeepSamples(declare, o.keep_samples, "as many as fit in 256 MiB, from 2 to 20");
}

// After parsing: the input's format, and the checks across options (SettingError).
void CheckAmfOptions(AmfOptions& o);

// The defaults that follow from the data (`problem`, on `tiles` tiles per side): HAMCMC's
// initial metric, the step, PSGLD's floor and the samples kept; the defaults it chose.
std::vector<ResolvedDefault> ResolveAmfDefaults(AmfOptions& o, const MfProblem& problem);

// The run's configuration, the '#' lines of every output after those every model starts with
// (the version, command line, ranks and tiles: cli/model_pipeline.hpp); `dense` input, and
// `fixed_cols` columns of W fixed.
std::vector<std::pair<std::string, std::string>> AmfConfigurationLines(const AmfOptions& o,
                                                                       const MfProblem& problem,
                                                                       bool dense,
                                                                       std::int64_t fixed_cols);

// The status of a progress line: the log-likelihood and the Phi acceptance.
std::string AmfStatus(const AmfTraceRow& row);

// The closing line of a run on `ranks` ranks that ran `run_seconds` and wrote into `out`: the
// training log-likelihood, Phi's acceptance and the samples in the posterior means.
std::string AmfClosing(const AmfModel& model, int ranks, double run_seconds,
                       const std::string& out);

// model.json's amf members (io/run_model_json.hpp): the model's shape and priors, the input,
// the posterior draws and the saved samples (`model`'s).
void DescribeAmfRun(const AmfConfig& config, const MfProblem& problem, bool dense,
                    const AmfModel& model, io::RunModelJson& description);

}  // namespace carousel
