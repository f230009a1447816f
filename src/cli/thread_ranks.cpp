#include "carousel/cli/thread_ranks.hpp"

#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <optional>

#include "carousel/cli/command_line.hpp"
#include "carousel/util/error.hpp"

namespace carousel::cli {
namespace {

constexpr const char* kVariable = "CAROUSEL_RANKS";

std::optional<int> WholeNumber(const std::string& text) {
  if (text.empty() || text.size() > 6) return std::nullopt;
  for (char c : text)
    if (c < '0' || c > '9') return std::nullopt;
  return std::stoi(text);
}

// CAROUSEL_RANKS, if set.
std::optional<int> RanksFromEnvironment() {
  const char* value = std::getenv(kVariable);
  if (value == nullptr) return std::nullopt;
  const std::optional<int> n = WholeNumber(value);
  if (!n || *n < 1)
    throw Error(ExitCode::kUsage, std::string("environment variable ") + kVariable + "='" + value +
                                      "': expected a whole number of ranks, at least 1");
  return n;
}

int AvailableCpus() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 1;
  return std::max(1, CPU_COUNT(&set));
}

}  // namespace

CpuBinding::CpuBinding(int ranks) {
  cpu_set_t set;
  if (ranks < 2 || sched_getaffinity(0, sizeof set, &set) != 0 || CPU_COUNT(&set) < ranks) return;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &set)) cpus_.push_back(cpu);
}

void CpuBinding::BindThisThread(int rank) const {
  if (cpus_.empty()) return;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpus_[static_cast<std::size_t>(rank)], &one);
  // A binding refused (a container's policy) only costs speed.
  pthread_setaffinity_np(pthread_self(), sizeof one, &one);
}

int ThreadRanks(const std::vector<std::string>& args, bool threads_within_rank) {
  if (const std::optional<int> n = RanksFromEnvironment()) return *n;
  // A first argument that is not an option names a one-process tool (`lda infer`).
  const bool tool = !args.empty() && !args[0].empty() && args[0][0] != '-';
  if (tool || OnCommandLine(args, "--resume") || OnCommandLine(args, "--config") ||
      OnCommandLine(args, "--chains") ||
      OptionArgument(args, "--sampler") == std::optional<std::string>("gibbs"))
    return 1;
  const int most = std::min(AvailableCpus(), kMaxDefaultThreadRanks);
  const std::optional<std::string> tiles_text = OptionArgument(args, "--tiles");
  if (!tiles_text) return threads_within_rank ? 1 : most;
  // A bad --tiles value is the command's to report: one rank reaches it.
  const std::optional<int> tiles = WholeNumber(*tiles_text);
  if (!tiles || *tiles < 1) return 1;
  int ranks = std::min(most, *tiles);
  while (*tiles % ranks != 0) --ranks;
  return ranks;
}

int DefaultWorkerThreads(int ranks_here) {
  const int mine = AvailableCpus();
  // A launcher that bound this rank to some of the machine's CPUs (mpirun's cores, srun's
  // --cpus-per-task) gave it those; unbound, it shares them with the ranks beside it.
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  if (online > 0 && mine < online) return std::clamp(mine, 1, kMaxDefaultThreadRanks);
  int sharing = std::max(1, ranks_here);
  if (const char* local = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE"))
    if (const std::optional<int> n = WholeNumber(local); n && *n >= 1) sharing = *n;
  return std::clamp(mine / sharing, 1, kMaxDefaultThreadRanks);
}

void CheckNoThreadRanksUnderLauncher() {
  const std::optional<int> n = RanksFromEnvironment();
  if (n && *n != 1)
    throw Error(ExitCode::kUsage, std::string("environment variable ") + kVariable + "=" +
                                      std::to_string(*n) +
                                      ": an MPI launcher started this process, and the launcher "
                                      "chooses the ranks (unset it, or run without mpirun)");
}

}  // namespace carousel::cli
