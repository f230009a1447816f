#include "carousel/model/lda/lda_mh.hpp"

#include <utility>

#include "carousel/util/error.hpp"

namespace carousel {

const char* DocSamplerName(DocSampler s) {
  return s == DocSampler::kMh ? "mh" : "gibbs";
}

DocSampler ParseDocSampler(const std::string& name) {
  if (name == "gibbs") return DocSampler::kGibbs;
  if (name == "mh") return DocSampler::kMh;
  throw SettingError("doc-sampler", "expected gibbs or mh, got '" + name + "'");
}

void WordProposals::Reset(const TopicWordView& view) {
  view_ = &view;
  topics_ = static_cast<std::size_t>(view.topics);
  const std::size_t words = view.phi.size() / (topics_ > 0 ? topics_ : 1);
  if (table_.size() < view.phi.size()) table_.resize(view.phi.size());
  if (built_.size() < words) built_.resize(words, 0);
  ++generation_;  // every table built before is stale (generation 0 is never current)
}

void WordProposals::Ensure(std::uint32_t word) {
  if (built_[word] == generation_) return;
  const std::size_t at = static_cast<std::size_t>(word) * topics_;
  Cell* cells = table_.data() + at;
  FillAliasTable(view_->Row(word), topics_, scratch_,
                 [cells](std::uint32_t i, double prob, std::uint32_t alias) {
                   cells[i] = {prob, alias};
                 });
  built_[word] = generation_;
}

void WordProposals::EnsureAll(int threads) {
  const std::size_t words = view_->phi.size() / (topics_ > 0 ? topics_ : 1);
#pragma omp parallel num_threads(threads)
  {
    AliasScratch scratch;  // each thread's own
#pragma omp for schedule(static)
    for (std::size_t w = 0; w < words; ++w) {
      if (built_[w] == generation_) continue;
      Cell* cells = table_.data() + w * topics_;
      FillAliasTable(view_->Row(static_cast<std::uint32_t>(w)), topics_, scratch,
                     [cells](std::uint32_t i, double prob, std::uint32_t alias) {
                       cells[i] = {prob, alias};
                     });
      built_[w] = generation_;
    }
  }
}

DocumentMh::DocumentMh(int topics, int steps, MhFault fault)
    : topics_(topics), steps_(steps), fault_(fault) {}

void DocumentMh::Sweep(const std::uint32_t* word, std::uint16_t* topic, std::size_t n,
                       const std::uint16_t* doc_z, std::size_t doc_n, std::uint32_t* doc_topic,
                       const TopicWordView& view, WordProposals& proposals, KeyedStream& rng,
                       std::uint32_t* accumulate) {
  const double alpha = view.alpha;
  const auto K = static_cast<std::size_t>(topics_);
  // The document proposal draws u uniform on (0, n_d + K alpha): below n_d it names a
  // token, above it a topic of width alpha.
  const double doc_mass = static_cast<double>(doc_n) + static_cast<double>(K) * alpha;
  const bool own = fault_ != MhFault::kKeepOwnCount;
  const bool correct = fault_ != MhFault::kNoProposalCorrection;
  // The word proposals of token i + 1 are drawn during token i, so that the table cells
  // they read can be loaded while token i is worked on (the stream's order of draws is
  // fixed all the same, and the numbers are independent of what token i does with its own).
  const auto steps = static_cast<std::size_t>(steps_);
  bits_.resize(2 * steps);
  std::uint64_t* mine = bits_.data();
  std::uint64_t* next_bits = bits_.data() + steps;
  if (n > 0)
    for (std::size_t m = 0; m < steps; ++m) mine[m] = rng.bits();
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t w = word[i];
    if (i + 1 < n) {  // the next token's rows are likely cache misses: start loading them
      const std::uint32_t next = word[i + 1];
      for (std::size_t m = 0; m < steps; ++m) {
        next_bits[m] = rng.bits();
        __builtin_prefetch(proposals.Entry(next, next_bits[m]));
      }
      const char* row = reinterpret_cast<const char*>(view.Row(next));
      for (std::size_t b = 0; b < K * sizeof(double); b += 64) __builtin_prefetch(row + b);
      if (accumulate) {
        const char* acc = reinterpret_cast<const char*>(accumulate + next * K);
        for (std::size_t b = 0; b < K * sizeof(std::uint32_t); b += 64)
          __builtin_prefetch(acc + b, 1);
      }
    }
    proposals.Ensure(w);
    const double* phi = view.Row(w);
    std::uint32_t s = topic[i];
    // Accepts t with probability min(1, num / den) and moves token i there; skips the
    // uniform when the move is certain (num >= den), so no random number is wasted.
    auto test = [&](std::uint32_t t, double num, double den) {
      if (num >= den || rng.uniform() * den < num) {
        doc_topic[s]--;
        doc_topic[t]++;
        topic[i] = static_cast<std::uint16_t>(t);
        s = t;
      }
    };
    for (std::size_t step = 0; step < steps; ++step) {
      // Word proposal: the ratio of pi is (n_t + alpha) phi_t / ((n_s + alpha) phi_s) and
      // q_w cancels the phi's.
      std::uint32_t t = proposals.Draw(w, mine[step]);
      if (t != s) {
        const double n_s = static_cast<double>(doc_topic[s]) - (own ? 1.0 : 0.0) + alpha;
        const double n_t = static_cast<double>(doc_topic[t]) + alpha;
        if (correct)
          test(t, n_t, n_s);
        else
          test(t, n_t * phi[t], n_s * phi[s]);
      }
      // Document proposal: q_d cancels the count factors, leaving phi_t / phi_s.
      const double u = rng.uniform() * doc_mass;
      if (u < static_cast<double>(doc_n)) {
        const auto j = static_cast<std::size_t>(u);
        t = doc_z[j < doc_n ? j : doc_n - 1];
      } else {
        const auto k = static_cast<std::size_t>((u - static_cast<double>(doc_n)) / alpha);
        t = static_cast<std::uint32_t>(k < K ? k : K - 1);
      }
      if (t != s) {
        if (correct) {
          test(t, phi[t], phi[s]);
        } else {
          const double n_s = static_cast<double>(doc_topic[s]) - 1.0 + alpha;
          test(t, (static_cast<double>(doc_topic[t]) + alpha) * phi[t], n_s * phi[s]);
        }
      }
    }
    if (accumulate) accumulate[static_cast<std::size_t>(w) * K + s]++;
    std::swap(mine, next_bits);
  }
}

}  // namespace carousel
