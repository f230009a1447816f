#include "carousel/model/bpmf/mf_options.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>

#include "carousel/io/ratings_reader.hpp"
#include "carousel/io/text_output.hpp"
#include "carousel/model/bpmf/bpmf_metric.hpp"
#include "carousel/model/bpmf/predictive_calibration.hpp"
#include "carousel/util/error.hpp"
#include "carousel/util/printf_text.hpp"

namespace carousel {
namespace {

// Whether the registry's sampler of `sampler` reads `flag` (mf's gibbs reads none).
bool Reads(const SamplerOptions& sampler, const std::string& flag) {
  const SamplerInfo* info = SamplerNamed(sampler.name);
  return info && info->Reads(flag);
}

// The sampler as the run's header names it: with its metric if it uses one, and its
// transition if it has a choice of them.
std::string SamplerText(const SamplerOptions& sampler) {
  const SamplerInfo* info = SamplerNamed(sampler.name);
  if (!info || !info->riemannian) return sampler.name;
  return sampler.name + " (metric " + sampler.metric->name() +
         (info->Reads("--transition") ? ", transition " + sampler.transition : "") + ")";
}

// "sgrld and sgrhmc": the factor samplers that take --metric.
std::string RiemannianSamplersText() {
  std::vector<std::string> names;
  for (const std::string& name : SamplerNames(BlockKind::kFactor))
    if (SamplerNamed(name)->riemannian) names.push_back(name);
  std::string text;
  for (std::size_t i = 0; i < names.size(); ++i)
    text += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  return text;
}

}  // namespace

std::vector<ResolvedDefault> ResolveMfOptions(MfOptions& o) {
  std::vector<ResolvedDefault> chosen;
  o.input.format = io::ParseRatingsFormat(o.format);
  o.config.shape.bias = !o.no_bias;
  const std::string& sampler = o.config.sampler.name;
  const SamplerInfo* info = SamplerNamed(sampler);  // null for the Gibbs reference
  const bool riemannian = info && info->riemannian;
  if (o.metric != "default" && !riemannian)
    throw SettingError("metric", "applies to --sampler " + RiemannianSamplersText() +
                                     " only (not " + sampler +
                                     "; hamcmc's H0 is --initial-metric)");
  if (o.metric == "default") {
    o.metric = DefaultMfMetric(sampler);
    if (riemannian) chosen.push_back({"--metric", o.metric, "the sampler's default"});
  }
  if (info && info->step_problem) {
    const std::string problem = info->step_problem(o.config.sampler, o.step);
    if (!problem.empty())
      throw SettingError("step", problem + " (now " + io::FormatReal(o.step) + ")");
  }
  if (o.metric == "fisher") {
    o.config.sampler.metric = std::make_shared<ExpectedFisherMetric>();
  } else {
    o.config.sampler.metric = std::make_shared<RatingCountMetric>();
  }
  o.config.priors.use_bias = !o.no_bias;
  o.config.priors.sample_hyper = o.hyper == "sample";
  o.config.ridge_move = o.ridge_move == "on";
  return chosen;
}

std::vector<ResolvedDefault> ResolveMfDefaults(MfOptions& o, const MfProblem& problem) {
  MfConfig& config = o.config;
  std::vector<ResolvedDefault> chosen;
  config.step.a =
      o.step > 0 ? o.step
                 : DefaultMfStep(config.sampler, problem, config.chain.tiles / config.minibatch);
  if (o.step <= 0)
    chosen.push_back(
        {"--step", io::FormatReal(config.step.a), "the sampler's default for this data"});
  if (o.hyper_every < 0) {
    config.hyper_every = DefaultMfHyperEvery(config.sampler, config.chain.tiles);
    chosen.push_back(
        {"--hyper-every", std::to_string(config.hyper_every), "the sampler's default"});
  } else {
    config.hyper_every = static_cast<std::uint64_t>(o.hyper_every);
  }
  if (o.step_warmup < 0) {
    config.step.warmup = std::min(DefaultMfStepWarmup(config.sampler), config.chain.burn_in);
    chosen.push_back({"--step-warmup", std::to_string(config.step.warmup),
                      "the sampler's default, at most --burn-in"});
  } else {
    config.step.warmup = static_cast<std::uint64_t>(o.step_warmup);
  }
  config.step.warmup_start = kMfStepWarmupStart;
  if (!o.rmsprop_lambda_given) {
    config.sampler.rmsprop_lambda = DefaultRmspropLambda(problem);
    chosen.push_back({"--rmsprop-lambda", io::FormatReal(config.sampler.rmsprop_lambda),
                      "the default, 2 / training ratings"});
  }
  config.keep_samples =
      ResolveKeepSamples(o.keep_samples,
                         IsMfGibbsReference(config.sampler.name)
                             ? 0
                             : DefaultKeepSamples(problem.rows, problem.cols, config.shape.width()),
                         chosen);
  if (o.moments_every < 0) {
    config.moments_every = DefaultMomentsEvery(problem, config.shape.width());
    chosen.push_back({"--moments-every", std::to_string(config.moments_every),
                      "from the data: ceil(6 x parameters / ratings), at most 10"});
  } else {
    config.moments_every = static_cast<std::uint64_t>(o.moments_every);
  }
  return chosen;
}

std::vector<std::pair<std::string, std::string>> MfConfigurationLines(const MfOptions& o,
                                                                      const io::LoadedMf& data) {
  const MfConfig& c = o.config;
  return {{"sampler", SamplerText(c.sampler)},
          {"step", io::FormatReal(c.step.a) + " * (" + io::FormatReal(c.step.b) + " + t)^-" +
                       io::FormatReal(c.step.c) +
                       (c.step.warmup > 0 ? ", times " + io::FormatReal(c.step.warmup_start) +
                                                "^(1 - t/" + std::to_string(c.step.warmup) +
                                                ") for t < " + std::to_string(c.step.warmup)
                                          : "")},
          {"rank", std::to_string(c.shape.rank)},
          {"rmsprop", Reads(c.sampler, "--rmsprop-alpha")
                          ? "alpha " + io::FormatReal(c.sampler.rmsprop_alpha) + ", lambda " +
                                io::FormatReal(c.sampler.rmsprop_lambda)
                          : "unused"},
          {"init_sd", io::FormatReal(c.init_sd)},
          {"bias", c.shape.bias ? "yes" : "no"},
          {"hyper", c.priors.sample_hyper ? "sampled (Gamma(1,1) priors) every " +
                                                std::to_string(c.hyper_every) + " iterations"
                                          : "fixed at 1"},
          {"minibatch", io::FormatReal(c.minibatch)},
          {"curvature_fraction", io::FormatReal(c.curvature_fraction)},
          {"schedule", StratumSchedule::Name(c.chain.schedule)},
          {"iterations", std::to_string(c.chain.iterations)},
          {"burn_in", std::to_string(c.chain.burn_in)},
          {"eval_every", std::to_string(c.chain.eval_every)},
          {"thin", std::to_string(c.chain.Resolved().thin)},
          {"seed", std::to_string(c.chain.seed)},
          {"train", o.input.train},
          {"test", o.input.test.empty() ? "fraction " + io::FormatReal(o.input.test_fraction)
                                        : o.input.test},
          {"users", std::to_string(data.problem.rows)},
          {"items", std::to_string(data.problem.cols)},
          {"train_ratings", std::to_string(data.problem.train_count)},
          {"test_ratings", std::to_string(data.problem.test_count)},
          {"cold_test_ratings", std::to_string(data.cold_test)}};
}

std::string MfStatus(const TraceRow& row, bool has_test) {
  char status[96];
  if (!has_test) {
    std::snprintf(status, sizeof status, "train rmse %.4f", row.rmse_train);
    return std::string(status);
  }
  int n = std::snprintf(status, sizeof status, "rmse %.4f", row.rmse_sample);
  if (!std::isnan(row.rmse_mean) && n > 0)
    std::snprintf(status + n, sizeof status - n, "  (posterior mean %.4f)", row.rmse_mean);
  return std::string(status);
}

void CheckStepWarmup(long long step_warmup, std::uint64_t burn_in) {
  if (step_warmup > 0 && static_cast<std::uint64_t>(step_warmup) > burn_in)
    throw SettingError("step-warmup", "must not exceed --burn-in (" + std::to_string(burn_in) +
                                          "): the samples kept must follow the step schedule");
}

void CheckGibbsReference(int ranks, std::uint64_t keep_samples) {
  if (ranks != 1) throw SettingError("sampler", "gibbs runs in a single process only");
  if (keep_samples > 0) throw SettingError("keep-samples", "is not available with --sampler gibbs");
}

std::string MfClosing(const io::LoadedMf& data, const BpmfModel& model,
                      const io::MfRunResult& result, int ranks, double run_seconds,
                      const std::string& out) {
  const TraceRow& last = model.trace().back();
  const MfPosterior& posterior = result.posterior;
  const bool has_test = data.problem.test_count > 0;
  std::string text;
  if (!has_test)
    text = PrintfText(
        "carousel mf: %llu iterations on %d rank(s) in %.2f s; no test set (use --test or "
        "--test-fraction), training minibatch RMSE %.4f; %llu kept draws; output in %s\n",
        static_cast<unsigned long long>(last.iteration), ranks, run_seconds, last.rmse_train,
        static_cast<unsigned long long>(posterior.samples), out.c_str());
  else
    text = PrintfText(
        "carousel mf: %llu iterations on %d rank(s) in %.2f s; test RMSE %.4f (sample), "
        "%.4f (posterior mean of %llu samples); %llu of %llu test ratings had an unseen user "
        "or item; output in %s\n",
        static_cast<unsigned long long>(last.iteration), ranks, run_seconds, last.rmse_sample,
        last.rmse_mean, static_cast<unsigned long long>(posterior.samples),
        static_cast<unsigned long long>(data.cold_test),
        static_cast<unsigned long long>(data.problem.test_count), out.c_str());
  if (has_test && posterior.samples > 0) {
    const std::vector<double> rating(result.test.value.begin(), result.test.value.end());
    text += "carousel mf: calibration: " +
            DescribeCalibration(CalibrationOf(rating, posterior.pred_mean, posterior.pred_sd,
                                              model.NoiseVariancePosteriorMean())) +
            "\n";
  }
  return text;
}

}  // namespace carousel
