#include "carousel/cli/signals.hpp"

#include <csignal>

namespace carousel::cli {
namespace {

volatile std::sig_atomic_t g_checkpoint = 0;
volatile std::sig_atomic_t g_stop = 0;

extern "C" void OnSignal(int signal) {
  if (signal == SIGTERM) g_stop = 1;
  g_checkpoint = 1;
}

}  // namespace

void InstallSignalHandlers() {
  struct sigaction action {};
  action.sa_handler = OnSignal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGUSR1, &action, nullptr);
}

int TakeSignalRequests() {
  int bits = 0;
  if (g_checkpoint) bits |= 1;
  if (g_stop) bits |= 2;
  g_checkpoint = 0;
  return bits;
}

}  // namespace carousel::cli
