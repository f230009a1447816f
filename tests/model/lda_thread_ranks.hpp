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

}  // namespace carousel::testing
