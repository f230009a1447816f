#include "carousel/model/dpmix/dpmix_options.hpp"

#include <cstdio>

#include "carousel/io/corpus_reader.hpp"
#include "carousel/io/json.hpp"
#include "carousel/io/text_output.hpp"
#include "carousel/util/error.hpp"
#include "carousel/util/printf_text.hpp"

namespace carousel {
namespace {

// Fixed steps, as the paper's Sec. 4.2 (multimodal posteriors): the best of a 3-point grid
// per sampler on KOS with another held-out split than the benchmark reports (bench/README.md,
// "Dirichlet-process mixture on KOS": h = 0.1 of {0.1, 0.5, 2}, eps = 0.05 of {0.01, 0.05,
// 0.2}).
double DefaultStep(SimplexSampler s) {
  return s == SimplexSampler::kScir ? 0.1 : 0.05;
}

}  // namespace

std::vector<ResolvedDefault> ResolveDpmixOptions(DpmixOptions& o) {
  DpmixConfig& c = o.config;
  std::vector<ResolvedDefault> chosen;
  c.sampler = ParseSimplexSampler(o.sampler);
  const double h = o.step > 0 ? o.step : DefaultStep(c.sampler);
  if (o.step <= 0) chosen.push_back({"--step", io::FormatReal(h), "the default"});
  const double hw = o.weight_step > 0 ? o.weight_step : h;
  if (o.weight_step <= 0) chosen.push_back({"--weight-step", io::FormatReal(hw), "--step"});
  c.step = StepSchedule{h, 1.0, 0.0};
  c.weight_step = StepSchedule{hw, 1.0, 0.0};
  if (c.init_components > c.max_components)
    throw SettingError("init-components",
                       "is " + std::to_string(c.init_components) + ", more than --max-components " +
                           std::to_string(c.max_components) +
                           ": the chain would stop at its first iteration; raise "
                           "--max-components or lower --init-components");
  io::ParseCorpusFormat(o.format);
  return chosen;
}

std::vector<std::pair<std::string, std::string>> DpmixConfigurationLines(const DpmixOptions& o,
                                                                         const Corpus& corpus,
                                                                         const DpmixSurvey& s) {
  const DpmixConfig& c = o.config;
  return {{"sampler", SimplexSamplerName(c.sampler)},
          {"step", io::FormatReal(c.step.a)},
          {"weight_step", io::FormatReal(c.weight_step.a)},
          {"a", io::FormatReal(c.a)},
          {"alpha_prior",
           "Gamma(" + io::FormatReal(c.alpha_shape) + ", " + io::FormatReal(c.alpha_rate) + ")"},
          {"minibatch", io::FormatReal(c.minibatch) + " observations"},
          {"schedule", StratumSchedule::Name(c.chain.schedule)},
          {"iterations", std::to_string(c.chain.iterations)},
          {"burn_in", std::to_string(c.chain.burn_in)},
          {"eval_every", std::to_string(c.chain.eval_every)},
          {"seed", std::to_string(c.chain.seed)},
          {"corpus", corpus.path + " (" + io::CorpusFormatName(corpus.format) + ")"},
          {"categories", std::to_string(corpus.vocabulary)},
          {"observations", std::to_string(corpus.documents)},
          {"train_observations", std::to_string(s.train)},
          {"held_out_observations", std::to_string(s.held_out)},
          {"empty_observations_skipped", std::to_string(s.empty)}};
}

std::string DpmixStatus(const DpmixTraceRow& row, bool held_out) {
  char status[128];
  if (held_out)
    std::snprintf(status, sizeof status, "log pred %.4f (sample %.4f), %llu components, alpha %.3g",
                  row.log_pred, row.log_pred_sample, static_cast<unsigned long long>(row.occupied),
                  row.alpha);
  else
    std::snprintf(status, sizeof status, "%llu components, alpha %.3g",
                  static_cast<unsigned long long>(row.occupied), row.alpha);
  return std::string(status);
}

std::string DpmixFit(const DpmixTraceRow& last, bool held_out, double test_fraction) {
  char fit[160];
  if (held_out)
    std::snprintf(fit, sizeof fit,
                  "held-out log predictive per observation %.4f (averaged over %llu samples), "
                  "%.4f (last sample)",
                  last.log_pred, static_cast<unsigned long long>(last.samples),
                  last.log_pred_sample);
  else
    std::snprintf(fit, sizeof fit, "no held-out observations (--test-fraction %s)",
                  io::FormatReal(test_fraction).c_str());
  return std::string(fit);
}

void DescribeDpmixRun(const DpmixConfig& config, std::uint32_t categories, std::size_t K,
                      bool with_vocab, io::RunModelJson& description) {
  description.facts = {{"categories", std::to_string(categories)},
                       {"components", std::to_string(K)},
                       {"alpha_shape", io::JsonNumber(config.alpha_shape)},
                       {"alpha_rate", io::JsonNumber(config.alpha_rate)},
                       {"max_components", std::to_string(config.max_components)}};
  description.files = {{"components", "components.npy"}, {"clusters", "clusters.csv"}};
  if (with_vocab) description.files.push_back({"component_words", "components.txt"});
}

std::string DpmixClosing(const DpmixModel& model, bool held_out, double test_fraction, int ranks,
                         double run_seconds, const std::string& out) {
  const DpmixTraceRow& last = model.trace().back();
  return PrintfText(
      "carousel dpmix: %llu iterations on %d rank(s) in %.2f s (%.2f s sampling); %s; %zu "
      "occupied components, alpha %.4g; output in %s\n",
      static_cast<unsigned long long>(last.iteration), ranks, run_seconds, model.seconds_sampling(),
      DpmixFit(last, held_out, test_fraction).c_str(), model.occupied(), last.alpha, out.c_str());
}

}  // namespace carousel
