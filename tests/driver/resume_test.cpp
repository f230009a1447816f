// The command line of a resumed run (driver/resume.hpp): which options are taken, which are
// refused, and what the stored line becomes.
#include "carousel/driver/resume.hpp"

#include <gtest/gtest.h>

#include "carousel/cli/commands.hpp"
#include "carousel/util/error.hpp"

namespace carousel::driver {
namespace {

using Args = std::vector<std::string>;

// The options a command line gives mf, as its parser reads them.
OptionList Given(const Args& args) {
  return cli::MfGivenOptions(args);
}

TEST(CheckOptionsAllowedOnResume, TakesHowFarAndHowItReports) {
  EXPECT_NO_THROW(CheckOptionsAllowedOnResume(
      Given({"--resume", "d", "--iterations", "9", "--checkpoint-every=3", "--checkpoint-minutes",
             "2.5", "--eval-every", "4", "--quiet"})));
}

TEST(CheckOptionsAllowedOnResume, RefusesEveryOtherOptionByName) {
  for (const Args& args :
       {Args{"--resume", "d", "--rank", "9"}, Args{"--seed=7", "--resume", "d"},
        Args{"--resume", "d", "--tiles", "1"}, Args{"--resume", "d", "--out", "e"},
        Args{"--resume", "d", "--overwrite"}, Args{"--resume", "d", "--sampler", "sgld"}}) {
    try {
      CheckOptionsAllowedOnResume(Given(args));
      ADD_FAILURE() << "accepted " << args[2];
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::kUsage);
      const std::string refused = args[0] == "--resume" ? args[2] : "--seed";
      EXPECT_NE(std::string(e.what()).find("option " + refused + ":"), std::string::npos)
          << e.what();
    }
  }
  // A word that is no option does not parse.
  EXPECT_THROW(Given({"--resume", "d", "stray"}), Error);
}

TEST(RunRecord, PacksTheCommandWithTheArguments) {
  const RunRecord record{"lda", {"--corpus", "a b.txt", "--topics=5", ""}};
  const RunRecord back = RunRecord::Unpack(record.Pack());
  EXPECT_EQ(back.command, "lda");
  EXPECT_EQ(back.args, record.args);
}

TEST(RunRecord, ReadsCheckpointsThatStoredTheArgumentsAlone) {
  std::string packed;  // the arguments, each ended by '\0', as earlier versions stored them
  for (const char* arg : {"--train", "r.txt", "--rank", "4"}) packed += std::string(arg) + '\0';
  const RunRecord back = RunRecord::Unpack(packed);
  EXPECT_EQ(back.command, "");
  EXPECT_EQ(back.args, (Args{"--train", "r.txt", "--rank", "4"}));
}

TEST(ResumedArgs, KeepsTheRunAndTakesWhatMayChange) {
  const OptionList stored =
      Given({"--train=-r.txt", "--iterations", "200", "--out", "old", "--tiles=4", "--burn-in",
             "50", "--eval-every=5", "--quiet", "--rank", "9"});
  const Args resumed =
      ResumedArgs(stored, "dir", 2, 100, Given({"--resume", "dir", "--iterations=400", "--quiet"}));
  // A value that starts with '-' keeps the = form, which does not read as an option.
  EXPECT_EQ(resumed,
            (Args{"--train=-r.txt", "--eval-every", "5", "--rank", "9", "--tiles", "2", "--burn-in",
                  "100", "--out", "dir", "--iterations", "400", "--quiet", "--resume", "dir"}));
}

TEST(ResumedArgs, KeepsTheStoredIterationsWhenNoneAreGiven) {
  const OptionList stored = Given({"--train", "r.txt", "--iterations", "200", "--resume", "x"});
  EXPECT_EQ(ResumedArgs(stored, "dir", 3, 100, Given({"--resume", "dir"})),
            (Args{"--train", "r.txt", "--iterations", "200", "--tiles", "3", "--burn-in", "100",
                  "--out", "dir", "--resume", "dir"}));
}

}  // namespace
}  // namespace carousel::driver
