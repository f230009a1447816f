// What each rank reports of a run at its end: how it read its input, where its sampling loop
// spent its wall time, its peak memory and what its model holds. Gathered on every rank, and
// printed by the command as a few lines per rank.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "carousel/comm/communicator.hpp"
#include "carousel/engine/phase_seconds.hpp"
#include "carousel/model/tile_model.hpp"

namespace carousel {

// Where a rank's sampling loop spent its wall time.
struct SamplingTime {
  double wall = 0.0;
  double communicating = 0.0;  // inside the communicator, the waits for other ranks included
  PhaseSeconds phases;
};

// How this rank read its input: wall time of the whole collective load, the time and bytes
// of parsing its own part, and the peak memory when the load was done.
struct LoadStats {
  double seconds = 0.0;
  double parse_seconds = 0.0;
  double parsed_bytes = 0.0;
  double peak_rss_kib = 0.0;
};

// Peak resident memory of this process so far (VmHWM), in KiB.
double PeakRssKib();

// The statistics of a load that began at `start` and has just ended.
LoadStats FinishedLoad(std::chrono::steady_clock::time_point start, double parse_seconds,
                       std::uint64_t parsed_bytes);

struct RankStats {
  SamplingTime sampling;
  double peak_rss_kib = 0.0;
  std::uint64_t items_held = 0;  // training ratings or tokens in this rank's tiles
  LoadStats load;
  ModelFootprint footprint;
};

// Every rank's statistics, on every rank (collective).
std::vector<RankStats> GatherRankStats(Communicator& comm, const SamplingTime& sampling,
                                       std::uint64_t items_held, const LoadStats& load,
                                       const ModelFootprint& footprint);

// Three lines per rank: the communication share, peak memory and `items` held; the sampling
// time by phase of the iteration; the load (time, parse rate, peak memory then) and the bytes
// of data and state the model holds.
std::string RankStatsText(const std::vector<RankStats>& stats, const char* items);

}  // namespace carousel
