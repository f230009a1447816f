// LDA chains on thread ranks (comm/thread_communicator.hpp), for the model's tests.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "carousel/comm/thread_communicator.hpp"
#include "carousel/engine/tile_engine.hpp"
#include "carousel/model/lda/lda_model.hpp"
#include "carousel/util/byte_buffer.hpp"

namespace carousel::testing {

// Runs `config` on `ranks` thread ranks, each with its own LdaModel and TileEngine, then
// calls after(rank, model) on every rank's thread (so collective calls on the model, such
// as TopicWordMean, may be made there).
inline void RunLdaOnThreadRanks(const LdaConfig& config, const Corpus& corpus, int ranks,
                                const std::function<void(int, LdaModel&)>& after) {
  std::vector<std::unique_ptr<Communicator>> comms = MakeThreadCommunicators(ranks);
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r)
    threads.emplace_back([&, r] {
      LdaModel model(config, corpus);
      TileEngine engine(*comms[static_cast<std::size_t>(r)], model, config.chain);
      EXPECT_TRUE(engine.Run(EngineCallbacks{}));
      after(r, model);
    });
  for (std::thread& t : threads) t.join();
}

// What the topic-word update tests read of a chain's end: rank 0's posterior mean of phi
// (K x V; the test's chains keep one draw), the grid's columns and their weights, and every
// row block's training topics (from SaveRowBlock, where they come first).
struct LdaChainEnd {
  std::vector<double> mean;
  std::uint32_t columns = 0;
  std::vector<std::uint64_t> column_weights;
  std::vector<std::vector<std::uint16_t>> topics;  // per row block
};

inline LdaChainEnd RunKeepingTopics(const LdaConfig& c, const Corpus& corpus, int ranks) {
  LdaChainEnd run;
  const int tiles = c.chain.tiles;
  run.topics.resize(static_cast<std::size_t>(tiles));
  RunLdaOnThreadRanks(c, corpus, ranks, [&](int r, LdaModel& model) {
    for (int id = r * tiles / ranks; id < (r + 1) * tiles / ranks; ++id) {
      const std::string bytes = model.SaveRowBlock(id);
      ByteReader in(bytes);
      run.topics[static_cast<std::size_t>(id)] = in.GetVector<std::uint16_t>();
    }
    std::uint64_t samples = 0;
    std::vector<double> mean = model.TopicWordMean(&samples);
    if (r == 0) {
      EXPECT_EQ(samples, 1u);
      run.mean = std::move(mean);
      run.columns = model.grid_cols();
      run.column_weights = model.grid_col_weights();
    }
  });
  return run;
}

}  // namespace carousel::testing
