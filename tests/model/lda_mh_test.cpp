// The Metropolis-Hastings document kernel of LDA (lda_mh.hpp, LightLDA's cycle proposal)
// against its exact target (DESIGN.md section 5, tier 2): with phi fixed, the conditional
//   p(z_i = k | z_-i, phi) proportional to (alpha + n_dk^-i) phi_kw,
// and so the document's collapsed posterior over all its assignments (lda_kernel_check.hpp),
// must be left invariant by every sweep.
//
// An MH step does not draw from the conditional; it leaves it invariant. So each test
// starts its replicates from EXACT draws of the target (by enumeration) and applies one
// sweep: if the kernel leaves the target invariant, the end states are independent exact
// draws and Pearson's chi-square over the cells is chi^2(cells - 1) in the limit, with no
// autocorrelation to correct for. Thresholds: the chi-square distribution at p = 1e-4.
//   - Joint: the 4-token, K = 3 document (81 states), 200000 replicates, 1 and 3 cycles
//     per token; and a sweep of the middle two tokens only, as in a tile, with the
//     document proposal reading all four tokens' topics.
//   - From a fixed start: 50000 independent chains from z = (0, 0, 0, 0), 40 sweeps each
//     (this also fails if the kernel cannot reach some states); the distance left from
//     the target after 40 sweeps is far below what 50000 draws can see (the chains mix in
//     a few sweeps: the word proposal reaches every topic in one step).
//   - Conditional: one token of a longer document, the others fixed, over K = 6 topics of
//     which some are absent from the document and one has phi = 0 (never chosen).
//   - The word proposal's alias tables draw k proportional to phi_kw.
// Negative controls: the same joint test on the kernel with MhFault::kNoProposalCorrection
// (acceptance pi(t) / pi(s), the proposal ratio forgotten) and MhFault::kKeepOwnCount
// (token i's own count left in n_dk) must reject.
#include "carousel/model/lda/lda_mh.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <vector>

#include "carousel/util/keyed_rng.hpp"
#include "lda_kernel_check.hpp"

namespace carousel {
namespace {
using namespace lda_check;  // NOLINT(google-build-using-namespace): test helpers

// Sweeps tokens [first, last) of the joint problem's document once from `replicates`
// exact draws (or, when start_sweeps > 0, that many sweeps of all tokens from z = 0);
// chi-square of the end states against the exact posterior.
ChiSquare JointTest(int steps, MhFault fault, int replicates, std::size_t first = 0,
                    std::size_t last = JointProblem::n, int start_sweeps = 0) {
  const JointProblem prob;
  DocumentMh mh(JointProblem::K, steps, fault);
  WordProposals proposals;
  proposals.Reset(prob.view);
  std::vector<double> observed(prob.p.size(), 0.0);
  for (int r = 0; r < replicates; ++r) {
    KeyedStream start(41, Purpose::kTest, static_cast<std::uint64_t>(r), 0);
    std::uint16_t z[JointProblem::n];
    std::uint32_t counts[JointProblem::K];
    JointProblem::Decode(start_sweeps > 0 ? 0 : prob.Draw(start.uniform()), z, counts);
    KeyedStream rng(41, Purpose::kTest, static_cast<std::uint64_t>(r), 1);
    for (int sweep = 0; sweep < std::max(1, start_sweeps); ++sweep)
      mh.Sweep(prob.words.data() + first, z + first, last - first, z, JointProblem::n, counts,
               prob.view, proposals, rng, nullptr);
    observed[JointProblem::Encode(z)] += 1.0;
  }
  return Pearson(observed, prob.p, replicates);
}

void Print(const char* what, const ChiSquare& c) {
  std::cout << "  " << what << ": chi2 = " << c.statistic << " on " << c.df << " df, p = " << c.p
            << "\n";
}

constexpr int kReplicates = 200000;

TEST(DocumentMh, OneSweepLeavesExactJointPosteriorInvariant) {
  const ChiSquare one = JointTest(1, MhFault::kNone, kReplicates);
  const ChiSquare three = JointTest(3, MhFault::kNone, kReplicates);
  Print("1 cycle per token", one);
  Print("3 cycles per token", three);
  EXPECT_GT(one.p, kRejectP);
  EXPECT_GT(three.p, kRejectP);
}

TEST(DocumentMh, SweepOfOneTileReadsTheWholeDocument) {
  const ChiSquare c = JointTest(1, MhFault::kNone, kReplicates, 1, 3);
  Print("tokens 1 and 2 of 4 swept", c);
  EXPECT_GT(c.p, kRejectP);
}

TEST(DocumentMh, ChainsFromAFixedStartReachTheExactPosterior) {
  const ChiSquare c = JointTest(1, MhFault::kNone, 50000, 0, JointProblem::n, 40);
  Print("40 sweeps from z = 0", c);
  EXPECT_GT(c.p, kRejectP);
}

TEST(DocumentMh, JointTestRejectsBrokenAcceptanceRatios) {
  const ChiSquare no_q = JointTest(1, MhFault::kNoProposalCorrection, kReplicates);
  const ChiSquare own = JointTest(1, MhFault::kKeepOwnCount, kReplicates);
  Print("proposal ratio forgotten", no_q);
  Print("own count kept", own);
  EXPECT_LT(no_q.p, kRejectP) << "the test cannot see an acceptance without the proposal ratio";
  EXPECT_LT(own.p, kRejectP) << "the test cannot see a word test that keeps token i's count";
}

// One token, the others fixed: from an exact draw of its conditional, one cycle.
TEST(DocumentMh, SingleTokenKeepsExactConditional) {
  const SingleTokenProblem problem;
  const int K = SingleTokenProblem::K;
  const TopicWordView& view = problem.view;
  const auto& words = problem.words;
  const auto& others = problem.others;
  const std::vector<double>& p = problem.p;
  ASSERT_EQ(p[5], 0.0);

  DocumentMh mh(K, 1);
  WordProposals proposals;
  proposals.Reset(view);
  const int draws = 100000;
  std::vector<double> observed(K, 0.0);
  for (int r = 0; r < draws; ++r) {
    KeyedStream rng(43, Purpose::kTest, static_cast<std::uint64_t>(r), 0);
    double u = rng.uniform();
    int start = 0;
    while (start + 1 < K && u >= p[start]) u -= p[start++];
    std::vector<std::uint16_t> topic(others);
    topic.push_back(static_cast<std::uint16_t>(start));
    std::vector<std::uint32_t> counts(K, 0);
    for (auto z : topic) counts[z]++;
    mh.Sweep(words.data() + 5, topic.data() + 5, 1, topic.data(), topic.size(), counts.data(), view,
             proposals, rng, nullptr);
    observed[topic[5]] += 1.0;
    for (int k = 0; k < K; ++k) {  // the counts follow the token; the others are untouched
      std::uint32_t want = topic[5] == k;
      for (auto z : others) want += z == k;
      ASSERT_EQ(counts[k], want);
    }
  }
  const ChiSquare c = Pearson(observed, p, draws);
  Print("single token, K = 6", c);
  EXPECT_GT(c.p, kRejectP);
}

TEST(WordProposals, AliasDrawsFollowPhi) {
  const int K = 7;
  std::vector<double> theta(2 * K);
  for (int k = 0; k < K; ++k) {
    theta[k] = 1.0;
    theta[K + k] = k == 3 ? 0.0 : 0.2 + k * k;  // word 1: uneven, one zero
  }
  const TopicWordView view = MakeView(theta, 2, K, 0.1);
  WordProposals proposals;
  proposals.Reset(view);
  proposals.Ensure(1);
  const int draws = 200000;
  std::vector<double> observed(K, 0.0), p(view.Row(1), view.Row(1) + K);
  double total = 0.0;
  for (double v : p) total += v;
  for (double& v : p) v /= total;
  KeyedStream rng(47, Purpose::kTest, 0, 0);
  for (int r = 0; r < draws; ++r) observed[proposals.Draw(1, rng.bits())] += 1.0;
  const ChiSquare c = Pearson(observed, p, draws);
  Print("alias draws of word 1", c);
  EXPECT_GT(c.p, kRejectP);
}

// accumulate gets +1 at (word, final topic) per token; the counts follow the topics; the
// same stream gives the same sweep.
TEST(DocumentMh, AccumulatesFinalTopicsAndIsAFunctionOfTheStream) {
  const int K = 4;
  const std::size_t V = 3;
  std::vector<double> theta{1, 2, 3, 4, 4, 3, 2, 1, 1, 1, 5, 1};
  const TopicWordView view = MakeView(theta, V, K, 0.5);
  const std::vector<std::uint32_t> words{2, 0, 1, 1, 2, 0, 0, 2, 1, 2};
  std::vector<std::uint16_t> topic{0, 1, 2, 3, 0, 1, 2, 3, 0, 1};
  std::vector<std::uint32_t> counts(K, 0);
  for (auto z : topic) counts[z]++;
  DocumentMh mh(K, 2);
  WordProposals proposals;
  proposals.Reset(view);
  const std::vector<std::uint16_t> topic0 = topic;
  const std::vector<std::uint32_t> counts0 = counts;
  std::vector<std::uint32_t> acc(V * K, 0);
  KeyedStream rng(53, Purpose::kTest, 0, 0);
  mh.Sweep(words.data(), topic.data(), words.size(), topic.data(), words.size(), counts.data(),
           view, proposals, rng, acc.data());
  std::vector<std::uint32_t> want(V * K, 0), final_counts(K, 0);
  for (std::size_t i = 0; i < words.size(); ++i) {
    want[words[i] * K + topic[i]]++;
    final_counts[topic[i]]++;
  }
  EXPECT_EQ(acc, want);
  EXPECT_EQ(counts, final_counts);
  EXPECT_NE(topic, topic0) << "no token moved: a kernel that never accepts would do this";

  std::vector<std::uint16_t> again = topic0;
  std::vector<std::uint32_t> again_counts = counts0;
  KeyedStream same(53, Purpose::kTest, 0, 0);
  WordProposals rebuilt;  // tables built afresh give the same draws
  rebuilt.Reset(view);
  mh.Sweep(words.data(), again.data(), words.size(), again.data(), words.size(),
           again_counts.data(), view, rebuilt, same, nullptr);
  EXPECT_EQ(again, topic);
}

}  // namespace
}  // namespace carousel
