#include "carousel/engine/rank_statistics.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "carousel/util/printf_text.hpp"

namespace carousel {

double PeakRssKib() {
  std::FILE* f = std::fopen("/proc/self/status", "r");
  if (!f) return 0.0;
  char line[256];
  double kib = 0.0;
  while (std::fgets(line, sizeof line, f))
    if (std::sscanf(line, "VmHWM: %lf kB", &kib) == 1) break;
  std::fclose(f);
  return kib;
}

LoadStats FinishedLoad(std::chrono::steady_clock::time_point start, double parse_seconds,
                       std::uint64_t parsed_bytes) {
  LoadStats load;
  load.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  load.parse_seconds = parse_seconds;
  load.parsed_bytes = static_cast<double>(parsed_bytes);
  load.peak_rss_kib = PeakRssKib();
  return load;
}

std::vector<RankStats> GatherRankStats(Communicator& comm, const SamplingTime& sampling,
                                       std::uint64_t items_held, const LoadStats& load,
                                       const ModelFootprint& footprint) {
  RankStats mine{sampling, PeakRssKib(), items_held, load, footprint};
  std::vector<RankStats> all;
  for (const std::string& part :
       comm.AllGather(std::string(reinterpret_cast<const char*>(&mine), sizeof mine))) {
    RankStats s;
    std::memcpy(&s, part.data(), sizeof s);
    all.push_back(s);
  }
  return all;
}

std::string RankStatsText(const std::vector<RankStats>& stats, const char* items) {
  std::string text;
  for (std::size_t r = 0; r < stats.size(); ++r) {
    const SamplingTime& sampling = stats[r].sampling;
    const double wall = std::max(sampling.wall, 1e-9);
    text += PrintfText(
        "  rank %zu: %.1f%% of the sampling time in communication, peak memory %.1f MiB, "
        "%llu %s held\n",
        r, 100.0 * sampling.communicating / wall, stats[r].peak_rss_kib / 1024.0,
        static_cast<unsigned long long>(stats[r].items_held), items);
  }
  // Which part of the iteration a rank's time goes to: the tiles' share should dominate,
  // and a rank that waits long in the shift or the agreement waits for a slower one.
  for (std::size_t r = 0; r < stats.size(); ++r) {
    const PhaseSeconds& p = stats[r].sampling.phases;
    const double percent = 100.0 / std::max(stats[r].sampling.wall, 1e-9);
    text += PrintfText(
        "  rank %zu: sampling time by phase: tiles %.1f%%, rows %.1f%%, waiting for the column "
        "shift %.1f%%, end of iteration %.1f%%, evaluations %.1f%%, agreement %.1f%%, "
        "checkpoints %.1f%%\n",
        r, p.tiles * percent, p.rows * percent, p.shift_wait * percent, p.end_iteration * percent,
        p.evaluations * percent, p.agreement * percent, p.checkpoints * percent);
  }
  for (std::size_t r = 0; r < stats.size(); ++r) {
    const LoadStats& load = stats[r].load;
    text += PrintfText(
        "  rank %zu: input read in %.2f s (its part, %.1f MB, parsed at %.0f MB/s), peak memory "
        "%.1f MiB when read; holds %.1f MiB of data and %.1f MiB of parameters and sampler "
        "state",
        r, load.seconds, load.parsed_bytes / 1e6,
        load.parse_seconds > 0 ? load.parsed_bytes / 1e6 / load.parse_seconds : 0.0,
        load.peak_rss_kib / 1024.0, stats[r].footprint.data_bytes / 1048576.0,
        stats[r].footprint.state_bytes / 1048576.0);
    if (stats[r].footprint.whole_bytes > 0)
      text += PrintfText("; every rank also holds %.1f MiB whole (per-item arrays, maps)",
                         stats[r].footprint.whole_bytes / 1048576.0);
    text += "\n";
  }
  return text;
}

}  // namespace carousel
