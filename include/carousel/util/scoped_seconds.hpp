// Adds the wall time of a scope to a running total: the communicators' count of the seconds
// spent inside communication calls, waiting included.
#pragma once

#include <chrono>

namespace carousel {

class ScopedSeconds {
 public:
  explicit ScopedSeconds(double* total) : total_(total), start_(std::chrono::steady_clock::now()) {}
  ScopedSeconds(const ScopedSeconds&) = delete;
  ScopedSeconds& operator=(const ScopedSeconds&) = delete;
  ~ScopedSeconds() {
    *total_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  double* total_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace carousel
