// The per-document Gibbs step of LDA (lda_gibbs.hpp) against its exact target (DESIGN.md
// section 5, tier 2): with phi fixed, a sweep must leave the document's collapsed
// posterior over topic assignments
//   p(z) proportional to prod_i phi_{z_i w_i} * prod_k Gamma(alpha + n_k) / Gamma(alpha)
// invariant, and each token's draw must be p(z_i = k | rest) proportional to
// (alpha + n_dk without token i) * phi_kw.
//
// Tests, each with a chi-square threshold from the chi-square distribution (p = 1e-4):
//   - Joint: a 4-token document with K = 3 (81 states). 200000 replicates each start
//     from an EXACT draw of p(z) (by enumeration) and apply one sweep; if the sweep leaves
//     p invariant the end states are independent exact draws, so Pearson's chi-square on
//     the 81 cells is exactly chi^2(80) in the limit, no autocorrelation to correct for.
//   - Conditional: one token of a longer document swept alone (the others held fixed, as
//     in a tile) 100000 times against the exact conditional over K = 6 topics, of which
//     some are absent from the document (smoothing bucket) and one has phi = 0 (never
//     chosen).
// Negative controls: the same joint test, run on a plain O(K) copy of the kernel that
// (a) does not remove the token's own count before drawing, (b) ignores alpha, must
// reject; the correct plain copy must pass (the harness is not what rejects).
#include "carousel/model/lda/lda_gibbs.hpp"

#include <gtest/gtest.h>

#include <boost/math/distributions/chi_squared.hpp>
#include <cmath>
#include <functional>
#include <iostream>
#include <memory>
#include <vector>

#include "carousel/util/keyed_rng.hpp"
#include "lda_kernel_check.hpp"

namespace carousel {
namespace {
using namespace lda_check;  // NOLINT(google-build-using-namespace): test helpers

// Sweep signature: words, topics (in/out), n tokens, doc_topic (in/out), view, rng.
using SweepFn = std::function<void(const std::uint32_t*, std::uint16_t*, std::size_t,
                                   std::uint32_t*, const TopicWordView&, KeyedStream&)>;

// The plain O(K) kernel, written from the formula; `variant` breaks it on purpose.
enum class Variant { kCorrect, kKeepOwnCount, kNoAlpha };
void PlainSweep(Variant variant, const std::uint32_t* word, std::uint16_t* topic, std::size_t n,
                std::uint32_t* doc_topic, const TopicWordView& view, KeyedStream& rng) {
  const int K = view.topics;
  std::vector<double> weight(static_cast<std::size_t>(K));
  for (std::size_t i = 0; i < n; ++i) {
    if (variant != Variant::kKeepOwnCount) doc_topic[topic[i]]--;
    const double* phi = view.Row(word[i]);
    double total = 0.0;
    for (int k = 0; k < K; ++k) {
      const double a = variant == Variant::kNoAlpha ? 0.0 : view.alpha;
      weight[k] = (a + doc_topic[k]) * phi[k];
      total += weight[k];
    }
    double u = rng.uniform() * total;
    int chosen = K - 1;
    for (int k = 0; k < K; ++k) {
      if (u < weight[k]) {
        chosen = k;
        break;
      }
      u -= weight[k];
    }
    if (variant == Variant::kKeepOwnCount) doc_topic[topic[i]]--;
    topic[i] = static_cast<std::uint16_t>(chosen);
    doc_topic[chosen]++;
  }
}

SweepFn Plain(Variant v) {
  return
      [v](const std::uint32_t* w, std::uint16_t* z, std::size_t n, std::uint32_t* nd,
          const TopicWordView& view, KeyedStream& rng) { PlainSweep(v, w, z, n, nd, view, rng); };
}

SweepFn Real(int topics) {
  // The sparse draw (the dense one: lda_gibbs_dense_test.cpp), reused across calls as in the
  // engine.
  auto gibbs = std::make_shared<DocumentGibbs>(topics, GibbsDraw::kSparse);
  return [gibbs](const std::uint32_t* w, std::uint16_t* z, std::size_t n, std::uint32_t* nd,
                 const TopicWordView& view,
                 KeyedStream& rng) { gibbs->Sweep(w, z, n, nd, view, rng, nullptr); };
}

// One sweep from each of `replicates` exact draws; chi-square of the end states.
ChiSquare JointAfterOneSweep(const SweepFn& sweep, int replicates) {
  const JointProblem prob;
  std::vector<double> observed(prob.p.size(), 0.0);
  for (int r = 0; r < replicates; ++r) {
    KeyedStream start(17, Purpose::kTest, static_cast<std::uint64_t>(r), 0);
    std::uint16_t z[JointProblem::n];
    std::uint32_t counts[JointProblem::K];
    JointProblem::Decode(prob.Draw(start.uniform()), z, counts);
    KeyedStream rng(17, Purpose::kTest, static_cast<std::uint64_t>(r), 1);
    sweep(prob.words.data(), z, JointProblem::n, counts, prob.view, rng);
    const std::size_t end = JointProblem::Encode(z);
    observed[end] += 1.0;
  }
  return Pearson(observed, prob.p, replicates);
}

constexpr int kReplicates = 200000;

TEST(DocumentGibbs, OneSweepLeavesExactJointPosteriorInvariant) {
  const ChiSquare c = JointAfterOneSweep(Real(JointProblem::K), kReplicates);
  std::cout << "  DocumentGibbs::Sweep: chi2 = " << c.statistic << " on " << c.df
            << " df, p = " << c.p << "\n";
  EXPECT_GT(c.p, kRejectP);
}

TEST(DocumentGibbs, JointTestAcceptsPlainKernelAndRejectsBrokenOnes) {
  const ChiSquare good = JointAfterOneSweep(Plain(Variant::kCorrect), kReplicates);
  const ChiSquare own = JointAfterOneSweep(Plain(Variant::kKeepOwnCount), kReplicates);
  const ChiSquare no_alpha = JointAfterOneSweep(Plain(Variant::kNoAlpha), kReplicates);
  std::cout << "  plain correct kernel: chi2 = " << good.statistic << ", p = " << good.p
            << "\n  own count not removed: chi2 = " << own.statistic << ", p = " << own.p
            << "\n  alpha ignored: chi2 = " << no_alpha.statistic << ", p = " << no_alpha.p << "\n";
  EXPECT_GT(good.p, kRejectP);
  EXPECT_LT(own.p, kRejectP) << "the test cannot see a sweep that keeps the token's own count";
  EXPECT_LT(no_alpha.p, kRejectP) << "the test cannot see a sweep that ignores alpha";
}

// One token, the others fixed: its draws against (alpha + n_dk^{-i}) phi_kw over K = 6.
TEST(DocumentGibbs, SingleTokenDrawsFromExactConditional) {
  const SingleTokenProblem problem;
  const int K = SingleTokenProblem::K;
  const TopicWordView& view = problem.view;
  const auto& words = problem.words;
  const auto& others = problem.others;
  const std::vector<double>& p = problem.p;
  ASSERT_EQ(p[5], 0.0);

  DocumentGibbs gibbs(K, GibbsDraw::kSparse);
  const int draws = 100000;
  std::vector<double> observed(K, 0.0);
  std::vector<std::uint16_t> topic(others);
  topic.push_back(1);
  std::vector<std::uint32_t> counts(K, 0);
  for (auto z : topic) counts[z]++;
  KeyedStream rng(23, Purpose::kTest, 0, 0);
  for (int r = 0; r < draws; ++r) {
    gibbs.Sweep(words.data() + 5, topic.data() + 5, 1, counts.data(), view, rng, nullptr);
    observed[topic[5]] += 1.0;
    for (int k = 0; k < K; ++k) {  // the others' counts are untouched
      std::uint32_t want = topic[5] == k;
      for (auto z : others) want += z == k;
      ASSERT_EQ(counts[k], want);
    }
  }
  const ChiSquare c = Pearson(observed, p, draws);
  std::cout << "  single token, K = 6: chi2 = " << c.statistic << " on " << c.df
            << " df, p = " << c.p << "\n";
  EXPECT_GT(c.p, kRejectP);
}

// accumulate gets +1 at (word, new topic) per token; doc_topic ends as the counts of the
// new topics; one uniform per token is consumed.
TEST(DocumentGibbs, AccumulatesNewTopicsAndConsumesOneUniformPerToken) {
  const int K = 4;
  const std::size_t V = 3;
  std::vector<double> theta{1, 2, 3, 4, 4, 3, 2, 1, 1, 1, 5, 1};
  const TopicWordView view = MakeView(theta, V, K, 0.5);
  const std::vector<std::uint32_t> words{2, 0, 1, 1, 2, 0, 0, 2, 1, 2};
  std::vector<std::uint16_t> topic{0, 1, 2, 3, 0, 1, 2, 3, 0, 1};
  std::vector<std::uint32_t> counts(K, 0);
  for (auto z : topic) counts[z]++;
  std::vector<std::uint32_t> accumulate(V * K, 1);
  DocumentGibbs gibbs(K, GibbsDraw::kSparse);
  for (int sweep = 0; sweep < 3; ++sweep) {
    KeyedStream rng(31, Purpose::kTest, 0, static_cast<std::uint64_t>(sweep));
    gibbs.Sweep(words.data(), topic.data(), words.size(), counts.data(), view, rng,
                accumulate.data());
    KeyedStream fresh(31, Purpose::kTest, 0, static_cast<std::uint64_t>(sweep));
    for (std::size_t i = 0; i < words.size(); ++i) fresh.uniform();
    EXPECT_EQ(rng.uniform(), fresh.uniform()) << "not one uniform per token";
  }
  // After the last sweep: accumulate = 1 + all three sweeps' (word, topic) counts, which
  // include the last sweep's end state. Check the totals and the last state's consistency.
  std::size_t added = 0;
  for (std::uint32_t a : accumulate) added += a - 1;
  EXPECT_EQ(added, 3 * words.size());
  std::vector<std::uint32_t> final_counts(K, 0);
  for (auto z : topic) final_counts[z]++;
  EXPECT_EQ(counts, final_counts);

  // One more sweep into a fresh array: exactly the end state's (word, topic) counts.
  std::vector<std::uint32_t> fresh_acc(V * K, 0);
  KeyedStream rng(31, Purpose::kTest, 1, 0);
  gibbs.Sweep(words.data(), topic.data(), words.size(), counts.data(), view, rng, fresh_acc.data());
  std::vector<std::uint32_t> want(V * K, 0);
  for (std::size_t i = 0; i < words.size(); ++i) want[words[i] * K + topic[i]]++;
  EXPECT_EQ(fresh_acc, want);
}

}  // namespace
}  // namespace carousel
