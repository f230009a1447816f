// Rank 0's progress report on stderr: a live line on a terminal, plain periodic lines
// otherwise (logs of batch jobs).
#pragma once

#include <cstdint>
#include <string>

#include "carousel/engine/mf_engine.hpp"

namespace carousel::cli {

class Progress {
 public:
  Progress(std::uint64_t first_iteration, std::uint64_t total, bool enabled);
  void OnIteration(std::uint64_t iteration, double seconds);
  void OnEval(const TraceRow& row);
  void Finish();

 private:
  void Print(std::uint64_t iteration, double seconds, bool force);

  std::uint64_t first_, total_;
  bool enabled_, live_;
  double last_print_ = -1e9;
  double start_seconds_ = -1.0;
  TraceRow last_eval_;
  bool have_eval_ = false;
  bool dirty_line_ = false;
};

}  // namespace carousel::cli
