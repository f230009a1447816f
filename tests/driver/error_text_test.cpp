// Lower layers raise SettingError naming a setting, not an option (issue #40); the command
// line words it as the option the user typed (driver/error_text.hpp), also after the error
// crossed ranks in RunCollectively: the rank that raised it keeps the setting, the others
// get a quiet copy.
#include "carousel/driver/error_text.hpp"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "carousel/comm/collective.hpp"
#include "carousel/comm/thread_communicator.hpp"
#include "carousel/sampler/hamcmc.hpp"

namespace carousel::driver {
namespace {

TEST(ErrorText, NamesTheOptionOfASetting) {
  const Error e = SettingError("step", "must be below 1");
  EXPECT_EQ(e.code(), ExitCode::kUsage);
  EXPECT_EQ(std::string(e.what()), "must be below 1");  // the library's words
  EXPECT_EQ(ErrorText(e), "option --step: must be below 1");
  EXPECT_EQ(ErrorText(InputError("f.txt:3", "bad")), "f.txt:3: bad");
  EXPECT_EQ(ErrorText(UsageError("--tiles", "too many")), "option --tiles: too many");
}

// A sampler's own check (HAMCMC's memory M) raises the setting, and the command line names
// the option.
TEST(ErrorText, ASamplerNamesItsSetting) {
  try {
    const Hamcmc sampler(40, 10.0, 1.0);
    FAIL() << "HAMCMC accepted M = 40";
  } catch (const Error& e) {
    EXPECT_EQ(e.setting(), "memory");
    EXPECT_EQ(ErrorText(e).rfind("option --memory: ", 0), 0u) << ErrorText(e);
  }
}

TEST(ErrorText, SettingSurvivesRunCollectively) {
  auto ranks = MakeThreadCommunicators(2);
  std::vector<std::string> text(2);
  std::vector<bool> quiet(2);
  std::vector<std::thread> threads;
  for (int r = 0; r < 2; ++r)
    threads.emplace_back([&, r] {
      try {
        RunCollectively(*ranks[r], [&] {
          if (r == 1) throw SettingError("memory", "must be in [2, 20]");
        });
      } catch (const Error& e) {
        text[r] = ErrorText(e);
        quiet[r] = e.quiet();
      }
    });
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(text[1], "option --memory: must be in [2, 20]");
  EXPECT_FALSE(quiet[1]);
  EXPECT_TRUE(quiet[0]);  // rank 0 learns of it, rank 1 prints it
}

}  // namespace
}  // namespace carousel::driver
