#include "carousel/model/lda/lda_options.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "carousel/io/corpus_reader.hpp"
#include "carousel/io/json.hpp"
#include "carousel/io/text_output.hpp"
#include "carousel/model/lda/lda_gibbs.hpp"
#include "carousel/model/lda/lda_mh.hpp"
#include "carousel/model/lda/lda_tokens.hpp"
#include "carousel/util/printf_text.hpp"

namespace carousel {
namespace {

// Default h of h (1 + m / tau)^-kappa. SCIR's h is a time of its CIR process, whose mean
// reverts at rate 1 whatever the counts, so one value carries over between corpora; 2
// reached the perplexity targets soonest on a KOS validation split with every document in
// every iteration (bench/README.md, "LDA defaults for time to perplexity"). The
// Euler samplers' steps are the best of a grid on KOS (K = 50, 1000 documents per
// iteration, tuned on another held-out split than the benchmark's); SGRHMC diverged at
// 0.03 (doc/lda.md, "Defaults").
double DefaultLdaStep(SimplexSampler sampler) {
  switch (sampler) {
    case SimplexSampler::kScir:
      return 2.0;
    case SimplexSampler::kSgrld:
      return 0.5;
    case SimplexSampler::kSgrhmc:
      return 0.02;
  }
  return 0.1;
}

// Default --sweeps: 1 where the tiles of a topic-word update (--update-every) sweep at least 2
// training tokens per entry of the block, else 2 (the first of the two is the document's burn-in:
// the kept sweep's topics have had a sweep to adjust to the new phi). An update costs sweeps x its
// tiles' tokens plus one step of its block (words x K entries): where the tokens are few against
// the entries, the second sweep buys better counts for a step that is paid anyway; where they are
// many, the sweeps are nearly all the cost and one sweep makes twice the steps in the same time. On
// validation corpora of KOS's vocabulary and document length, one rank (bench/README.md, "One sweep
// from 2 training tokens per entry"): KOS at 1.1 tokens per entry was ahead with two sweeps from
// perplexity 1500 down; generated corpora at 2.5, 5.3 and 26.6 were ahead with one at equal
// training time, by least at 2.5 (all at one tile). At 16 to 64 tiles, with an update every tile,
// one sweep's draws stayed on a plateau from 1.33 tokens per entry down; that was the update's
// minibatch noise, which the default --update-every (below) removes.
constexpr double kOneSweepTokensPerEntry = 2.0;

// Default --update-every: the fewest tiles (at most --tiles) whose training tokens make 3 per
// entry of a topic-word block. SCIR's step (h = 2) draws a block nearly afresh from Gamma(beta
// + count_hat), and count_hat scales a tile's counts by B: from a tile of 1.66 tokens per
// entry (16 tiles of a 75,000-document generated corpus) or fewer, every draw of phi carried
// that tile's noise, and the chain's held-out perplexity of a draw stayed 50-150 above that
// of its posterior mean. On a validation corpus of that shape (bench/README.md, "Scale-out"),
// at 16, 32 and 64 tiles, one sweep and 60 passes, updates from 3.3 tokens per entry were
// best (557-564, against 575-626 from 1.66 and 564-586 from 6.6 and more), and ahead of the
// every-iteration update with two sweeps (640-685 after 40 passes) in less time.
constexpr double kUpdateTokensPerEntry = 3.0;

// Training tokens per topic-word entry of one tile in an iteration: a tile holds 1/tiles^2
// of the training tokens (q of them per iteration) and 1/tiles of the words.
double TileTokensPerEntry(const LdaConfig& c, const LdaCounts& counts, std::uint64_t vocabulary) {
  const double tokens = static_cast<double>(counts.train_tokens) *
                        c.MinibatchFraction(counts.train_documents) / c.chain.tiles;
  const double entries = static_cast<double>(vocabulary) * c.topics;
  return tokens / entries;
}

}  // namespace

std::string DefaultLdaSweepsRule() {
  return "1 from " + io::FormatReal(kOneSweepTokensPerEntry) +
         " training tokens per topic-word entry of an update's tiles, else 2";
}

std::string DefaultLdaUpdateEveryRule() {
  return "the fewest tiles, at most --tiles, with " + io::FormatReal(kUpdateTokensPerEntry) +
         " training tokens per topic-word entry";
}

int DefaultLdaUpdateEvery(const LdaConfig& c, const LdaCounts& counts, std::uint64_t vocabulary) {
  const double per_tile = TileTokensPerEntry(c, counts, vocabulary);
  // A tolerance: 3 / (3 / 4) is 4.0000000001 in floating point.
  const double tiles = per_tile > 0.0 ? std::ceil(kUpdateTokensPerEntry / per_tile - 1e-9)
                                      : static_cast<double>(c.chain.tiles);
  return static_cast<int>(std::clamp(tiles, 1.0, static_cast<double>(c.chain.tiles)));
}

int DefaultLdaSweeps(const LdaConfig& c, const LdaCounts& counts, std::uint64_t vocabulary) {
  const double per_update = TileTokensPerEntry(c, counts, vocabulary) * c.update_every;
  return per_update >= kOneSweepTokensPerEntry * (1.0 - 1e-12) ? 1 : 2;
}

std::vector<ResolvedDefault> ResolveLdaOptions(LdaOptions& o) {
  LdaConfig& c = o.config;
  c.sampler = ParseSimplexSampler(o.sampler);
  c.doc_sampler = ParseDocSampler(o.doc_sampler);
  c.gibbs_draw = ParseGibbsDraw(o.gibbs_draw);
  c.initial_topics = ParseInitialTopics(o.initial_topics);
  c.first_update = ParseFirstUpdate(o.first_update);
  c.topic_word_mean = ParseTopicWordMean(o.topic_word_mean);
  std::vector<ResolvedDefault> chosen;
  const double h = o.step > 0 ? o.step : DefaultLdaStep(c.sampler);
  if (o.step <= 0) chosen.push_back({"--step", io::FormatReal(h), "the sampler's default"});
  c.step = StepSchedule{h * std::pow(o.tau, o.kappa), o.tau, o.kappa};
  io::ParseCorpusFormat(o.format);  // rejects a bad value before any file is read
  return chosen;
}

bool HasHeldOut(const LdaCounts& counts) {
  return counts.held_out_documents > 0 && counts.test_tokens > 0;
}

std::vector<std::pair<std::string, std::string>> LdaConfigurationLines(const LdaConfig& c,
                                                                       const Corpus& corpus,
                                                                       const LdaCounts& counts) {
  std::vector<std::pair<std::string, std::string>> lines{
      {"sampler", SimplexSamplerName(c.sampler)},
      {"step", io::FormatReal(c.step.At(0)) + " * (1 + m / " + io::FormatReal(c.step.b) + ")^-" +
                   io::FormatReal(c.step.c)},
      {"topics", std::to_string(c.topics)},
      {"alpha", io::FormatReal(c.alpha)},
      {"beta", io::FormatReal(c.beta)},
      {"minibatch", c.minibatch > 0 ? io::FormatReal(c.minibatch) + " documents"
                                    : std::string("every training document")},
      {"sweeps", std::to_string(c.sweeps)},
      {"schedule", StratumSchedule::Name(c.chain.schedule)},
      {"iterations", std::to_string(c.chain.iterations)},
      {"burn_in", std::to_string(c.chain.burn_in)},
      {"eval_every", std::to_string(c.chain.eval_every)},
      {"eval_sweeps", std::to_string(c.eval_sweeps)},
      {"seed", std::to_string(c.chain.seed)},
      {"corpus", corpus.path + " (" + io::CorpusFormatName(corpus.format) + ")"},
      {"vocabulary", std::to_string(corpus.vocabulary) + " words"},
      {"documents", std::to_string(corpus.documents)},
      {"train_documents", std::to_string(counts.train_documents)},
      {"held_out_documents", std::to_string(counts.held_out_documents)},
      {"empty_documents_skipped", std::to_string(counts.empty_documents)},
      {"train_tokens", std::to_string(counts.train_tokens)},
      {"test_tokens", std::to_string(counts.test_tokens)}};
  // Only an mh run, a run of other than the sparse draw and one whose first update counts
  // the initial topics say so, after `sweeps`: the headers of the runs before these options
  // stay as they were.
  const auto after_sweeps = [&lines] {
    return std::find_if(lines.begin(), lines.end(),
                        [](const auto& kv) { return kv.first == "sweeps"; }) +
           1;
  };
  if (c.gibbs_draw != GibbsDraw::kSparse)
    lines.insert(after_sweeps(), {"gibbs_draw", GibbsDrawName(c.gibbs_draw)});
  if (c.update_every > 1)
    lines.insert(after_sweeps(), {"update_every", std::to_string(c.update_every) + " tiles"});
  if (c.first_update != FirstUpdate::kSweeps)
    lines.insert(after_sweeps(), {"first_update", FirstUpdateName(c.first_update)});
  if (c.doc_sampler == DocSampler::kMh)
    lines.insert(after_sweeps(),
                 {"doc_sampler", "mh, " + std::to_string(c.mh_steps) + " steps per token"});
  return lines;
}

std::string LdaStatus(const LdaModel& model) {
  if (!HasHeldOut(model.counts())) return "no held-out perplexity";
  const LdaTraceRow& row = model.trace().back();
  char status[96];
  std::snprintf(status, sizeof status, "perplexity %.1f (sample %.1f)", row.perplexity,
                row.perplexity_sample);
  return std::string(status);
}

std::string LdaFit(const LdaModel& model) {
  const LdaTraceRow& last = model.trace().back();
  char fit[160];
  if (HasHeldOut(model.counts()))
    std::snprintf(fit, sizeof fit,
                  "held-out perplexity %.1f (averaged over %llu samples), %.1f (last sample)",
                  last.perplexity, static_cast<unsigned long long>(model.samples()),
                  last.perplexity_sample);
  else
    std::snprintf(fit, sizeof fit,
                  "no held-out perplexity (no held-out test words: use --test-fraction > 0 "
                  "on a larger corpus)");
  return std::string(fit);
}

void DescribeLdaRun(const LdaConfig& config, const Corpus& corpus, std::uint64_t samples,
                    io::RunModelJson& description) {
  description.facts = {{"topics", std::to_string(config.topics)},
                       {"alpha", io::JsonNumber(config.alpha)},
                       {"beta", io::JsonNumber(config.beta)},
                       {"vocabulary", std::to_string(corpus.vocabulary)},
                       {"documents", std::to_string(corpus.documents)},
                       {"posterior_draws", std::to_string(samples)}};
  description.files = {{"topic_word", "topic_word.npy"},
                       {"doc_topic", "doc_topic.npy"},
                       {"topics", "topics.txt"},
                       {"held_out_documents", "heldout.txt"}};
  if (!corpus.vocab.empty()) description.files.push_back({"vocabulary", "vocab.txt"});
}

std::string LdaClosing(Communicator& comm, const LdaModel& model, double run_seconds,
                       const std::string& out) {
  const LdaGibbsStats gibbs = model.gibbs_stats();
  const std::vector<std::string> gibbs_all =
      comm.AllGather(std::string(reinterpret_cast<const char*>(&gibbs), sizeof gibbs));
  if (comm.rank() != 0) return {};
  const LdaCounts counts = model.counts();
  const LdaTraceRow& last = model.trace().back();
  std::string text = PrintfText(
      "carousel lda: %llu iterations on %d rank(s) in %.2f s (%.2f s sampling); %s; %llu "
      "training and %llu held-out documents, %llu empty documents skipped; output in %s\n",
      static_cast<unsigned long long>(last.iteration), comm.size(), run_seconds,
      model.seconds_sampling(), LdaFit(model).c_str(),
      static_cast<unsigned long long>(counts.train_documents),
      static_cast<unsigned long long>(counts.held_out_documents),
      static_cast<unsigned long long>(counts.empty_documents), out.c_str());
  for (std::size_t r = 0; r < gibbs_all.size(); ++r) {
    LdaGibbsStats g;
    std::memcpy(&g, gibbs_all[r].data(), sizeof g);
    text += PrintfText(
        "  rank %zu: %.2fM token visits per second in training Gibbs sweeps (%llu thread%s)\n", r,
        g.seconds > 0 ? 1e-6 * static_cast<double>(g.tokens_swept) / g.seconds : 0.0,
        static_cast<unsigned long long>(g.threads), g.threads == 1 ? "" : "s");
  }
  return text;
}

}  // namespace carousel
