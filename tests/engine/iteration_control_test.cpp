// When the ranks agree to write a checkpoint (engine/iteration_control.hpp).
#include "carousel/engine/iteration_control.hpp"

#include <gtest/gtest.h>

#include <limits>

#include "carousel/comm/communicator.hpp"

namespace carousel {
namespace {

constexpr std::uint64_t kNone = std::numeric_limits<std::uint64_t>::max();

IterationVerdict Agree(int requests, std::uint64_t iteration, std::uint64_t every,
                       std::uint64_t last) {
  auto comm = MakeSerialCommunicator();
  return AgreeAfterIteration(*comm, requests, true, iteration, every, last, [] { return ""; });
}

TEST(AgreeAfterIteration, PeriodicRequestedAndStopping) {
  EXPECT_FALSE(Agree(0, 7, 0, kNone).checkpoint);
  EXPECT_TRUE(Agree(0, 10, 5, kNone).checkpoint);
  EXPECT_TRUE(Agree(kRequestCheckpoint, 7, 0, kNone).checkpoint);
  const IterationVerdict stop = Agree(kRequestStop, 7, 0, kNone);
  EXPECT_TRUE(stop.checkpoint && stop.stop);
}

TEST(AgreeAfterIteration, MergesARequestTakenOneExchangeLateWithTheCheckpointBefore) {
  EXPECT_FALSE(Agree(kRequestCheckpoint, 8, 0, 7).checkpoint);  // the same signal
  EXPECT_TRUE(Agree(kRequestCheckpoint, 9, 0, 7).checkpoint);   // a later one
  const IterationVerdict stop = Agree(kRequestStop, 8, 0, 7);   // a stop is never merged
  EXPECT_TRUE(stop.checkpoint && stop.stop);
  EXPECT_TRUE(Agree(0, 8, 4, 7).checkpoint);  // nor a periodic checkpoint
}

}  // namespace
}  // namespace carousel
