// An O(1)-per-token Metropolis-Hastings alternative to DocumentGibbs (lda_gibbs.hpp): the
// "cycle proposal" of LightLDA (Yuan et al. 2015, "LightLDA: Big Topic Models on Modest
// Computer Clusters", Sec. 3: alternate a word proposal and a document proposal, each
// followed by its own MH test), as WarpLDA (Chen et al. 2016) also does.
//
// Target, as DocumentGibbs's, with phi fixed during the document's sweeps:
//   pi(k) = p(z_i = k | z_-i, phi) proportional to (n_dk^-i + alpha) phi_kw.
// From the current topic s, with t != s (t = s is a move to the same state):
//   - word proposal q_w(t) proportional to phi_tw, drawn in O(1) from an alias table of
//     word w (built once per phi, WordProposals). Acceptance
//       min(1, pi(t) q_w(s) / (pi(s) q_w(t))) = min(1, (n_dt^-i + alpha) / (n_ds^-i + alpha)).
//   - document proposal q_d(t | s) proportional to n_dt^-i + [t = s] + alpha: with
//     probability n_d / (n_d + K alpha) the topic of a uniformly chosen token of the
//     document (its current topics, token i's included), else a uniform topic. Acceptance
//       min(1, pi(t) q_d(s | t) / (pi(s) q_d(t | s))) = min(1, phi_tw / phi_sw),
//     because q_d(s | t) = (n_ds^-i + alpha) / (n_d + K alpha) and
//     q_d(t | s) = (n_dt^-i + alpha) / (n_d + K alpha).
// Each step is a Metropolis-Hastings kernel that leaves pi invariant, so their cycle does;
// together they are irreducible wherever phi_kw > 0 (the word proposal reaches every such
// topic in one step). A draw costs O(steps), not O(topics of the document).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "carousel/model/lda/lda_gibbs.hpp"
#include "carousel/util/alias_table.hpp"
#include "carousel/util/keyed_rng.hpp"

namespace carousel {

// The document sampler of the training sweeps (`carousel lda --doc-sampler`).
enum class DocSampler { kGibbs, kMh };
const char* DocSamplerName(DocSampler s);
DocSampler ParseDocSampler(const std::string& name);  // throws SettingError on others

// Alias tables of q_w(k) proportional to phi_kw, one per word of a view, each built the
// first time it is needed after Reset (a minibatch touches only some of the words).
class WordProposals {
 public:
  // The view's phi is new: every table is stale. `view` must outlive the draws.
  void Reset(const TopicWordView& view);
  // Builds word w's table if it is stale; then Draw(w, ...) may be called.
  void Ensure(std::uint32_t word);
  // Builds every stale table now, on `threads` threads, so that sweeps running at the same
  // time only read the tables (Ensure then finds each built). The same tables as Ensure's.
  void EnsureAll(int threads);
  // Where a draw with the 64-bit random number `bits` will look in word w's table: with
  // u = bits / 2^64, K u = i + f where i is uniform on 0..K-1 and, given i, f is uniform
  // on [0, 1) (to 2^-53), so one number gives both the entry and its coin.
  const void* Entry(std::uint32_t word, std::uint64_t bits) const {
    return &table_[static_cast<std::size_t>(word) * topics_ + Index(bits)];
  }
  std::uint32_t Draw(std::uint32_t word, std::uint64_t bits) const {
    const unsigned __int128 x = static_cast<unsigned __int128>(bits) * topics_;
    const Cell& c =
        table_[static_cast<std::size_t>(word) * topics_ + static_cast<std::size_t>(x >> 64)];
    const double f = static_cast<double>(static_cast<std::uint64_t>(x)) * 0x1.0p-64;
    return f < c.prob ? static_cast<std::uint32_t>(x >> 64) : c.alias;
  }

 private:
  const TopicWordView* view_ = nullptr;
  std::size_t topics_ = 0;
  struct Cell {  // one cache access per draw: the coin and the alias side by side
    double prob;
    std::uint32_t alias;
  };
  std::size_t Index(std::uint64_t bits) const {
    return static_cast<std::size_t>((static_cast<unsigned __int128>(bits) * topics_) >> 64);
  }
  std::vector<Cell> table_;
  std::vector<std::uint64_t> built_;  // the generation each word's table was built in
  std::uint64_t generation_ = 0;
  AliasScratch scratch_;
};

// Deliberate errors, for the tests' negative controls only.
enum class MhFault {
  kNone,
  kNoProposalCorrection,  // both tests accept with pi(t) / pi(s), forgetting q
  kKeepOwnCount,          // the word test uses n_dk with token i's own count
};

class DocumentMh {
 public:
  // `steps`: cycles (one word and one document proposal each) per token and sweep.
  DocumentMh(int topics, int steps, MhFault fault = MhFault::kNone);

  // One sweep, in order, over the n tokens word[i], topic[i] of one tile of a document
  // (as DocumentGibbs::Sweep). The document's tokens over all tiles are
  // doc_z[0..doc_n), which must contain topic[0..n); doc_topic counts them. Random
  // numbers come from rng only; `proposals` was Reset with `view`. When `accumulate` is
  // not null, each token then adds 1 to accumulate[word * K + new topic].
  void Sweep(const std::uint32_t* word, std::uint16_t* topic, std::size_t n,
             const std::uint16_t* doc_z, std::size_t doc_n, std::uint32_t* doc_topic,
             const TopicWordView& view, WordProposals& proposals, KeyedStream& rng,
             std::uint32_t* accumulate);

 private:
  int topics_;
  int steps_;
  MhFault fault_;
  std::vector<std::uint64_t> bits_;  // word-proposal numbers of this token and the next
};

}  // namespace carousel
