#include "carousel/driver/thread_ranks.hpp"

#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <optional>

#include "carousel/driver/model_command.hpp"
#include "carousel/driver/several_chains.hpp"
#include "carousel/model/bpmf/mf_defaults.hpp"
#include "carousel/util/error.hpp"

namespace carousel::driver {
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

// The CPUs the process may run on, as they were at the first call: ThreadRanks runs first
// on the main thread, before CpuBinding binds it, and again on a bound rank's thread when
// --chains asks what the run without it would get (TilesWithoutChains).
int ProcessCpus() {
  static const int cpus = AvailableCpus();
  return cpus;
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

int ThreadRanks(const OptionList* given, bool threads_within_rank) {
  if (const std::optional<int> n = RanksFromEnvironment()) return *n;
  if (given == nullptr || given->Has("--resume") || given->config_file ||
      IsMfGibbsReference(given->Value("--sampler").value_or("")))
    return 1;
  const int most = std::min(ProcessCpus(), kMaxDefaultThreadRanks);
  // The parse checked both values (--tiles in [1, 4096], --chains in [1, 1024]).
  const std::optional<std::string> tiles_text = given->Value("--tiles");
  const std::optional<int> tiles =
      tiles_text ? std::optional<int>(std::stoi(*tiles_text)) : std::nullopt;
  const int chains = std::stoi(given->Value("--chains").value_or("1"));
  if (chains > 1) return ChainRanks(tiles.value_or(threads_within_rank ? 1 : most), chains, most);
  if (!tiles) return threads_within_rank ? 1 : most;
  int ranks = std::min(most, *tiles);
  while (*tiles % ranks != 0) --ranks;
  return ranks;
}

int ThreadRanksOf(const ModelCommand& model, const std::vector<std::string>& args) {
  std::optional<OptionList> given;
  try {
    given = model.given(args);
  } catch (const Error&) {
  } catch (const HelpRequested&) {
  }
  return ThreadRanks(given ? &*given : nullptr, model.threads_within_rank);
}

int ChainRanks(int tiles, int chains, int most) {
  // Chains run in rounds of `groups` at a time, each on ranks_per_chain ranks, so the job
  // takes about rounds / ranks_per_chain of one chain on one rank.
  int best = 1;
  double best_speed = 0.0;
  for (int ranks = 1; ranks <= most; ++ranks) {
    const int groups = ChainGroups(ranks, chains);
    const int per_chain = ranks / groups;
    if (tiles % per_chain != 0) continue;
    const int rounds = (chains + groups - 1) / groups;
    const double speed = static_cast<double>(per_chain) / rounds;
    if (speed >= best_speed) {  // ties: more chains at a time
      best = ranks;
      best_speed = speed;
    }
  }
  return best;
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

}  // namespace carousel::driver
