// carousel mf's own options (those every model shares: cli/command_support.hpp), each
// declared once with its bounds, help and default (util/option_info.hpp); the checks across
// them; the defaults that follow from the data (mf_defaults.hpp has the rules and their
// evidence); and what a run says of its configuration and fit.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "carousel/io/mf_loader.hpp"
#include "carousel/model/bpmf/bpmf_model.hpp"
#include "carousel/model/bpmf/mf_config.hpp"
#include "carousel/model/bpmf/mf_defaults.hpp"
#include "carousel/model/bpmf/mf_outputs.hpp"
#include "carousel/model/sample_plan.hpp"
#include "carousel/sampler/registry.hpp"
#include "carousel/util/option_info.hpp"

namespace carousel {

// Checkpoints written before every run recorded its resolved burn-in (2026-11-24) omit it
// where it was the default of then, min(60, iterations / 2); their command line must parse
// to that value.
inline constexpr std::uint64_t kMfBurnInOfUnrecordedCheckpoints = 60;

struct MfOptions {
  MfOptions() {
    config.chain.tiles = 0;  // 0: one tile per rank, resolved once the rank count is known
    // The defaults of `carousel mf` chosen on validation splits of ml-100k and of 25M ratings
    // (doc/mf.md, "Step sizes" and "Defaults"): SGRLD with the expected-Fisher metric and the
    // "ou" transition, a burn-in of 30 passes over the data (kMfBurnInPasses, once the tiles
    // are known), and an evaluation with a kept draw once per pass over the data
    // (kMfEvalEveryPasses). The Gibbs step of the precisions comes once per pass over the
    // data for SGRLD (DefaultMfHyperEvery).
    config.sampler.name = "sgrld";
    config.sampler.transition = "ou";
    config.chain.burn_in = kMfBurnInOfUnrecordedCheckpoints;
  }
  io::MfInput input;
  std::string format = "auto";
  std::string hyper = "sample";
  std::string ridge_move = "on";
  long long keep_samples = -1;   // < 0: from the data (DefaultKeepSamples)
  long long moments_every = -1;  // < 0: from the data (DefaultMomentsEvery)
  std::string metric = "default";
  bool no_bias = false;
  double step = -1.0;                 // < 0: the sampler's default (DefaultMfStep)
  long long step_warmup = -1;         // < 0: the sampler's default (DefaultMfStepWarmup)
  long long hyper_every = -1;         // < 0: the sampler's default (DefaultMfHyperEvery)
  bool rmsprop_lambda_given = false;  // on the command line; else DefaultRmspropLambda
  std::string save_draws;             // --save-draws, resolved once the ids are known
  MfConfig config;
};

// Declares every option of MfOptions: `declare(field, flag, help, modifiers...)` and
// `declare.Samplers(sampler options, block kind, extra names)` where the sampler's go.
template <class Declare>
void DeclareMfOptions(Declare& declare, MfOptions& o) {
  MfConfig& c = o.config;
  declare(o.input.train, "--train", "training ratings file");
  declare(o.input.test, "--test", "test ratings file");
  declare(o.input.test_fraction, "--test-fraction",
          "hold out this fraction of --train as test set (seeded)", opt::Within(0.0, 0.99));
  declare(o.format, "--format", "auto|movielens|whitespace|csv|mtx");
  declare(c.shape.rank, "--rank", "number of latent factors K", opt::Within(1, 4096));
  declare.Samplers(c.sampler, BlockKind::kFactor, MfOwnSamplers());
  declare(o.step, "--step", "step size a of a(b + t)^-c", opt::Positive(),
          opt::Shown("per sampler, from the data (doc/mf.md, \"Step sizes\")"));
  declare(o.step_warmup, "--step-warmup",
          "iterations over which the step grows geometrically to --step, within the burn-in "
          "(0: none)",
          opt::Within(0, 1099511627776.0),
          opt::Shown("30 for sgrld, from a sixth of the step; 0 otherwise (at most --burn-in)"));
  declare(c.step.b, "--step-offset", "b of a(b + t)^-c", opt::Within(1e-9, 1e18));
  declare(c.step.c, "--step-decay", "c of a(b + t)^-c; 0 = constant", opt::Within(0.0, 1.0));
  declare(c.minibatch, "--minibatch", "fraction of each stratum per iteration",
          opt::Within(1e-6, 1.0));
  declare(c.curvature_fraction, "--curvature-fraction",
          "hamcmc: fraction (rounded to 1/k) of each minibatch for the gradients of y_t (1 = "
          "Alg. 1)",
          opt::Within(1e-6, 1.0));
  declare(o.hyper_every, "--hyper-every", "Gibbs step for the precisions every N",
          opt::Within(1, 1099511627776.0),
          opt::Shown("sgrld: --tiles, once per pass over the data; 10 otherwise"));
  declare(o.hyper, "--hyper", "sample|fixed precisions (fixed: all 1)",
          opt::OneOf({"sample", "fixed"}));
  declare(o.ridge_move, "--ridge-move",
          "on|off: after each Gibbs step of the precisions, an exact move along the W/H scale "
          "ridge (W -> cW, H -> H/c with the precisions), which mixes lambda_w, lambda_h and "
          "lp__; not made for hamcmc or --hyper fixed",
          opt::OneOf({"on", "off"}));
  declare(o.no_bias, "--no-bias", "no user and item biases");
  declare(o.metric, "--metric",
          "SGRLD/SGRHMC metric: fisher (G = lambda + ratings * tau * mean square of the partner "
          "factors; default for sgrld) or rating-count (G = 1 + ratings; default for sgrhmc)",
          opt::OneOf({"default", "fisher", "rating-count"}));
  declare(c.init_sd, "--init-sd", "sd of the initial factors", opt::Within(0.0, 10.0));
  declare(o.save_draws, "--save-draws",
          "factors whose every kept draw goes to draws/: \"users=1,5,9 items=3\" (ids of the "
          "input) or a count N (N users and N items picked with the seed)");
  DeclareKeepSamples(declare, o.keep_samples,
                     "as many as fit in 256 MiB, from 2 to 20 (none with --sampler gibbs)");
  declare(o.moments_every, "--moments-every",
          "every N-th kept draw (the first, the (N+1)-th, ...) enters the posterior means and "
          "variances of the factors (W_mean, W_var, H_mean, H_var, the biases'); every kept "
          "draw enters predictions.csv, the draws and the trace's posterior-mean RMSE",
          opt::Within(1, 1099511627776.0),
          opt::Shown("from the data: ceil(6 x parameters / ratings), at most 10"));
}

// How --help shows mf's defaults of two chain options (declared by the command line), which
// follow from the tiles (kMfBurnInPasses, kMfEvalEveryPasses).
template <class Declare>
void ShowMfChainDefaults(Declare& declare) {
  declare.Describe("--burn-in",
                   "iterations before samples enter the posterior averages (by default at most "
                   "half of --iterations)");
  declare.Show("--burn-in", "30 passes over the data: 30 x --tiles");
  declare.Show("--eval-every", "once per pass over the data: --tiles");
}

// After parsing: the input's format, the biases, the metric (its default, if it chose one),
// the precisions and the ridge move into the config, and the checks across options
// (SettingError).
std::vector<ResolvedDefault> ResolveMfOptions(MfOptions& o);

// Once the burn-in is resolved: a step warm-up, if given, must end within it, so that the
// samples kept follow the step schedule.
void CheckStepWarmup(long long step_warmup, std::uint64_t burn_in);

// --sampler gibbs runs on one process and keeps no samples.
void CheckGibbsReference(int ranks, std::uint64_t keep_samples);

// The defaults that follow from the data (doc/mf.md, "Step sizes" and "Defaults"): the step
// and its warm-up, the precisions' cadence, PSGLD's floor and the samples kept.
std::vector<ResolvedDefault> ResolveMfDefaults(MfOptions& o, const MfProblem& problem);

// The run's configuration, the '#' lines of every output after those every model starts with
// (the version, command line, ranks and tiles: cli/model_pipeline.hpp).
std::vector<std::pair<std::string, std::string>> MfConfigurationLines(const MfOptions& o,
                                                                      const io::LoadedMf& data);

// The status of a progress line: the test RMSE of the sample and of the posterior mean, or
// the training minibatches' without a test set.
std::string MfStatus(const TraceRow& row, bool has_test);

// The closing lines of a run on `ranks` ranks that ran `run_seconds` and wrote into `out`: the
// test RMSE of the last sample and of the posterior mean (or the training minibatches' without
// a test set), then the predictive intervals' calibration (predictive_calibration.hpp).
std::string MfClosing(const io::LoadedMf& data, const BpmfModel& model,
                      const io::MfRunResult& result, int ranks, double run_seconds,
                      const std::string& out);

}  // namespace carousel
