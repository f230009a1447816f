#include "carousel/model/lda/lda_gibbs.hpp"

#include <algorithm>
#include <limits>

#include "carousel/util/error.hpp"

namespace carousel {

namespace {

// phi_kw = theta_kw / theta_k. from 1 / theta_k.. Subnormal phi (from theta at SCIR's floor)
// would make every multiply by it slow; such a phi carries less than 1e-300 of the
// probability and is set to 0, in double and in single precision alike.
inline double Phi(double theta, double inverse_total) {
  const double p = theta * inverse_total;
  return p < std::numeric_limits<double>::min() ? 0.0 : p;
}

inline float DensePhi(double phi) {
  const auto f = static_cast<float>(phi);
  return f < std::numeric_limits<float>::min() ? 0.0f : f;
}

}  // namespace

void TopicWordView::Assign(const double* theta, std::size_t words, int k_topics,
                           const double* inverse_total, double alpha_, int threads,
                           ViewParts parts) {
  topics = k_topics;
  alpha = alpha_;
  const auto K = static_cast<std::size_t>(k_topics);
  const bool all = parts == ViewParts::kAll;
  phi.resize(all ? words * K : 0);
  smoothing.resize(all ? words : 0);
  dense_stride = (K + 7) / 8 * 8;
  phi_dense.resize(words * dense_stride);
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1)
  for (std::size_t w = 0; w < words; ++w) {
    const double* theta_w = theta + w * K;
    float* dense = phi_dense.data() + w * dense_stride;
    for (std::size_t k = 0; k < K; ++k) dense[k] = DensePhi(Phi(theta_w[k], inverse_total[k]));
    std::fill(dense + K, dense + dense_stride, 0.0f);
    if (!all) continue;
    double sum = 0.0;
    for (std::size_t k = 0; k < K; ++k) {
      const double p = Phi(theta_w[k], inverse_total[k]);
      phi[w * K + k] = p;
      sum += p;
    }
    smoothing[w] = alpha * sum;
  }
}

const char* GibbsDrawName(GibbsDraw d) {
  switch (d) {
    case GibbsDraw::kSparse:
      return "sparse";
    case GibbsDraw::kDense:
      return "dense";
    default:
      return "auto";
  }
}

GibbsDraw ParseGibbsDraw(const std::string& name) {
  if (name == "auto") return GibbsDraw::kAuto;
  if (name == "sparse") return GibbsDraw::kSparse;
  if (name == "dense") return GibbsDraw::kDense;
  throw SettingError("gibbs-draw", "expected auto, sparse or dense, got '" + name + "'");
}

namespace {
// The fewest topics in a document for which DocumentGibbs draws densely.
int DenseFrom(int topics, GibbsDraw draw, int dense_from) {
  if (dense_from >= 0) return dense_from;
  const bool dense = draw == GibbsDraw::kDense ||
                     (draw == GibbsDraw::kAuto && DenseDocumentGibbs::Vectorised(topics));
  return dense ? 0 : std::numeric_limits<int>::max();
}
}  // namespace

DocumentGibbs::DocumentGibbs(int topics, GibbsDraw draw, int dense_from)
    : topics_(topics),
      dense_from_(DenseFrom(topics, draw, dense_from)),
      dense_(topics),
      position_(static_cast<std::size_t>(topics), -1),
      weight_(static_cast<std::size_t>(topics)) {
  present_.reserve(static_cast<std::size_t>(topics));
}

void DocumentGibbs::Add(std::uint32_t* doc_topic, int k) {
  if (doc_topic[k]++ == 0) {
    position_[k] = static_cast<int>(present_.size());
    present_.push_back(k);
  }
}

void DocumentGibbs::Remove(std::uint32_t* doc_topic, int k) {
  if (--doc_topic[k] == 0) {  // swap-remove from the present list
    const int at = position_[k];
    const int last = present_.back();
    present_[static_cast<std::size_t>(at)] = last;
    position_[last] = at;
    present_.pop_back();
    position_[k] = -1;
  }
}

void DocumentGibbs::Sweeps(const std::uint32_t* word, std::uint16_t* topic, std::size_t n,
                           std::uint32_t* doc_topic, const TopicWordView& view, KeyedStream& rng,
                           const SweepCount& sweeps) {
  if (dense_from_ == 0) return dense_.Sweeps(word, topic, n, doc_topic, view, rng, sweeps);
  for (int s = 0; s < sweeps.sweeps; ++s)
    Sweep(word, topic, n, doc_topic, view, rng, sweeps.AccumulateIn(s));
}

void DocumentGibbs::SweepsPair(const DocumentSweeps& a, const DocumentSweeps& b,
                               const TopicWordView& view) {
  if (dense_from_ == 0) return dense_.SweepsPair(a, b, view);
  Sweeps(a.word, a.topic, a.n, a.doc_topic, view, *a.rng, a.sweeps);
  Sweeps(b.word, b.topic, b.n, b.doc_topic, view, *b.rng, b.sweeps);
}

void DocumentGibbs::SweepsInPairs(std::vector<DocumentSweeps>& pieces, const TopicWordView& view) {
  std::sort(pieces.begin(), pieces.end(),
            [](const DocumentSweeps& a, const DocumentSweeps& b) { return a.n < b.n; });
  std::size_t p = 0;
  for (; p + 1 < pieces.size(); p += 2) SweepsPair(pieces[p], pieces[p + 1], view);
  if (p < pieces.size()) {
    const DocumentSweeps& one = pieces[p];
    Sweeps(one.word, one.topic, one.n, one.doc_topic, view, *one.rng, one.sweeps);
  }
}

void DocumentGibbs::Sweep(const std::uint32_t* word, std::uint16_t* topic, std::size_t n,
                          std::uint32_t* doc_topic, const TopicWordView& view, KeyedStream& rng,
                          std::uint32_t* accumulate) {
  if (dense_from_ == 0)  // no need for the document's topics
    return dense_.Sweep(word, topic, n, doc_topic, view, rng, accumulate);
  for (int k : present_) position_[k] = -1;
  present_.clear();
  for (int k = 0; k < topics_; ++k)
    if (doc_topic[k] > 0) {
      position_[k] = static_cast<int>(present_.size());
      present_.push_back(k);
    }
  if (static_cast<int>(present_.size()) >= dense_from_)
    return dense_.Sweep(word, topic, n, doc_topic, view, rng, accumulate);
  const auto K = static_cast<std::size_t>(topics_);
  uniforms_.resize(n);
  rng.FillUniform(uniforms_.data(), n);
  for (std::size_t i = 0; i < n; ++i) {
    if (i + 1 < n) {  // the next token's phi row is a likely cache miss: start loading it
      const char* next = reinterpret_cast<const char*>(view.Row(word[i + 1]));
      for (std::size_t b = 0; b < K * sizeof(double); b += 64) __builtin_prefetch(next + b);
      if (accumulate) {
        const char* row = reinterpret_cast<const char*>(accumulate + word[i + 1] * K);
        for (std::size_t b = 0; b < K * sizeof(std::uint32_t); b += 64)
          __builtin_prefetch(row + b, 1);
      }
    }
    Remove(doc_topic, topic[i]);
    const double* phi = view.Row(word[i]);
    // Document-bucket weights n_dk phi_kw, summed in four lanes (a fixed order, so every
    // rank gets the same total) instead of one serial chain of additions.
    const std::size_t present = present_.size();
    double lane[4] = {0.0, 0.0, 0.0, 0.0};
    std::size_t p = 0;
    for (; p + 4 <= present; p += 4)
      for (std::size_t l = 0; l < 4; ++l) {
        const int k = present_[p + l];
        weight_[p + l] = static_cast<double>(doc_topic[k]) * phi[k];
        lane[l] += weight_[p + l];
      }
    for (std::size_t l = 0; p < present; ++p, ++l) {
      const int k = present_[p];
      weight_[p] = static_cast<double>(doc_topic[k]) * phi[k];
      lane[l] += weight_[p];
    }
    const double document_mass = (lane[0] + lane[1]) + (lane[2] + lane[3]);
    double u = uniforms_[i] * (document_mass + view.smoothing[word[i]]);
    int chosen = -1;
    if (u < document_mass) {
      // Scan until the running sum passes u (about half the list on average); rounding
      // that leaves the running sum just below document_mass falls to the last topic.
      chosen = present_[present - 1];
      double c = 0.0;
      for (std::size_t q = 0; q < present; ++q) {
        c += weight_[q];
        if (u < c) {
          chosen = present_[q];
          break;
        }
      }
    } else {
      u = (u - document_mass) / view.alpha;
      double c = 0.0;
      for (std::size_t k = 0; k < K; ++k) {
        c += phi[k];
        if (phi[k] > 0.0) chosen = static_cast<int>(k);  // rounding falls to the last one
        if (u < c) break;
      }
    }
    if (chosen < 0) chosen = topic[i];  // all-zero weights cannot happen for theta > 0
    topic[i] = static_cast<std::uint16_t>(chosen);
    Add(doc_topic, chosen);
    if (accumulate) accumulate[static_cast<std::size_t>(word[i]) * K + chosen]++;
  }
}

}  // namespace carousel
