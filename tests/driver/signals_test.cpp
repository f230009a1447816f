#include "carousel/driver/signals.hpp"

#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>
#include <cstring>

namespace carousel::driver {
namespace {

// Ctrl-C asks for a checkpoint and a clean stop, as SIGTERM does; a second Ctrl-C, for a user
// who will not wait for the checkpoint, ends the process at once, killed by SIGINT as it would
// have been without a handler. Each case runs in a child process (a death test), whose
// handlers and flags are its own.
TEST(SignalsDeathTest, ASecondCtrlCEndsTheProcessAtOnce) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        InstallSignalHandlers();
        std::raise(SIGINT);
        std::raise(SIGINT);
        std::_Exit(0);  // not reached: the second SIGINT kills the process
      },
      testing::KilledBySignal(SIGINT), "");
}

// The control: one Ctrl-C does not end the process; it becomes a stop request that the
// engine reads at the end of the iteration, naming SIGINT in the message.
TEST(SignalsDeathTest, OneCtrlCAsksForACheckpointAndAStop) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        InstallSignalHandlers();
        std::raise(SIGINT);
        const int requests = TakeSignalRequests();
        std::_Exit(requests == 3 && std::strcmp(StopSignalName(), "SIGINT") == 0 ? 0 : 1);
      },
      testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace carousel::driver
