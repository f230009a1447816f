// The dense Gibbs draw (lda_gibbs_dense.hpp) against the exact target, as lda_gibbs_test.cpp
// tests the sparse one (chi-square thresholds at p = 1e-4, the problems of
// lda_kernel_check.hpp):
//   - Joint: the 4-token, K = 3 document (one block of eight lanes, five of them padding);
//     one sweep from 200000 exact draws of the collapsed posterior must leave it invariant.
//   - Conditional: one token against its exact conditional (alpha + n_dk^{-i}) phi_kw, at
//     K = 6 (one block, a topic with phi = 0 never chosen) and at K = 20 (three blocks, so
//     the lane-major search crosses blocks and lanes), 100000 draws each.
// Negative controls: the same tests on the kernel with a deliberate error (the token's own
// count kept during its draw; each lane's cumulative weights offset by its own total instead
// of the lanes' before it) must reject.
// And the vector code must give the scalar steps' bits, several sweeps in one call those of
// one call each, DocumentGibbs's choice of draw must be the one it says, and a view of the dense
// rows alone must have the whole view's dense rows.
#include "carousel/model/lda/lda_gibbs_dense.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "carousel/model/lda/lda_gibbs.hpp"
#include "carousel/util/keyed_rng.hpp"
#include "lda_kernel_check.hpp"

namespace carousel {
namespace {
using namespace lda_check;  // NOLINT(google-build-using-namespace): test helpers

constexpr int kReplicates = 200000;
constexpr int kDraws = 100000;

ChiSquare JointAfterOneSweep(DenseFault fault) {
  const JointProblem prob;
  DenseDocumentGibbs dense(JointProblem::K, fault);
  std::vector<double> observed(prob.p.size(), 0.0);
  for (int r = 0; r < kReplicates; ++r) {
    KeyedStream start(19, Purpose::kTest, static_cast<std::uint64_t>(r), 0);
    std::uint16_t z[JointProblem::n];
    std::uint32_t counts[JointProblem::K];
    JointProblem::Decode(prob.Draw(start.uniform()), z, counts);
    KeyedStream rng(19, Purpose::kTest, static_cast<std::uint64_t>(r), 1);
    dense.Sweep(prob.words.data(), z, JointProblem::n, counts, prob.view, rng, nullptr);
    observed[JointProblem::Encode(z)] += 1.0;
  }
  return Pearson(observed, prob.p, kReplicates);
}

// One token (the last of a document whose other tokens keep their topics) drawn kDraws
// times at K topics: theta_kw from a fixed pattern, some phi = 0, the others' topics
// covering some topics several times and leaving others absent.
struct ManyTopicProblem {
  int K;
  double alpha = 0.15;
  std::vector<double> theta;
  TopicWordView view;
  std::vector<std::uint32_t> words;
  std::vector<std::uint16_t> others;
  std::vector<double> p;

  explicit ManyTopicProblem(int topics) : K(topics), theta(2 * topics), p(topics) {
    for (int k = 0; k < K; ++k) {
      theta[k] = 1.0 + (k * 7 % 5);                                       // word 0
      theta[K + k] = k % 4 == 3 ? 0.0 : 0.2 + 0.9 * ((k * 11 + 3) % 13);  // word 1
    }
    view = MakeView(theta, 2, K, alpha);
    for (int k = 0; k < K; k += 3)  // every third topic, some twice
      for (int c = 0; c <= k % 2; ++c) others.push_back(static_cast<std::uint16_t>(k));
    words.assign(others.size(), 0);
    words.push_back(1);  // the swept token
    double total = 0.0;
    for (int k = 0; k < K; ++k) {
      double n = 0;
      for (auto z : others) n += z == k;
      p[k] = (alpha + n) * view.Row(1)[k];
      total += p[k];
    }
    for (double& v : p) v /= total;
  }
};

ChiSquare SingleToken(const ManyTopicProblem& problem, DenseFault fault) {
  const int K = problem.K;
  DenseDocumentGibbs dense(K, fault);
  std::vector<std::uint16_t> topic(problem.others);
  topic.push_back(0);
  const std::size_t last = topic.size() - 1;
  std::vector<std::uint32_t> counts(static_cast<std::size_t>(K), 0);
  for (auto z : topic) counts[z]++;
  std::vector<double> observed(static_cast<std::size_t>(K), 0.0);
  KeyedStream rng(29, Purpose::kTest, static_cast<std::uint64_t>(K), 0);
  for (int r = 0; r < kDraws; ++r) {
    dense.Sweep(problem.words.data() + last, topic.data() + last, 1, counts.data(), problem.view,
                rng, nullptr);
    observed[topic[last]] += 1.0;
  }
  return Pearson(observed, problem.p, kDraws);
}

TEST(DenseDocumentGibbs, OneSweepLeavesExactJointPosteriorInvariant) {
  const ChiSquare good = JointAfterOneSweep(DenseFault::kNone);
  const ChiSquare own = JointAfterOneSweep(DenseFault::kKeepOwnCount);
  std::cout << "  dense sweep, K = 3: chi2 = " << good.statistic << " on " << good.df
            << " df, p = " << good.p << "\n  own count kept: chi2 = " << own.statistic
            << ", p = " << own.p << "\n";
  EXPECT_GT(good.p, kRejectP);
  EXPECT_LT(own.p, kRejectP) << "the test cannot see a sweep that keeps the token's own count";
}

TEST(DenseDocumentGibbs, SingleTokenDrawsFromExactConditional) {
  for (const int K : {6, 20}) {
    const ManyTopicProblem problem(K);
    const ChiSquare good = SingleToken(problem, DenseFault::kNone);
    const ChiSquare own = SingleToken(problem, DenseFault::kKeepOwnCount);
    const ChiSquare lane = SingleToken(problem, DenseFault::kLaneOffByOne);
    std::cout << "  single token, K = " << K << ": chi2 = " << good.statistic << " on " << good.df
              << " df, p = " << good.p << "; own count kept: p = " << own.p
              << "; lane off by one: p = " << lane.p << "\n";
    EXPECT_GT(good.p, kRejectP) << "K = " << K;
    EXPECT_LT(own.p, kRejectP) << "K = " << K << ": own count kept not seen";
    EXPECT_LT(lane.p, kRejectP) << "K = " << K << ": lane off by one not seen";
  }
}

// A small corpus with random topics: `documents` documents of 60 to 119 tokens over 40
// words, their topics uniform on the first `topics_used` (so with all 50 topics, about 35 at
// the start of a sweep), theta from a fixed pattern with some zeros.
struct RandomDocuments {
  int K;
  std::size_t V = 40;
  std::vector<double> theta;
  TopicWordView view;
  std::vector<std::size_t> start{0};
  std::vector<std::uint32_t> words;
  std::vector<std::uint16_t> topics;
  std::vector<std::uint32_t> counts;  // documents x K

  RandomDocuments(int k_topics, std::size_t documents, int topics_used)
      : K(k_topics), theta(V * static_cast<std::size_t>(k_topics)) {
    for (std::size_t e = 0; e < theta.size(); ++e)
      theta[e] = e % 17 == 5 ? 0.0 : 0.05 + static_cast<double>((e * 37) % 101) / 10.0;
    view = MakeView(theta, V, K, 0.1);
    counts.assign(documents * static_cast<std::size_t>(K), 0);
    KeyedStream rng(41, Purpose::kTest, static_cast<std::uint64_t>(k_topics), 0);
    for (std::size_t d = 0; d < documents; ++d) {
      const std::size_t n = 60 + rng.below(60);
      for (std::size_t i = 0; i < n; ++i) {
        words.push_back(static_cast<std::uint32_t>(rng.below(V)));
        const auto z =
            static_cast<std::uint16_t>(rng.below(static_cast<std::uint64_t>(topics_used)));
        topics.push_back(z);
        counts[d * K + z]++;
      }
      start.push_back(words.size());
    }
  }
  std::size_t Documents() const { return start.size() - 1; }

  // `sweeps` sweeps of every document by `kernel`, each document's stream keyed by it.
  template <typename Kernel>
  void SweepAll(Kernel& kernel, int sweeps, std::vector<std::uint32_t>& accumulate) {
    accumulate.assign(V * static_cast<std::size_t>(K), 0);
    for (int s = 0; s < sweeps; ++s)
      for (std::size_t d = 0; d < Documents(); ++d) {
        KeyedStream rng(43, Purpose::kTest, d, static_cast<std::uint64_t>(s));
        kernel.Sweep(words.data() + start[d], topics.data() + start[d], start[d + 1] - start[d],
                     counts.data() + d * K, view, rng, accumulate.data());
      }
  }
};

TEST(DenseDocumentGibbs, VectorCodeGivesTheScalarStepsBits) {
  for (const int K : {3, 8, 13, 50, 64}) {
    RandomDocuments vector_run(K, 60, K), scalar_run(K, 60, K);
    DenseDocumentGibbs vector_kernel(K), scalar_kernel(K, DenseFault::kNone, true);
    std::vector<std::uint32_t> vector_acc, scalar_acc;
    vector_run.SweepAll(vector_kernel, 3, vector_acc);
    scalar_run.SweepAll(scalar_kernel, 3, scalar_acc);
    EXPECT_EQ(vector_run.topics, scalar_run.topics) << "K = " << K;
    EXPECT_EQ(vector_run.counts, scalar_run.counts) << "K = " << K;
    EXPECT_EQ(vector_acc, scalar_acc) << "K = " << K;
    // The counts are those of the topics, and every topic drawn has phi > 0.
    std::vector<std::uint32_t> recount(vector_run.counts.size(), 0);
    for (std::size_t d = 0; d < vector_run.Documents(); ++d)
      for (std::size_t i = vector_run.start[d]; i < vector_run.start[d + 1]; ++i) {
        const std::uint16_t z = vector_run.topics[i];
        ASSERT_LT(z, K);
        recount[d * K + z]++;
        EXPECT_GT(vector_run.view.Row(vector_run.words[i])[z], 0.0);
      }
    EXPECT_EQ(recount, vector_run.counts) << "K = " << K;
  }
}

// The sweep takes ceil(n / 2) numbers of its stream (two 24-bit uniforms from each), so
// that a document's next sweep, from the same stream, goes on after them; doc_topic ends as
// the counts of the new topics and accumulate gains one per token.
TEST(DenseDocumentGibbs, TakesOneNumberPerTwoTokensAndKeepsTheCounts) {
  for (const std::size_t n : {9, 10}) {
    RandomDocuments docs(13, 1, 13);
    DenseDocumentGibbs dense(13);
    std::vector<std::uint32_t> accumulate(docs.V * 13, 0);
    KeyedStream rng(47, Purpose::kTest, n, 0);
    dense.Sweep(docs.words.data(), docs.topics.data(), n, docs.counts.data(), docs.view, rng,
                accumulate.data());
    KeyedStream fresh(47, Purpose::kTest, n, 0);
    for (std::size_t i = 0; i < (n + 1) / 2; ++i) fresh.bits();
    EXPECT_EQ(rng.bits(), fresh.bits()) << n << " tokens";
    std::vector<std::uint32_t> want(docs.V * 13, 0), counts(13, 0);
    for (std::size_t i = 0; i < docs.start[1]; ++i) counts[docs.topics[i]]++;
    for (std::size_t i = 0; i < n; ++i) want[docs.words[i] * 13 + docs.topics[i]]++;
    EXPECT_EQ(std::vector<std::uint32_t>(docs.counts.begin(), docs.counts.begin() + 13), counts);
    EXPECT_EQ(accumulate, want);
  }
}

// Sweeps(s sweeps, kept from k) on one stream: the bits of s calls of Sweep on that stream,
// the calls from the k-th on given the accumulator, and the stream left where they leave it.
template <typename Kernel>
void ExpectSweepsAreSweepCalls(Kernel& fused, Kernel& calls, int K, int topics_used,
                               const std::string& what) {
  for (const int sweeps : {1, 2, 3}) {
    RandomDocuments fused_run(K, 12, topics_used), calls_run(K, 12, topics_used);
    std::vector<std::uint32_t> fused_acc(fused_run.V * K, 0), calls_acc(calls_run.V * K, 0);
    for (std::size_t d = 0; d < fused_run.Documents(); ++d) {
      // Odd and even lengths: a sweep of an odd one leaves half a number unused.
      const std::size_t n = fused_run.start[d + 1] - fused_run.start[d] - d % 2;
      const std::size_t at = fused_run.start[d];
      KeyedStream fused_rng(53, Purpose::kTest, d, 0), calls_rng(53, Purpose::kTest, d, 0);
      fused.Sweeps(fused_run.words.data() + at, fused_run.topics.data() + at, n,
                   fused_run.counts.data() + d * K, fused_run.view, fused_rng,
                   SweepCount{sweeps, sweeps / 2, fused_acc.data()});
      for (int s = 0; s < sweeps; ++s)
        calls.Sweep(calls_run.words.data() + at, calls_run.topics.data() + at, n,
                    calls_run.counts.data() + d * K, calls_run.view, calls_rng,
                    s >= sweeps / 2 ? calls_acc.data() : nullptr);
      EXPECT_EQ(fused_rng.bits(), calls_rng.bits()) << what << ", " << sweeps << " sweeps";
    }
    EXPECT_EQ(fused_run.topics, calls_run.topics) << what << ", " << sweeps << " sweeps";
    EXPECT_EQ(fused_run.counts, calls_run.counts) << what << ", " << sweeps << " sweeps";
    EXPECT_EQ(fused_acc, calls_acc) << what << ", " << sweeps << " sweeps";
  }
}

// Runs check(first, second, K, topics used, what) on two fresh kernels of each kind: the
// dense vector and scalar code at K = 13 and 50, and DocumentGibbs all dense and split by
// topics (a dense or a sparse draw chosen at the start of each sweep).
template <typename Check>
void OnEveryKernelPair(const Check& check) {
  for (const int K : {13, 50}) {
    DenseDocumentGibbs vector_a(K), vector_b(K);
    check(vector_a, vector_b, K, K, "vector K " + std::to_string(K));
    DenseDocumentGibbs scalar_a(K, DenseFault::kNone, true), scalar_b(K, DenseFault::kNone, true);
    check(scalar_a, scalar_b, K, K, "scalar K " + std::to_string(K));
  }
  DocumentGibbs dense_a(50, GibbsDraw::kDense), dense_b(50, GibbsDraw::kDense);
  check(dense_a, dense_b, 50, 50, "DocumentGibbs dense");
  DocumentGibbs split_a(50, GibbsDraw::kAuto, 10), split_b(50, GibbsDraw::kAuto, 10);
  check(split_a, split_b, 50, 5, "DocumentGibbs split");
}

TEST(DenseDocumentGibbs, SweepsInARowGiveTheBitsOfOneCallEach) {
  OnEveryKernelPair([](auto& fused, auto& calls, int K, int used, const std::string& what) {
    ExpectSweepsAreSweepCalls(fused, calls, K, used, what);
  });
}

// SweepsPair(a, b): for each document the bits of its own call of Sweeps, its stream left
// where that call leaves it, the accumulator the sum of both; documents of different lengths
// (0, 1, odd and even tokens, so that one chain runs on alone) and 1 to 3 sweeps.
template <typename Kernel>
void ExpectPairIsTwoCalls(Kernel& paired, Kernel& single, int K, int topics_used,
                          const std::string& what) {
  for (const int sweeps : {1, 2, 3}) {
    RandomDocuments pair_run(K, 12, topics_used), single_run(K, 12, topics_used);
    std::vector<std::uint32_t> pair_acc(pair_run.V * K, 0), single_acc(single_run.V * K, 0);
    // The length swept of document d: all of it, one token fewer, or none or one.
    const auto length = [&](std::size_t d) {
      const std::size_t whole = pair_run.start[d + 1] - pair_run.start[d];
      return d == 2 ? 0 : d == 5 ? 1 : whole - d % 2;
    };
    for (std::size_t d = 0; d + 1 < pair_run.Documents(); d += 2) {
      KeyedStream pair_rng[2] = {KeyedStream(59, Purpose::kTest, d, 0),
                                 KeyedStream(59, Purpose::kTest, d + 1, 0)};
      KeyedStream single_rng[2] = {KeyedStream(59, Purpose::kTest, d, 0),
                                   KeyedStream(59, Purpose::kTest, d + 1, 0)};
      DocumentSweeps piece[2];
      for (std::size_t m = 0; m < 2; ++m) {
        const std::size_t at = pair_run.start[d + m];
        piece[m] = DocumentSweeps{pair_run.words.data() + at,
                                  pair_run.topics.data() + at,
                                  length(d + m),
                                  pair_run.counts.data() + (d + m) * K,
                                  &pair_rng[m],
                                  SweepCount{sweeps, sweeps / 2, pair_acc.data()}};
        single.Sweeps(single_run.words.data() + at, single_run.topics.data() + at, length(d + m),
                      single_run.counts.data() + (d + m) * K, single_run.view, single_rng[m],
                      SweepCount{sweeps, sweeps / 2, single_acc.data()});
      }
      paired.SweepsPair(piece[0], piece[1], pair_run.view);
      for (std::size_t m = 0; m < 2; ++m)
        EXPECT_EQ(pair_rng[m].bits(), single_rng[m].bits()) << what << ", " << sweeps << " sweeps";
    }
    EXPECT_EQ(pair_run.topics, single_run.topics) << what << ", " << sweeps << " sweeps";
    EXPECT_EQ(pair_run.counts, single_run.counts) << what << ", " << sweeps << " sweeps";
    EXPECT_EQ(pair_acc, single_acc) << what << ", " << sweeps << " sweeps";
  }
}

TEST(DenseDocumentGibbs, PairsGiveTheBitsOfOneCallEach) {
  OnEveryKernelPair([](auto& paired, auto& single, int K, int used, const std::string& what) {
    ExpectPairIsTwoCalls(paired, single, K, used, what);
  });
}

// SweepsInPairs over a chunk's pieces (lengths 0, 1 and more, an odd number of them): every
// piece gets the bits of its own call of Sweeps, whatever the pairing.
TEST(DocumentGibbs, SweepsInPairsGiveTheBitsOfOneCallEach) {
  const int K = 50;
  for (const GibbsDraw draw : {GibbsDraw::kDense, GibbsDraw::kSparse}) {
    for (const std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{7}}) {
      RandomDocuments paired_run(K, 12, K), single_run(K, 12, K);
      std::vector<std::uint32_t> paired_acc(paired_run.V * K, 0), single_acc(single_run.V * K, 0);
      DocumentGibbs paired(K, draw), single(K, draw);
      std::vector<KeyedStream> paired_rng, single_rng;
      paired_rng.reserve(count);
      std::vector<DocumentSweeps> pieces;
      for (std::size_t d = 0; d < count; ++d) {
        const std::size_t at = paired_run.start[d];
        const std::size_t n = d == 1 ? 0 : d == 3 ? 1 : (paired_run.start[d + 1] - at) / (d + 1);
        paired_rng.emplace_back(61, Purpose::kTest, d, 0);
        single_rng.emplace_back(61, Purpose::kTest, d, 0);
        pieces.push_back(DocumentSweeps{paired_run.words.data() + at, paired_run.topics.data() + at,
                                        n, paired_run.counts.data() + d * K, &paired_rng[d],
                                        SweepCount{2, 1, paired_acc.data()}});
        single.Sweeps(single_run.words.data() + at, single_run.topics.data() + at, n,
                      single_run.counts.data() + d * K, single_run.view, single_rng[d],
                      SweepCount{2, 1, single_acc.data()});
      }
      paired.SweepsInPairs(pieces, paired_run.view);
      const std::string what = std::string(GibbsDrawName(draw)) + ", " + std::to_string(count);
      for (std::size_t d = 0; d < count; ++d)
        EXPECT_EQ(paired_rng[d].bits(), single_rng[d].bits()) << what;
      EXPECT_EQ(paired_run.topics, single_run.topics) << what;
      EXPECT_EQ(paired_run.counts, single_run.counts) << what;
      EXPECT_EQ(paired_acc, single_acc) << what;
    }
  }
}

// auto is the dense draw where that is vectorised and the sparse one elsewhere (K > 64, or a
// build without AVX2); dense_from draws densely only for documents with that many topics.
// A view of the dense rows alone has the whole view's dense rows, bit for bit, at K with and
// without padding, with theta at and below the floors that set phi to 0; and AllDense says
// which kernels read nothing else.
TEST(TopicWordView, DenseOnlyHasTheWholeViewsDenseRows) {
  for (const int K : {5, 8, 50}) {
    const std::size_t words = 7;
    std::vector<double> theta(words * static_cast<std::size_t>(K));
    for (std::size_t e = 0; e < theta.size(); ++e)
      theta[e] = e % 11 == 0   ? 1e-310
                 : e % 13 == 0 ? 1e-40
                               : 0.1 + 0.37 * static_cast<double>(e % 17);
    std::vector<double> inverse(static_cast<std::size_t>(K));
    for (int k = 0; k < K; ++k) inverse[static_cast<std::size_t>(k)] = 1.0 / (3.0 + k);
    TopicWordView whole, dense;
    whole.Assign(theta.data(), words, K, inverse.data(), 0.1, 1, ViewParts::kAll);
    dense.phi_dense.assign(whole.phi_dense.size(), 7.0f);  // stale values must be overwritten
    dense.Assign(theta.data(), words, K, inverse.data(), 0.1, 1, ViewParts::kDenseOnly);
    EXPECT_EQ(dense.dense_stride, whole.dense_stride);
    ASSERT_EQ(dense.phi_dense.size(), whole.phi_dense.size());
    EXPECT_EQ(0, std::memcmp(dense.phi_dense.data(), whole.phi_dense.data(),
                             whole.phi_dense.size() * sizeof(float)))
        << "K = " << K;
    EXPECT_TRUE(dense.phi.empty());
    EXPECT_TRUE(dense.smoothing.empty());
    EXPECT_EQ(whole.phi.size(), words * static_cast<std::size_t>(K));
  }
  EXPECT_EQ(DocumentGibbs(50, GibbsDraw::kDense).AllDense(), true);
  EXPECT_EQ(DocumentGibbs(50, GibbsDraw::kSparse).AllDense(), false);
  EXPECT_EQ(DocumentGibbs(50, GibbsDraw::kAuto, 10).AllDense(), false);
}

TEST(DocumentGibbs, AutoIsDenseWhereVectorisedAndDenseFromSplitsByTopics) {
  for (const int K : {50, 80}) {
    RandomDocuments auto_run(K, 40, K), dense_run(K, 40, K), sparse_run(K, 40, K);
    DocumentGibbs auto_kernel(K), dense_kernel(K, GibbsDraw::kDense),
        sparse_kernel(K, GibbsDraw::kSparse);
    std::vector<std::uint32_t> acc;
    auto_run.SweepAll(auto_kernel, 2, acc);
    dense_run.SweepAll(dense_kernel, 2, acc);
    sparse_run.SweepAll(sparse_kernel, 2, acc);
    ASSERT_NE(dense_run.topics, sparse_run.topics) << "K = " << K;
    EXPECT_EQ(auto_run.topics,
              DenseDocumentGibbs::Vectorised(K) ? dense_run.topics : sparse_run.topics)
        << "K = " << K;
  }
  // One sweep of documents that start it with about 35 of 50 topics, and of documents with
  // 3: with dense_from 10 the first are drawn densely and the others sparsely.
  const int K = 50;
  for (const int used : {50, 3}) {
    RandomDocuments split_run(K, 40, used), dense_run(K, 40, used), sparse_run(K, 40, used);
    DocumentGibbs split_kernel(K, GibbsDraw::kAuto, 10), dense_kernel(K, GibbsDraw::kDense),
        sparse_kernel(K, GibbsDraw::kSparse);
    std::vector<std::uint32_t> acc;
    split_run.SweepAll(split_kernel, 1, acc);
    dense_run.SweepAll(dense_kernel, 1, acc);
    sparse_run.SweepAll(sparse_kernel, 1, acc);
    ASSERT_NE(dense_run.topics, sparse_run.topics) << used << " topics";
    EXPECT_EQ(split_run.topics, used >= 10 ? dense_run.topics : sparse_run.topics)
        << used << " topics";
  }
}

}  // namespace
}  // namespace carousel
