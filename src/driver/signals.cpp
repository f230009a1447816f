#include "carousel/driver/signals.hpp"

#include <atomic>
#include <csignal>
#include <cstdio>

#include "carousel/driver/resume.hpp"
#include "carousel/util/error.hpp"

namespace carousel::driver {
namespace {

// Atomics rather than volatile sig_atomic_t: ranks that are threads (thread_ranks.hpp) read
// them concurrently. Lock-free, so the handler may set them.
std::atomic<int> g_checkpoint{0};
std::atomic<int> g_stop{0};  // the signal that asked for a stop, 0 for none
static_assert(std::atomic<int>::is_always_lock_free);

// SIGUSR2 stops like SIGTERM: Open MPI 4's mpirun forwards SIGUSR1 and SIGUSR2 to every
// rank but answers SIGTERM itself by killing the job (and exits 1 however its ranks end).
// SIGINT (Ctrl-C on a run without a launcher) stops like SIGTERM too; a second one, for a
// user who will not wait for the checkpoint, ends the process at once as it would have.
extern "C" void OnSignal(int signal) {
  if (signal == SIGINT && g_stop.load() == SIGINT) {
    std::signal(SIGINT, SIG_DFL);
    std::raise(SIGINT);
    return;
  }
  if (signal == SIGTERM || signal == SIGUSR2 || signal == SIGINT) g_stop = signal;
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
  // A shell starts background jobs with SIGINT ignored, so that Ctrl-C spares them: keep it so.
  struct sigaction before {};
  if (sigaction(SIGINT, nullptr, &before) == 0 && before.sa_handler != SIG_IGN)
    sigaction(SIGINT, &action, nullptr);
}

int TakeSignalRequests() {
  int bits = 0;
  if (g_checkpoint.exchange(0) != 0) bits |= 1;
  if (g_stop.load() != 0) bits |= 2;
  return bits;
}

const char* StopSignalName() {
  switch (g_stop.load()) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    case SIGUSR2:
      return "SIGUSR2";
    default:
      return "a signal";  // another rank's process received it
  }
}

int StoppedBySignal(int rank, std::uint64_t iteration, const std::string& command,
                    const std::string& out) {
  if (rank == 0)
    std::fprintf(stderr,
                 "carousel: stopped by %s at iteration %llu; checkpoint in %s; continue with: "
                 "carousel %s --resume %s\n",
                 StopSignalName(), static_cast<unsigned long long>(iteration),
                 CheckpointDir(out).c_str(), command.c_str(), out.c_str());
  return static_cast<int>(ExitCode::kInterrupted);
}

}  // namespace carousel::driver
