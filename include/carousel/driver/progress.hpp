// Rank 0's progress report on stderr: a live line on a terminal, plain periodic lines
// otherwise (logs of batch jobs).
#pragma once

#include <cstdint>
#include <string>

namespace carousel::driver {

class Progress {
 public:
  Progress(std::uint64_t first_iteration, std::uint64_t total, bool enabled);
  void OnIteration(std::uint64_t iteration, double seconds);
  // The latest evaluation, shown on every progress line (e.g. "rmse 0.9123").
  void OnEval(const std::string& status);
  void Finish();

 private:
  void Print(std::uint64_t iteration, double seconds, bool force);

  std::uint64_t first_, total_;
  bool enabled_, live_;
  double last_print_ = -1e9;
  double start_seconds_ = -1.0;
  std::string last_eval_;
  bool dirty_line_ = false;
};

}  // namespace carousel::driver
