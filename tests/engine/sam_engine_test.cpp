// The SAM engine end to end in one process (SerialCommunicator, in-memory corpus): topics of
// a corpus drawn from three topics on disjoint word ranges are recovered, and a corpus
// without topic structure recovers none (the criterion can fail). The samplers themselves are
// checked against exact targets in tests/sampler/geodesic*_test.cpp and
// tests/model/sam_pieces_test.cpp; rank invariance and resume in tests/mpi/sam.sh.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <vector>

#include "../model/test_corpus.hpp"
#include "carousel/comm/communicator.hpp"
#include "carousel/engine/tile_engine.hpp"
#include "carousel/model/sam/sam_model.hpp"
#include "carousel/model/sam/sam_survey.hpp"
#include "carousel/model/sam/tfidf.hpp"
#include "carousel/util/keyed_rng.hpp"

namespace carousel {
namespace {

constexpr std::uint32_t kWords = 60, kTopics = 3, kDocuments = 300;

// Document d: 40 tokens, 90% from the 20 words of topic d mod 3 (or, without structure,
// from all 60 words), the rest uniform.
Corpus MakeCorpus(bool structured) {
  std::vector<std::vector<std::uint32_t>> counts(kDocuments, std::vector<std::uint32_t>(kWords));
  for (std::uint32_t d = 0; d < kDocuments; ++d) {
    KeyedStream rng(5, Purpose::kTest, d, 0);
    for (int token = 0; token < 40; ++token) {
      const bool on_topic = structured && rng.uniform() < 0.9;
      const std::uint32_t w = on_topic
                                  ? (d % kTopics) * 20 + static_cast<std::uint32_t>(rng.below(20))
                                  : static_cast<std::uint32_t>(rng.below(kWords));
      counts[d][w]++;
    }
  }
  return testing::CorpusFromCounts(counts, kWords);
}

// For each true topic, the largest cosine between its direction (uniform on its 20 words)
// and a learned topic's posterior mean direction.
std::vector<double> BestCosines(bool structured, GeodesicKind sampler) {
  const Corpus corpus = MakeCorpus(structured);
  TfIdfOptions cut;
  cut.min_df = 0.0;
  cut.max_df = 1.0;
  const TfIdfCorpus tfidf = BuildTfIdf(corpus, cut);
  SamConfig c;
  c.topics = kTopics;
  c.alpha = 1.0;
  c.sigma = 10.0;
  c.kappa0 = 10.0;
  c.kappa1 = 100.0;
  c.sampler = sampler;
  c.step = 0.01;
  c.friction = 10.0;  // rho = C h = 0.1
  c.thermostat_initial = 10.0;
  c.minibatch = 30;
  c.chain.tiles = 2;
  c.chain.iterations = 600;
  c.chain.burn_in = 300;
  c.chain.eval_every = 100;
  c.chain.thin = 10;
  c.chain.seed = 7;
  c.chain.split_seed = 7;
  c.test_fraction = 0.1;
  c.eval_draws = 20;
  auto comm = MakeSerialCommunicator();
  const SamSurvey survey = SurveySamCorpus(*comm, tfidf, c);
  SamModel model(c, tfidf, survey);
  TileEngine engine(*comm, model, c.chain);
  engine.Run({});
  const std::vector<double> directions = model.TopicMeanDirections();
  const std::size_t V = tfidf.vocabulary.size();
  EXPECT_EQ(V, kWords);
  std::vector<double> best(kTopics, -1.0);
  for (std::uint32_t t = 0; t < kTopics; ++t)
    for (std::uint32_t k = 0; k < kTopics; ++k) {
      double dot = 0.0;
      for (std::uint32_t w = t * 20; w < t * 20 + 20; ++w) dot += directions[k * V + w];
      best[t] = std::max(best[t], dot / std::sqrt(20.0));
    }
  const SamTraceRow& last = model.trace().back();
  std::cout << "[sam engine] " << (structured ? "structured" : "no structure") << ": best cosines "
            << best[0] << " " << best[1] << " " << best[2] << "; log-perplexity "
            << model.trace().front().log_perplexity << " -> " << last.log_perplexity << "\n";
  return best;
}

TEST(SamEngine, RecoversTopicsOfASyntheticCorpus) {
  for (GeodesicKind kind : {GeodesicKind::kGsgnht, GeodesicKind::kSggmc}) {
    const std::vector<double> best = BestCosines(true, kind);
    for (double cosine : best) EXPECT_GT(cosine, 0.8);
  }
  // Without structure no learned topic aligns with a word range.
  for (double cosine : BestCosines(false, GeodesicKind::kGsgnht)) EXPECT_LT(cosine, 0.8);
}

}  // namespace
}  // namespace carousel
