#include "carousel/model/amf/amf_options.hpp"

#include <cstdio>

#include "carousel/io/dense_npy_loader.hpp"
#include "carousel/io/json.hpp"
#include "carousel/io/ratings_reader.hpp"
#include "carousel/io/text_output.hpp"
#include "carousel/model/amf/amf_defaults.hpp"
#include "carousel/model/bpmf/mf_defaults.hpp"
#include "carousel/model/bpmf/mf_outputs.hpp"
#include "carousel/util/error.hpp"
#include "carousel/util/printf_text.hpp"

namespace carousel {

void CheckAmfOptions(AmfOptions& o) {
  o.input.format = io::ParseRatingsFormat(o.format);
  if (o.format != "auto" && io::IsNpyFile(o.input.train))
    throw SettingError("format", "applies to sparse input, not the .npy file " + o.input.train);
}

std::vector<ResolvedDefault> ResolveAmfDefaults(AmfOptions& o, const MfProblem& problem) {
  AmfConfig& config = o.config;
  std::vector<ResolvedDefault> chosen;
  if (!o.initial_metric_given) {
    config.sampler.initial_metric = "identity";
    chosen.push_back(
        {"--initial-metric", "identity", "amf's default: the model supplies no metric"});
  }
  // PSGLD's step and floor are given per entry, as carousel mf's (mf_defaults.hpp): the
  // preconditioner sees the mean gradient over the stratum, which shrinks like 1 / N.
  if (config.step.a <= 0) {
    config.step.a = DefaultAmfStep(config.sampler, problem, config.chain.tiles);
    chosen.push_back(
        {"--step", io::FormatReal(config.step.a), "the sampler's default for this data"});
  }
  if (!o.rmsprop_lambda_given) {
    config.sampler.rmsprop_lambda = DefaultRmspropLambda(problem);
    chosen.push_back({"--rmsprop-lambda", io::FormatReal(config.sampler.rmsprop_lambda),
                      "the default, 2 / training entries"});
  }
  config.keep_samples = ResolveKeepSamples(
      o.keep_samples, DefaultKeepSamples(problem.rows, problem.cols, config.rank), chosen);
  return chosen;
}

std::vector<std::pair<std::string, std::string>> AmfConfigurationLines(const AmfOptions& o,
                                                                       const MfProblem& problem,
                                                                       bool dense,
                                                                       std::int64_t fixed_cols) {
  const AmfConfig& c = o.config;
  return {{"sampler", c.sampler.name + " + mirroring (|.| after each block update)"},
          {"step", io::FormatReal(c.step.a) + " * (" + io::FormatReal(c.step.b) + " + t)^-" +
                       io::FormatReal(c.step.c)},
          {"rank", std::to_string(c.rank)},
          {"alpha", io::FormatReal(c.alpha)},
          {"likelihood", AmfLikelihoodName(c.likelihood)},
          {"input", dense ? "dense .npy, every element observed" : "sparse entries"},
          {"fix_rows", o.fix_rows.empty() ? "none"
                                          : o.fix_rows + " (the first " +
                                                std::to_string(fixed_cols) + " columns of W)"},
          {"prior", "W ~ Exponential(" + io::FormatReal(c.lambda_w) + "), H ~ Exponential(" +
                        io::FormatReal(c.lambda_h) + ")"},
          {"schedule", StratumSchedule::Name(c.chain.schedule)},
          {"iterations", std::to_string(c.chain.iterations)},
          {"burn_in", std::to_string(c.chain.burn_in)},
          {"eval_every", std::to_string(c.chain.eval_every)},
          {"seed", std::to_string(c.chain.seed)},
          {"train", o.input.train},
          {"rows", std::to_string(problem.rows)},
          {"cols", std::to_string(problem.cols)},
          {"entries", std::to_string(problem.train_count)}};
}

std::string AmfStatus(const AmfTraceRow& row) {
  char status[96];
  std::snprintf(status, sizeof status, "log-likelihood %.6g, Phi acceptance %.3f",
                row.log_likelihood, row.acceptance);
  return std::string(status);
}

void DescribeAmfRun(const AmfConfig& config, const MfProblem& problem, bool dense,
                    const AmfModel& model, io::RunModelJson& description) {
  description.facts = {
      {"rank", std::to_string(config.rank)},
      {"alpha", io::JsonNumber(config.alpha)},
      {"lambda_w", io::JsonNumber(config.lambda_w)},
      {"lambda_h", io::JsonNumber(config.lambda_h)},
      {"rows", std::to_string(problem.rows)},
      {"cols", std::to_string(problem.cols)},
      {"likelihood",
       io::JsonString(config.likelihood == AmfLikelihood::kComplex ? "complex" : "real")},
      {"dense", dense ? "true" : "false"},
      {"posterior_draws", std::to_string(model.collected())},
      {"sample_dtype", io::JsonString("float32")},
      {"sample_columns", std::to_string(config.rank)},
      {"samples", io::SamplesJson(model.samples_taken())}};
}

std::string AmfClosing(const AmfModel& model, int ranks, double run_seconds,
                       const std::string& out) {
  const AmfTraceRow& last = model.trace().back();
  return PrintfText(
      "carousel amf: %llu iterations on %d rank(s) in %.2f s; training log-likelihood %.6g "
      "(given Phi), Phi acceptance %.3f; posterior means of %llu samples in %s\n",
      static_cast<unsigned long long>(last.iteration), ranks, run_seconds, last.log_likelihood,
      last.acceptance, static_cast<unsigned long long>(model.collected()), out.c_str());
}

}  // namespace carousel
