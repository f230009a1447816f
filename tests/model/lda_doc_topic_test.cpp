// The documents' topic proportions reach rank 0 a slice at a time
// (LdaModel::StreamDocumentTopicMean): any slice size gives the same rows, the slices cover
// every document once, in id order, and an error of the consumer comes back after the last.
#include <gtest/gtest.h>

#include <cmath>

#include "carousel/comm/communicator.hpp"
#include "carousel/engine/tile_engine.hpp"
#include "carousel/model/lda/lda_generator.hpp"
#include "carousel/model/lda/lda_model.hpp"
#include "carousel/util/error.hpp"

namespace carousel {
namespace {

TEST(LdaDocTopicSlices, AnySliceSizeGivesTheSameRowsInOrder) {
  LdaGeneratorOptions g;
  g.documents = 120;
  g.vocabulary = 60;
  g.topics = 3;
  g.mean_length = 30;
  g.seed = 2;
  const GeneratedCorpus gen = GenerateLda(g);
  LdaConfig c;
  c.topics = 3;
  c.step = StepSchedule{0.5 * std::pow(10.0, 0.33), 10.0, 0.33};
  c.minibatch = 40;
  c.chain.tiles = 3;  // three row blocks, whose documents interleave in id order
  c.chain.iterations = 30;
  c.chain.burn_in = 10;
  c.chain.eval_every = 5;
  c.test_fraction = 0.2;
  auto comm = MakeSerialCommunicator();
  LdaModel model(c, gen.corpus);
  TileEngine engine(*comm, model, c.chain);
  ASSERT_TRUE(engine.Run(EngineCallbacks{}));
  ASSERT_GT(model.samples(), 0u);

  const std::size_t D = g.documents, K = 3;
  auto collect = [&](std::uint32_t rows) {
    std::vector<double> all;
    std::size_t slices = 0;
    model.StreamDocumentTopicMean(
        [&](std::size_t first, std::size_t count, const std::vector<double>& values) {
          EXPECT_EQ(first, all.size() / K);
          EXPECT_LE(count, rows > 0 ? rows : D);
          EXPECT_EQ(values.size(), count * K);
          all.insert(all.end(), values.begin(), values.end());
          ++slices;
        },
        rows);
    EXPECT_EQ(all.size(), D * K);
    EXPECT_EQ(slices, rows > 0 ? (D + rows - 1) / rows : 1u);
    return all;
  };
  const std::vector<double> whole = collect(0), sevens = collect(7), ones = collect(1);
  EXPECT_EQ(whole, sevens);
  EXPECT_EQ(whole, ones);
  for (std::size_t d = 0; d < D; ++d) {
    double sum = 0.0;
    for (std::size_t k = 0; k < K; ++k) sum += whole[d * K + k];
    EXPECT_NEAR(sum, 1.0, 1e-12) << "document " << d;
  }

  // An error of the consumer at the second slice: every slice is still gathered, and the
  // error comes back once they are.
  std::size_t calls = 0;
  try {
    model.StreamDocumentTopicMean(
        [&](std::size_t, std::size_t, const std::vector<double>&) {
          if (++calls == 2) throw Error(ExitCode::kOutput, "disk full");
        },
        50);
    ADD_FAILURE() << "the consumer's error was lost";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kOutput);
    EXPECT_NE(std::string(e.what()).find("disk full"), std::string::npos);
  }
  EXPECT_EQ(calls, 2u);  // no slice is handed on after the failure
}

}  // namespace
}  // namespace carousel
