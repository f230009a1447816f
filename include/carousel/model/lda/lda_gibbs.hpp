// The per-document Gibbs step of stochastic-gradient LDA (Patterson and Teh 2013, Sec. 4;
// recipe paper Sec. 4.2; SCIR paper Sec. 4.1): with the topic-word distributions phi
// fixed and the document's topic proportions collapsed, each token's topic is drawn from
//   p(z = k | rest) proportional to (alpha + n_dk without the token) * phi_kw.
//
// Two ways to compute the same draw, chosen by GibbsDraw:
//   - sparse: phi does not change during the sweeps, so the sum splits into a document
//     bucket sum_k n_dk phi_kw, over the document's topics with n_dk > 0 only, and a
//     smoothing bucket alpha sum_k phi_kw, the same for every token of word w and
//     precomputed once per column block. A draw costs O(topics in the document), plus O(K)
//     only when it lands in the smoothing bucket, whose mass is small once documents are
//     longer than K * alpha tokens.
//   - dense (lda_gibbs_dense.hpp): all K weights in single precision, eight topics per
//     vector operation; at K = 50 the cheaper in whole runs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "carousel/model/lda/lda_gibbs_dense.hpp"
#include "carousel/util/keyed_rng.hpp"

namespace carousel {

// What TopicWordView::Assign fills: everything, or only the single-precision rows, for
// sweeps whose every draw is dense (DocumentGibbs::AllDense). Why: an evaluation assigns a
// view per tile and held-out pass, 11 x --tiles views of each block per evaluation, and
// the double-precision rows and their sums were most of that work (bench/README.md,
// "Scale-out").
enum class ViewParts { kAll, kDenseOnly };

// phi of one column block, word-major (phi[w * K + k] = theta_kw / theta_k.), and the
// smoothing-bucket mass alpha * sum_k phi_kw of each word.
struct TopicWordView {
  int topics = 0;
  double alpha = 0.0;
  std::vector<double> phi;
  std::vector<double> smoothing;
  // phi in single precision for DenseDocumentGibbs (lda_gibbs_dense.hpp): each word's row
  // padded with zeros to dense_stride = K rounded up to a multiple of 8 (whole vectors), and
  // values below the smallest normal float set to 0 (subnormal arithmetic is slow).
  std::size_t dense_stride = 0;
  std::vector<float> phi_dense;

  // Fills the view from expanded-mean parameters theta (word-major, `words` x topics) and
  // the inverse per-topic totals 1 / theta_k. over the whole vocabulary, the words shared
  // out among `threads` threads (each word's row is computed alone, so the same bits).
  // ViewParts::kDenseOnly fills phi_dense alone, with the same bits, and empties phi and
  // smoothing.
  void Assign(const double* theta, std::size_t words, int topics, const double* inverse_total,
              double alpha, int threads = 1, ViewParts parts = ViewParts::kAll);
  const double* Row(std::uint32_t word) const {
    return phi.data() + static_cast<std::size_t>(word) * static_cast<std::size_t>(topics);
  }
  const float* DenseRow(std::uint32_t word) const {
    return phi_dense.data() + static_cast<std::size_t>(word) * dense_stride;
  }
};

// How DocumentGibbs computes its draws (`carousel lda --gibbs-draw`): the sparse or the dense
// way, or auto: dense where the dense sweep runs in vectors (AVX2 and K <= 64), else sparse.
// The draws are from the same conditional; their bits differ. Why auto does not choose by
// the topics of each document: in whole runs at K = 50 (KOS and the generated benchmark
// corpus) every iteration was faster with the dense draw for all documents, while the sparse
// draw was the faster only on documents with few topics under the converged topics of a long
// run (bench/README.md, "A dense Gibbs draw").
enum class GibbsDraw { kAuto, kSparse, kDense };
const char* GibbsDrawName(GibbsDraw d);
GibbsDraw ParseGibbsDraw(const std::string& name);  // throws SettingError on others

class DocumentGibbs {
 public:
  // dense_from: draw densely for documents with at least this many topics at the start of
  // a sweep, sparsely for the others (a benchmark's experiment; -1: as `draw` says).
  explicit DocumentGibbs(int topics, GibbsDraw draw = GibbsDraw::kAuto, int dense_from = -1);

  // One sweep, in order, over the n tokens (word[i] indexes the view's rows, topic[i] is
  // updated in place) of a document whose topic counts over all its tokens are
  // doc_topic. Random numbers from rng only, drawn for the whole sweep before it starts: one
  // uniform per token for the sparse draw, one number per two tokens for the dense one. When
  // `accumulate` is not null, each token then adds 1 to accumulate[word * K + new topic].
  void Sweep(const std::uint32_t* word, std::uint16_t* topic, std::size_t n,
             std::uint32_t* doc_topic, const TopicWordView& view, KeyedStream& rng,
             std::uint32_t* accumulate);
  // sweeps.sweeps such sweeps in a row, each drawing its numbers after the last one's, sweep
  // s adding to sweeps.accumulate when s >= sweeps.kept_from: the bits of that many calls of
  // Sweep (where every draw is dense, in one call of DenseDocumentGibbs::Sweeps).
  void Sweeps(const std::uint32_t* word, std::uint16_t* topic, std::size_t n,
              std::uint32_t* doc_topic, const TopicWordView& view, KeyedStream& rng,
              const SweepCount& sweeps);
  // The sweeps of two documents, each with the bits of its own call of Sweeps (in turn,
  // token by token, where every draw is dense: DenseDocumentGibbs::SweepsPair).
  void SweepsPair(const DocumentSweeps& a, const DocumentSweeps& b, const TopicWordView& view);
  // The sweeps of every piece, two at a time (SweepsPair), each pairing pieces of similar
  // length: a pair's tokens go in turn only while both have some left, and at 16 tiles a
  // document's piece of a tile (about 8 tokens) often differs from its neighbour's by a
  // third. Reorders `pieces`; each piece gets the bits of its own call of Sweeps.
  void SweepsInPairs(std::vector<DocumentSweeps>& pieces, const TopicWordView& view);
  // Whether every draw is dense, so that the view's dense rows are all a sweep reads.
  bool AllDense() const { return dense_from_ == 0; }

 private:
  void Add(std::uint32_t* doc_topic, int k);
  void Remove(std::uint32_t* doc_topic, int k);

  int topics_;
  int dense_from_;  // the fewest topics in a document for which Sweep draws densely
  DenseDocumentGibbs dense_;
  std::vector<int> present_;      // topics with n_dk > 0, in the order they appeared
  std::vector<int> position_;     // index of each topic in present_, or -1
  std::vector<double> weight_;    // document-bucket weight of each present topic
  std::vector<double> uniforms_;  // the sweep's uniforms, one per token
};

}  // namespace carousel
