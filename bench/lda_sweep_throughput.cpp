// Token visits per second of LDA's per-document kernels alone (DocumentGibbs::Sweep, or
// DocumentMh::Sweep with --mh-steps S; every alias table is rebuilt each second sweep, as
// training rebuilds them each iteration),
// on a real corpus and a real run's topics, one core, without the engine around it.
//
// Why a separate benchmark: a whole `carousel lda` run mixes the kernel with SCIR's update,
// evaluation and start-up, and on a shared machine its clock moves by +-20% from minute to
// minute, more than a kernel change gains. Here each figure is the best of several
// repeats of the same deterministic work, and two binaries can be compared by alternating.
//
// Two figures:
//   cold: the first two sweeps from topics drawn uniformly (documents use many topics, as
//         in a chain's first iterations);
//   warm: 4 sweeps after 20 of burn-in under the given topics (documents use few topics, as
//         late in a chain).
// Every sweep adds its tokens' topics to a word-topic count table, as training's kept
// sweeps do.
//
// Usage: lda_sweep_throughput CORPUS TOPIC_WORD.npy [--repeats R] [--alpha A] [--mh-steps S]
//          [--gibbs-draw auto|sparse|dense] [--dense-from T]
//   CORPUS: UCI or LDA-C; TOPIC_WORD.npy: K x V float64, e.g. a `carousel lda` run's output.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "carousel/io/corpus_reader.hpp"
#include "carousel/io/npy.hpp"
#include "carousel/model/lda/lda_gibbs.hpp"
#include "carousel/model/lda/lda_mh.hpp"
#include "carousel/util/keyed_rng.hpp"

using namespace carousel;

namespace {

struct Tokens {
  std::vector<std::uint64_t> start;  // document d's tokens: [start[d], start[d + 1])
  std::vector<std::uint32_t> word;
  std::vector<std::uint16_t> topic;
  std::vector<std::uint32_t> doc_topic;  // documents x K
};

Tokens Expand(const Corpus& corpus, int topics) {
  Tokens t;
  t.start.push_back(0);
  for (std::uint32_t d = 0; d < corpus.documents; ++d) {
    for (std::uint64_t e = corpus.doc_start[d]; e < corpus.doc_start[d + 1]; ++e)
      t.word.insert(t.word.end(), corpus.count[e], corpus.word[e]);
    t.start.push_back(t.word.size());
  }
  t.topic.resize(t.word.size());
  t.doc_topic.assign(static_cast<std::size_t>(corpus.documents) * topics, 0);
  for (std::uint32_t d = 0; d < corpus.documents; ++d) {
    KeyedStream rng(1, Purpose::kTest, d, 0);
    for (std::uint64_t i = t.start[d]; i < t.start[d + 1]; ++i) {
      t.topic[i] = static_cast<std::uint16_t>(rng.below(static_cast<std::uint64_t>(topics)));
      t.doc_topic[static_cast<std::size_t>(d) * topics + t.topic[i]]++;
    }
  }
  return t;
}

// The kernel under test: Gibbs, or Metropolis-Hastings with `mh_steps` cycles per token.
struct Kernel {
  Kernel(int topics, int mh_steps, GibbsDraw draw, int dense_from)
      : gibbs(topics, draw, dense_from),
        mh(topics, mh_steps > 0 ? mh_steps : 1),
        use_mh(mh_steps > 0) {}
  DocumentGibbs gibbs;
  DocumentMh mh;
  WordProposals proposals;
  bool use_mh;
};

// One sweep over every document; returns its seconds.
double SweepAll(Tokens& t, int topics, const TopicWordView& view, Kernel& kernel,
                std::vector<std::uint32_t>& counts, std::uint64_t sweep) {
  const auto begin = std::chrono::steady_clock::now();
  if (kernel.use_mh && sweep % 2 == 0) kernel.proposals.Reset(view);
  const std::size_t documents = t.start.size() - 1;
  for (std::size_t d = 0; d < documents; ++d) {
    KeyedStream rng(2, Purpose::kTest, d, sweep);
    std::uint16_t* z = t.topic.data() + t.start[d];
    const std::size_t n = t.start[d + 1] - t.start[d];
    std::uint32_t* doc_topic = t.doc_topic.data() + d * topics;
    if (kernel.use_mh)
      kernel.mh.Sweep(t.word.data() + t.start[d], z, n, z, n, doc_topic, view, kernel.proposals,
                      rng, counts.data());
    else
      kernel.gibbs.Sweep(t.word.data() + t.start[d], z, n, doc_topic, view, rng, counts.data());
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
}

double MeanTopicsPerDocument(const Tokens& t) {
  std::size_t used = 0;
  for (std::uint32_t c : t.doc_topic) used += c > 0;
  return static_cast<double>(used) / static_cast<double>(t.start.size() - 1);
}

// FNV-1a of the final topics: two builds of the kernel that should agree bit for bit
// print the same value.
std::uint64_t Fingerprint(const std::vector<std::uint16_t>& topic) {
  std::uint64_t h = 14695981039346656037ull;
  for (std::uint16_t z : topic) h = (h ^ z) * 1099511628211ull;
  return h;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s CORPUS TOPIC_WORD.npy [--repeats R] [--alpha A]\n", argv[0]);
    return 2;
  }
  int repeats = 5, mh_steps = 0;
  GibbsDraw draw = GibbsDraw::kAuto;
  int dense_from = -1;  // as --gibbs-draw says
  double alpha = 0.1;
  for (int a = 3; a + 1 < argc; a += 2) {
    if (!std::strcmp(argv[a], "--repeats")) repeats = std::stoi(argv[a + 1]);
    if (!std::strcmp(argv[a], "--alpha")) alpha = std::stod(argv[a + 1]);
    if (!std::strcmp(argv[a], "--mh-steps")) mh_steps = std::stoi(argv[a + 1]);
    if (!std::strcmp(argv[a], "--gibbs-draw")) draw = ParseGibbsDraw(argv[a + 1]);
    if (!std::strcmp(argv[a], "--dense-from")) dense_from = std::stoi(argv[a + 1]);
  }
  const Corpus corpus = io::ReadCorpus(argv[1]);
  const io::NpyArray npy = io::ReadNpy(argv[2]);
  if (npy.descr != "<f8" || npy.shape.size() != 2 || npy.shape[1] != corpus.vocabulary) {
    std::fprintf(stderr, "%s: expected K x %u float64\n", argv[2], corpus.vocabulary);
    return 2;
  }
  const int K = static_cast<int>(npy.shape[0]);
  const std::size_t V = corpus.vocabulary;
  std::vector<double> phi(K * V), theta(V * K);
  std::memcpy(phi.data(), npy.data.data(), phi.size() * sizeof(double));
  for (std::size_t w = 0; w < V; ++w)
    for (int k = 0; k < K; ++k) theta[w * K + k] = phi[k * V + w];
  const std::vector<double> inverse_total(K, 1.0);  // rows of topic_word already sum to 1
  TopicWordView view;
  view.Assign(theta.data(), V, K, inverse_total.data(), alpha);

  Kernel kernel(K, mh_steps, draw, dense_from);
  std::vector<std::uint32_t> counts(V * K, 0);
  double cold = 1e300, warm = 1e300, cold_topics = 0, warm_topics = 0;
  std::size_t tokens = 0;
  std::uint64_t fingerprint = 0;
  for (int r = 0; r < repeats; ++r) {
    Tokens t = Expand(corpus, K);
    tokens = t.word.size();
    cold_topics = MeanTopicsPerDocument(t);
    cold = std::min(
        cold, SweepAll(t, K, view, kernel, counts, 0) + SweepAll(t, K, view, kernel, counts, 1));
    for (std::uint64_t s = 2; s < 20; ++s) SweepAll(t, K, view, kernel, counts, s);
    warm_topics = MeanTopicsPerDocument(t);
    double seconds = 0;
    for (std::uint64_t s = 20; s < 24; ++s) seconds += SweepAll(t, K, view, kernel, counts, s);
    warm = std::min(warm, seconds / 2);  // per two sweeps, as cold
    fingerprint = Fingerprint(t.topic);
  }
  std::string name = "mh, " + std::to_string(mh_steps) + " steps";
  if (mh_steps == 0) {
    name = std::string("gibbs, ") + GibbsDrawName(draw);
    if (dense_from >= 0) name = "gibbs, dense from " + std::to_string(dense_from) + " topics";
  }
  std::printf("%s, tokens %zu, K %d, best of %d\n", name.c_str(), tokens, K, repeats);
  std::printf("cold: %.2fM token visits/s (%.1f ns each), %.1f topics per document at the start\n",
              2 * tokens / cold / 1e6, cold * 1e9 / (2 * tokens), cold_topics);
  std::printf("warm: %.2fM token visits/s (%.1f ns each), %.1f topics per document\n",
              2 * tokens / warm / 1e6, warm * 1e9 / (2 * tokens), warm_topics);
  std::printf("final topics' fingerprint %016llx\n", static_cast<unsigned long long>(fingerprint));
  return 0;
}
