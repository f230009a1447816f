#include "carousel/driver/thread_ranks.hpp"

#include <gtest/gtest.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "carousel/cli/model_registry.hpp"
#include "carousel/driver/several_chains.hpp"
#include "carousel/util/error.hpp"

namespace carousel::driver {
namespace {

// Sets or unsets CAROUSEL_RANKS for one test, restoring what was there.
class RanksVariable {
 public:
  explicit RanksVariable(const char* value) {
    if (const char* old = std::getenv("CAROUSEL_RANKS")) old_ = old;
    if (value)
      setenv("CAROUSEL_RANKS", value, 1);
    else
      unsetenv("CAROUSEL_RANKS");
  }
  ~RanksVariable() {
    if (old_.empty())
      unsetenv("CAROUSEL_RANKS");
    else
      setenv("CAROUSEL_RANKS", old_.c_str(), 1);
  }

 private:
  std::string old_;
};

// The ranks a command line of mf (or lda, whose ranks share their work among threads)
// starts without a launcher.
int Ranks(const std::vector<std::string>& args, bool threads_within_rank = false) {
  return ThreadRanksOf(*cli::FindModelCommand(threads_within_rank ? "lda" : "mf"), args);
}

int Cpus() {
  cpu_set_t set;
  EXPECT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
  return CPU_COUNT(&set);
}

TEST(ThreadRanks, DefaultIsTheCpusUpToSixteen) {
  const RanksVariable unset(nullptr);
  const int most = std::min(Cpus(), kMaxDefaultThreadRanks);
  EXPECT_EQ(Ranks({"--train", "x"}), most);
  // A divisor of --tiles, in either spelling: each rank holds whole row blocks.
  EXPECT_EQ(Ranks({"--tiles", "1"}), 1);
  EXPECT_EQ(Ranks({"--tiles=1"}), 1);
  for (int tiles : {2, 3, 6, 7, 64}) {
    const int ranks = Ranks({"--tiles", std::to_string(tiles)});
    EXPECT_EQ(tiles % ranks, 0) << tiles;
    EXPECT_LE(ranks, most) << tiles;
    for (int larger = ranks + 1; larger <= std::min(most, tiles); ++larger)
      EXPECT_NE(tiles % larger, 0) << tiles << ": " << larger << " ranks would divide";
  }
  // One rank where the ranks or tiles come from elsewhere, or a bad --tiles to report.
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"--resume", "d"},
                                             {"--config=c.toml"},
                                             {"--sampler", "gibbs"},
                                             {"infer", "--run", "r"},
                                             {"--tiles", "two"},
                                             {"--tiles", "0"}})
    EXPECT_EQ(Ranks(args), 1) << args[0];
  EXPECT_EQ(Ranks({"--sampler", "psgld"}), most);
}

// --chains C: as many ranks as let the C chains of T tiles finish soonest, in groups that
// ChainGroups forms, each group's ranks dividing T.
TEST(ThreadRanks, ChainsRunSideBySideOnRanksThatDivideTheirTiles) {
  EXPECT_EQ(ChainRanks(1, 2, 2), 2);     // two one-rank chains at a time
  EXPECT_EQ(ChainRanks(2, 2, 2), 2);     // the same, each on 2 tiles
  EXPECT_EQ(ChainRanks(1, 1, 16), 1);    // one chain of one tile: one rank
  EXPECT_EQ(ChainRanks(16, 4, 16), 16);  // four chains of 4 ranks
  EXPECT_EQ(ChainRanks(1, 4, 16), 4);    // four one-rank chains, nothing more to do
  EXPECT_EQ(ChainRanks(7, 2, 16), 14);   // two chains of 7 ranks
  for (int most : {1, 2, 3, 8, 16})
    for (int tiles : {1, 2, 3, 4, 6, 16})
      for (int chains : {2, 3, 4, 5}) {
        const int ranks = ChainRanks(tiles, chains, most);
        EXPECT_GE(ranks, 1);
        EXPECT_LE(ranks, most);
        EXPECT_EQ(tiles % (ranks / ChainGroups(ranks, chains)), 0)
            << tiles << " tiles, " << chains << " chains, at most " << most;
      }
  const RanksVariable two("2");  // CAROUSEL_RANKS still chooses
  EXPECT_EQ(Ranks({"--chains", "4"}), 2);
}

// A command that shares a rank's work among threads (lda) runs one rank by default, and
// one per tile as before when --tiles is given.
TEST(ThreadRanks, ThreadsWithinRankRunOneRankUnlessTilesAreGiven) {
  const RanksVariable unset(nullptr);
  EXPECT_EQ(Ranks({"--corpus", "x"}, true), 1);
  for (int tiles : {1, 2, 6, 7})
    EXPECT_EQ(Ranks({"--tiles", std::to_string(tiles)}, true),
              Ranks({"--tiles", std::to_string(tiles)}, false))
        << tiles;
  const RanksVariable two("2");
  EXPECT_EQ(Ranks({"--corpus", "x"}, true), 2);  // CAROUSEL_RANKS still chooses
}

// The CPUs this thread may run on, shared among the ranks that may run on them too: one
// rank alone gets them all (at most 16), and never fewer than one thread.
TEST(DefaultWorkerThreads, ShareTheCpusAmongTheRanksBesideIt) {
  const char* old = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  const std::string saved = old ? old : "";
  unsetenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  const int cpus = Cpus();
  const int most = std::min(cpus, kMaxDefaultThreadRanks);
  // Bound to some of the machine's CPUs (as a launcher binds): those, whatever shares them.
  const bool bound = cpus < sysconf(_SC_NPROCESSORS_ONLN);
  auto shared = [&](int ranks) { return bound ? most : std::clamp(cpus / ranks, 1, most); };
  EXPECT_EQ(DefaultWorkerThreads(1), most);
  EXPECT_EQ(DefaultWorkerThreads(2), shared(2));
  EXPECT_EQ(DefaultWorkerThreads(cpus + 1), shared(cpus + 1));
  setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "3", 1);  // an MPI launcher's ranks on this machine
  EXPECT_EQ(DefaultWorkerThreads(8), shared(3));
  setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "junk", 1);  // not a count: the ranks given
  EXPECT_EQ(DefaultWorkerThreads(1), most);
  if (!bound) {  // the same on one CPU of them, as a bound rank
    cpu_set_t all, one;
    ASSERT_EQ(sched_getaffinity(0, sizeof all, &all), 0);
    CPU_ZERO(&one);
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &all)) {
        CPU_SET(c, &one);
        break;
      }
    if (sched_setaffinity(0, sizeof one, &one) == 0) {
      EXPECT_EQ(DefaultWorkerThreads(1), 1);
      sched_setaffinity(0, sizeof all, &all);
    }
  }
  if (old)
    setenv("OMPI_COMM_WORLD_LOCAL_SIZE", saved.c_str(), 1);
  else
    unsetenv("OMPI_COMM_WORLD_LOCAL_SIZE");
}

TEST(ThreadRanks, EnvironmentChooses) {
  const RanksVariable three("3");
  EXPECT_EQ(Ranks({"--tiles", "1"}), 3);  // the command then refuses the tiles
  EXPECT_EQ(Ranks({"--resume", "d"}), 3);
  EXPECT_THROW(CheckNoThreadRanksUnderLauncher(), Error);
}

TEST(ThreadRanks, BadEnvironmentIsAUsageError) {
  for (const char* bad : {"", "0", "-2", "two", "2.5", "99999999"}) {
    const RanksVariable variable(bad);
    try {
      Ranks({});
      ADD_FAILURE() << "'" << bad << "' accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::kUsage);
      EXPECT_NE(std::string(e.what()).find("CAROUSEL_RANKS"), std::string::npos) << e.what();
    }
  }
  const RanksVariable one("1");
  EXPECT_NO_THROW(CheckNoThreadRanksUnderLauncher());
}

}  // namespace
}  // namespace carousel::driver
