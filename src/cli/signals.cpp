#include "carousel/cli/signals.hpp"

#include <atomic>
#include <csignal>

namespace carousel::cli {
namespace {

// Atomics rather than volatile sig_atomic_t: ranks that are threads (thread_ranks.hpp) read
// them concurrently. Lock-free, so the handler may set them.
std::atomic<int> g_checkpoint{0};
std::atomic<int> g_stop{0};
static_assert(std::atomic<int>::is_always_lock_free);

// SIGUSR2 stops like SIGTERM: Open MPI 4's mpirun forwards SIGUSR1 and SIGUSR2 to every
// rank but answers SIGTERM itself by killing the job (and exits 1 however its ranks end).
extern "C" void OnSignal(int signal) {
  if (signal == SIGTERM || signal == SIGUSR2) g_stop = 1;
  g_checkpoint = 1;
}

}  // namespace

void InstallSignalHandlers() {
  struct sigaction action {};
  action.sa_handler = OnSignal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGUSR1, &action, nullptr);
  sigaction(SIGUSR2, &action, nullptr);
}

int TakeSignalRequests() {
  int bits = 0;
  if (g_checkpoint.exchange(0) != 0) bits |= 1;
  if (g_stop.load() != 0) bits |= 2;
  return bits;
}

}  // namespace carousel::cli
