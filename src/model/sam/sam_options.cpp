#include "carousel/model/sam/sam_options.hpp"

#include <cmath>
#include <cstdio>

#include "carousel/io/corpus_reader.hpp"
#include "carousel/io/json.hpp"
#include "carousel/io/text_output.hpp"
#include "carousel/util/error.hpp"
#include "carousel/util/printf_text.hpp"

namespace carousel {

void CheckSamOptions(SamOptions& o) {
  if (o.sampler.diffusion != "zero")
    throw SettingError("diffusion",
                       "sam takes the gradient-noise estimate V of Eq. 8 as zero, "
                       "as the paper does for this model (Sec. 5.3)");
  if (o.config.tfidf.min_df > o.config.tfidf.max_df)
    throw SettingError("min-df", "must not exceed --max-df");
  o.config.sampler = FindSampler(o.sampler.name, BlockKind::kSphere).sphere.value();
  io::ParseCorpusFormat(o.format);
}

std::vector<ResolvedDefault> ResolveSamStep(SamOptions& o, std::uint64_t train_documents) {
  SamConfig& c = o.config;
  c.step = o.step > 0 ? o.step : std::sqrt(o.learning_rate / static_cast<double>(train_documents));
  c.friction = o.friction_given ? o.sampler.friction : o.momentum / c.step;
  c.thermostat_initial = o.thermostat_given ? o.sampler.thermostat_initial : c.friction;
  std::vector<ResolvedDefault> chosen;
  if (o.step <= 0) chosen.push_back({"--step", io::FormatReal(c.step), "sqrt(learning rate / D)"});
  if (!o.friction_given)
    chosen.push_back({"--friction", io::FormatReal(c.friction), "momentum / step"});
  if (!o.thermostat_given)
    chosen.push_back(
        {"--thermostat-initial", io::FormatReal(c.thermostat_initial), "the friction"});
  return chosen;
}

std::vector<std::pair<std::string, std::string>> SamConfigurationLines(const SamOptions& o,
                                                                       const Corpus& corpus,
                                                                       const TfIdfCorpus& sam,
                                                                       const SamCounts& counts) {
  const SamConfig& c = o.config;
  return {{"sampler", o.sampler.name},
          {"step", io::FormatReal(c.step)},
          {"friction", io::FormatReal(c.friction)},
          {"topics", std::to_string(c.topics)},
          {"alpha", io::FormatReal(c.alpha)},
          {"sigma", io::FormatReal(c.sigma)},
          {"kappa0", io::FormatReal(c.kappa0)},
          {"kappa1", io::FormatReal(c.kappa1)},
          {"minibatch", io::FormatReal(c.minibatch) + " documents"},
          {"theta_steps", std::to_string(c.theta_steps)},
          {"iterations", std::to_string(c.chain.iterations)},
          {"burn_in", std::to_string(c.chain.burn_in)},
          {"eval_every", std::to_string(c.chain.eval_every)},
          {"eval_draws", std::to_string(c.eval_draws)},
          {"seed", std::to_string(c.chain.seed)},
          {"split_seed", std::to_string(c.chain.split_seed)},
          {"corpus", corpus.path + " (" + io::CorpusFormatName(corpus.format) + ")"},
          {"vocabulary", std::to_string(corpus.vocabulary) + " words, " +
                             std::to_string(sam.vocabulary.size()) +
                             " kept (document frequency in [" + io::FormatReal(c.tfidf.min_df) +
                             ", " + io::FormatReal(c.tfidf.max_df) + "])"},
          {"documents", std::to_string(corpus.documents)},
          {"train_documents", std::to_string(counts.train_documents)},
          {"held_out_documents", std::to_string(counts.held_out_documents)},
          {"documents_without_kept_words", std::to_string(counts.excluded_documents)}};
}

std::string SamStatus(const SamTraceRow& row) {
  char status[128];
  std::snprintf(status, sizeof status, "log-perplexity %.2f (sample %.2f +- %.2f)",
                row.log_perplexity, row.log_perplexity_sample, row.log_perplexity_se);
  return std::string(status);
}

void DescribeSamRun(const SamConfig& config, std::size_t V, double theta_step,
                    io::RunModelJson& description) {
  description.facts = {
      {"topics", std::to_string(config.topics)}, {"alpha", io::JsonNumber(config.alpha)},
      {"sigma", io::JsonNumber(config.sigma)},   {"kappa0", io::JsonNumber(config.kappa0)},
      {"kappa1", io::JsonNumber(config.kappa1)}, {"vocabulary", std::to_string(V)},
      {"theta_step", io::JsonNumber(theta_step)}};
  description.files = {{"topic_vectors", "topic_vectors.npy"},
                       {"words", "words.txt"},
                       {"idf", "idf.npy"},
                       {"topics", "topics.txt"},
                       {"held_out_documents", "heldout.txt"}};
}

std::string SamClosing(const SamModel& model, const SamCounts& counts, std::size_t words_kept,
                       int ranks, double run_seconds, const std::string& out) {
  const SamTraceRow& last = model.trace().back();
  return PrintfText(
      "carousel sam: %llu iterations on %d rank(s) in %.2f s (%.2f s sampling); held-out "
      "log-perplexity %.3f (averaged over %llu samples), %.3f +- %.3f (last sample); %llu "
      "training and %llu held-out documents, %zu words kept; output in %s\n",
      static_cast<unsigned long long>(last.iteration), ranks, run_seconds, model.seconds_sampling(),
      last.log_perplexity, static_cast<unsigned long long>(model.samples()),
      last.log_perplexity_sample, last.log_perplexity_se,
      static_cast<unsigned long long>(counts.train_documents),
      static_cast<unsigned long long>(counts.held_out_documents), words_kept, out.c_str());
}

}  // namespace carousel
