// Which iterations keep a draw, and which of the kept draws are saved whole (--keep-samples).
//
// After burn-in the engine keeps a draw (it enters the posterior averages and the draws
// file) at every iteration that --thin divides, and at the last iteration. The saved
// samples are spread evenly over those kept draws, ending at the last one. Both are
// functions of the chain options alone, so every rank, and every rank count, chooses the
// same draws.
#pragma once

#include <cstdint>
#include <vector>

#include "carousel/model/tile_model.hpp"
#include "carousel/util/option_info.hpp"

namespace carousel {

// Whether the draw after `iteration` iterations (counted from 1) is kept.
bool KeepsDraw(const ChainOptions& options, std::uint64_t iteration);

// The number of draws the chain keeps up to options.iterations.
std::uint64_t KeptDrawCount(const ChainOptions& options);

// The iteration of kept draw `index` (0-based, < KeptDrawCount).
std::uint64_t KeptDrawIteration(const ChainOptions& options, std::uint64_t index);

// The iterations of `samples` kept draws spread evenly over all of them: with D kept draws
// and S < D samples, kept draw floor((s + 1) D / S) - 1 for s = 0..S-1 (so the last kept
// draw is always one, and the gaps differ by at most one draw); every kept draw when S >= D.
// Ascending.
std::vector<std::uint64_t> SpreadSamples(const ChainOptions& options, std::uint64_t samples);

// Samples of the two factors a run keeps whole for `carousel predict` (--keep-samples of mf
// and amf) when not told: as many as fit in 256 MiB of float32 (rows + cols) x width arrays,
// at least 2 (so that predict gives an sd) and at most 20. ml-100k: 20; Netflix's 480,189 +
// 17,770 rows at K = 32 (65.7 MB a sample): 4; at K = 10: 12.
std::uint64_t DefaultKeepSamples(std::uint64_t rows, std::uint64_t cols, int width);

// --keep-samples of mf and amf (util/option_info.hpp), into `keep` (< 0 until given);
// `shown` is the default --help shows.
template <class Declare>
void DeclareKeepSamples(Declare& declare, long long& keep, const char* shown) {
  declare(keep, "--keep-samples",
          "save N kept draws of W and H whole into samples/, spread evenly over the draws after "
          "burn-in, for carousel predict (0: none)",
          opt::Within(0, 1 << 20), opt::Shown(shown));
}

// The number of samples to keep: `given` where it is (>= 0), else `from_data`
// (DefaultKeepSamples, or 0 where the sampler keeps none), a default it adds to `chosen`.
std::uint64_t ResolveKeepSamples(long long given, std::uint64_t from_data,
                                 std::vector<ResolvedDefault>& chosen);

}  // namespace carousel
