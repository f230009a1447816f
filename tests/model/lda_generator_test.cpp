// The LDA corpus generator (carousel gen lda): its corpus has the shape asked for, is a
// function of the seed, survives the UCI file, and its topics are recovered by
// `carousel lda`'s model to within the Monte Carlo error of their token counts.
#include "carousel/model/lda/lda_generator.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <iostream>
#include <numeric>

#include "carousel/comm/communicator.hpp"
#include "carousel/engine/tile_engine.hpp"
#include "carousel/io/corpus_reader.hpp"
#include "carousel/model/lda/lda_model.hpp"
#include "carousel/util/error.hpp"

namespace carousel {
namespace {

LdaGeneratorOptions Small(std::uint64_t seed) {
  LdaGeneratorOptions o;
  o.documents = 800;
  o.vocabulary = 200;
  o.topics = 4;
  o.mean_length = 80;
  o.seed = seed;
  return o;
}

TEST(LdaGenerator, CorpusHasTheAskedShapeAndDependsOnTheSeedOnly) {
  const GeneratedCorpus a = GenerateLda(Small(3)), b = GenerateLda(Small(3)),
                        c = GenerateLda(Small(4));
  EXPECT_EQ(a.corpus.word, b.corpus.word);
  EXPECT_EQ(a.corpus.count, b.corpus.count);
  EXPECT_EQ(a.phi, b.phi);
  EXPECT_NE(a.corpus.count, c.corpus.count);
  EXPECT_EQ(a.corpus.documents, 800u);
  EXPECT_EQ(a.corpus.doc_start.size(), 801u);
  for (int k = 0; k < 4; ++k)
    EXPECT_NEAR(std::accumulate(a.phi.begin() + k * 200, a.phi.begin() + (k + 1) * 200, 0.0), 1.0,
                1e-12);
  // Poisson lengths: the mean length within 4 standard errors sqrt(L / D).
  const double mean = static_cast<double>(a.corpus.tokens()) / 800.0;
  EXPECT_NEAR(mean, 80.0, 4.0 * std::sqrt(80.0 / 800.0));
  EXPECT_THROW(GenerateLda(LdaGeneratorOptions{0}), Error);
}

TEST(LdaGenerator, UciFileReadsBackAsTheSameCorpus) {
  const GeneratedCorpus g = GenerateLda(Small(3));
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("carousel_gen_lda_" + std::to_string(::getpid()) + ".txt"))
                               .string();
  WriteUciCorpus(path, g.corpus);
  const Corpus read = io::ReadCorpus(path);
  std::filesystem::remove(path);
  EXPECT_EQ(read.documents, g.corpus.documents);
  EXPECT_EQ(read.vocabulary, g.corpus.vocabulary);
  EXPECT_EQ(read.doc_start, g.corpus.doc_start);
  EXPECT_EQ(read.word, g.corpus.word);
  EXPECT_EQ(read.count, g.corpus.count);
}

double Hellinger(const double* p, const double* q, std::size_t n) {
  double s = 0.0;
  for (std::size_t i = 0; i < n; ++i)
    s += (std::sqrt(p[i]) - std::sqrt(q[i])) * (std::sqrt(p[i]) - std::sqrt(q[i]));
  return std::sqrt(0.5 * s);
}

// For each true topic, the distance to the nearest learned one; fails if two true topics
// share their nearest learned topic.
std::vector<double> MatchedDistances(const std::vector<double>& learned,
                                     const std::vector<double>& truth, std::size_t K,
                                     std::size_t V) {
  std::vector<double> best(K);
  std::vector<int> used(K, 0);
  for (std::size_t t = 0; t < K; ++t) {
    std::size_t arg = 0;
    best[t] = 2.0;
    for (std::size_t k = 0; k < K; ++k) {
      const double d = Hellinger(&learned[k * V], &truth[t * V], V);
      if (d < best[t]) best[t] = d, arg = k;
    }
    used[arg]++;
  }
  for (int u : used) EXPECT_LE(u, 1) << "two true topics matched one learned topic";
  return best;
}

TEST(LdaGenerator, TopicsAreRecoveredWithinTheirMonteCarloError) {
  const GeneratedCorpus g = GenerateLda(Small(3));
  auto comm = MakeSerialCommunicator();
  LdaConfig c;
  c.topics = 4;
  c.step = StepSchedule{0.5 * std::pow(10.0, 0.33), 10.0, 0.33};  // the CLI default
  c.minibatch = 800;
  c.chain.tiles = 2;
  c.chain.iterations = 200;
  c.chain.burn_in = 100;
  c.chain.eval_every = 50;
  c.chain.seed = 1;
  LdaModel model(c, g.corpus);
  TileEngine engine(*comm, model, c.chain);
  ASSERT_TRUE(engine.Run(EngineCallbacks{}));
  std::uint64_t samples = 0;
  const std::vector<double> learned = model.TopicWordMean(&samples);
  // A topic estimated from n tokens over V words is off by a Hellinger distance of about
  // sqrt((V - 1) / (8 n)) (the delta method on the multinomial's square roots); n is the
  // training tokens per topic. The tolerance is three times that.
  const double n = 0.9 * static_cast<double>(g.corpus.tokens()) / 4.0;
  const double tolerance = 3.0 * std::sqrt(199.0 / (8.0 * n));
  const std::vector<double> matched = MatchedDistances(learned, g.phi, 4, 200);
  for (std::size_t t = 0; t < 4; ++t) {
    std::cout << "  true topic " << t << ": Hellinger distance " << matched[t]
              << " to the nearest learned topic (tolerance " << tolerance << ")\n";
    EXPECT_LT(matched[t], tolerance) << "true topic " << t << " not recovered";
  }
  // Negative control: the same learned topics are far from the topics of another seed.
  const GeneratedCorpus other = GenerateLda(Small(4));
  for (std::size_t t = 0; t < 4; ++t) {
    double nearest = 2.0;
    for (std::size_t k = 0; k < 4; ++k)
      nearest = std::min(nearest, Hellinger(&learned[k * 200], &other.phi[t * 200], 200));
    EXPECT_GT(nearest, tolerance) << "another seed's topic " << t << " looks recovered";
  }
}

}  // namespace
}  // namespace carousel
