#include "carousel/driver/progress.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdio>

namespace carousel::driver {

Progress::Progress(std::uint64_t first_iteration, std::uint64_t total, bool enabled)
    : first_(first_iteration), total_(total), enabled_(enabled), live_(isatty(2) == 1) {}

void Progress::OnEval(const std::string& status) {
  last_eval_ = status;
}

void Progress::OnIteration(std::uint64_t iteration, double seconds) {
  if (start_seconds_ < 0) {  // rates are measured from the first completed iteration
    start_seconds_ = seconds;
    first_ = iteration;
    return;
  }
  Print(iteration, seconds, iteration == total_);
}

void Progress::Print(std::uint64_t iteration, double seconds, bool force) {
  if (!enabled_) return;
  const double interval = live_ ? 0.2 : 10.0;
  if (!force && seconds - last_print_ < interval) return;
  last_print_ = seconds;
  const double elapsed = seconds - start_seconds_;
  const double done = static_cast<double>(iteration - first_);
  const double rate = elapsed > 0 ? done / elapsed : 0.0;
  const double eta = rate > 0 ? static_cast<double>(total_ - iteration) / rate : 0.0;
  char line[256];
  int n = std::snprintf(line, sizeof line, "iter %llu/%llu  %.1f it/s  ETA %.0fs",
                        static_cast<unsigned long long>(iteration),
                        static_cast<unsigned long long>(total_), rate, eta);
  if (!last_eval_.empty() && n > 0 && n < static_cast<int>(sizeof line))
    std::snprintf(line + n, sizeof line - n, "  %s", last_eval_.c_str());
  if (live_) {
    std::fprintf(stderr, "\r\033[K%s", line);
    dirty_line_ = true;
  } else {
    std::fprintf(stderr, "%s\n", line);
  }
  std::fflush(stderr);
}

void Progress::Finish() {
  if (enabled_ && dirty_line_) std::fprintf(stderr, "\n");
  dirty_line_ = false;
}

}  // namespace carousel::driver
