#include "carousel/model/sample_plan.hpp"

#include <string>

#include <algorithm>
#include <cmath>

#include "carousel/util/error.hpp"

namespace carousel {
namespace {

// Kept draws at multiples of thin: thin * (burn_in / thin + 1), ..., thin * (N / thin).
std::uint64_t MultiplesKept(const ChainOptions& o) {
  if (o.iterations <= o.burn_in) return 0;
  return o.iterations / o.thin - o.burn_in / o.thin;
}

// Whether the last iteration is kept in addition to the multiples of thin.
bool LastIsExtra(const ChainOptions& o) {
  return o.iterations > o.burn_in && o.iterations % o.thin != 0;
}

}  // namespace

bool KeepsDraw(const ChainOptions& options, std::uint64_t iteration) {
  return iteration > options.burn_in &&
         (iteration % options.thin == 0 || iteration == options.iterations);
}

std::uint64_t KeptDrawCount(const ChainOptions& options) {
  return MultiplesKept(options) + (LastIsExtra(options) ? 1 : 0);
}

std::uint64_t KeptDrawIteration(const ChainOptions& options, std::uint64_t index) {
  const std::uint64_t multiples = MultiplesKept(options);
  if (index < multiples) return options.thin * (options.burn_in / options.thin + 1 + index);
  if (index == multiples && LastIsExtra(options)) return options.iterations;
  throw Error(ExitCode::kInternal, "KeptDrawIteration: index past the kept draws");
}

std::vector<std::uint64_t> SpreadSamples(const ChainOptions& options, std::uint64_t samples) {
  const std::uint64_t kept = KeptDrawCount(options);
  std::vector<std::uint64_t> iterations;
  if (samples >= kept) {
    for (std::uint64_t d = 0; d < kept; ++d) iterations.push_back(KeptDrawIteration(options, d));
    return iterations;
  }
  // In 128 bits: (s + 1) * kept may pass 2^64 for long runs with many samples.
  for (std::uint64_t s = 0; s < samples; ++s) {
    const unsigned __int128 end = static_cast<unsigned __int128>(s + 1) * kept / samples;
    iterations.push_back(KeptDrawIteration(options, static_cast<std::uint64_t>(end) - 1));
  }
  return iterations;
}

std::uint64_t DefaultKeepSamples(std::uint64_t rows, std::uint64_t cols, int width) {
  constexpr double kBudgetBytes = 256.0 * 1024 * 1024;
  const double sample_bytes = static_cast<double>(rows + cols) * width * sizeof(float);
  const double fit = sample_bytes > 0 ? std::floor(kBudgetBytes / sample_bytes) : 20.0;
  return static_cast<std::uint64_t>(std::clamp(fit, 2.0, 20.0));
}

std::uint64_t ResolveKeepSamples(long long given, std::uint64_t from_data,
                                 std::vector<ResolvedDefault>& chosen) {
  if (given >= 0) return static_cast<std::uint64_t>(given);
  chosen.push_back(
      {"--keep-samples", std::to_string(from_data), "as many as fit in 256 MiB, from 2 to 20"});
  return from_data;
}

}  // namespace carousel
