// SCIR's update of a block of Gamma-distributed parameters whose shapes are a shared base
// plus a per-entry extra, most extras 0 (LDA's topic-word blocks: beta + count_hat):
// ScirSharedShapeTransition::Step on every entry, each entry with its own keyed stream
// (util/cell_streams.hpp: row = the block row's global id, cell = the column).
//
// Why a block function: per entry, Step's common case (the Poisson draw 0 by its
// shortcut; the ziggurat normal in its core; Marsaglia and Tsang's squeeze accepting; a
// Gamma shape of at least 1, or the base shape with an integer boost) takes the first
// four words of the entry's stream and no exp or log. With AVX-512 that case runs
// eight entries at once (four with AVX2, which also takes Poisson draws N > 0 by inversion and,
// lane by lane, the log test where the squeeze fails); an entry where any of its tests fails
// is drawn again by Step from the start of its stream, which repeats the same tests on the same
// words and goes on from there. So every entry's value is Step's, bit for bit (scir_block.cpp is
// compiled without fused multiply-adds, which the vector code does not use either), and depends
// only on its own stream: the same on any rank.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "carousel/sampler/scir.hpp"
#include "carousel/util/cell_streams.hpp"

namespace carousel {

// theta and counts: rows x columns, row-major; entry i's extra shape is scale * counts[i].
// Row r's streams are keyed by (key, row_ids[r]). Adds each column's new values to
// column_total. Returns false if a value is not finite (Step throws first for a bad input).
bool ScirBlockStep(const ScirSharedShapeTransition& scir, const CellStreamKey& key,
                   const std::vector<std::uint32_t>& row_ids, std::uint32_t columns,
                   const std::uint32_t* counts, double scale, double* theta, double* column_total);

// One entry alone, by Step on its stream (words: its row's DrawRowWords, at the entry's
// column): what ScirBlockStep gives that entry, for tests and for the entries that leave
// the common case.
double ScirEntryStep(const ScirSharedShapeTransition& scir, const CellStreamKey& key,
                     std::uint32_t row_id, std::uint32_t column, const std::uint64_t* words,
                     std::size_t stride, double theta, std::uint32_t count, double scale);

}  // namespace carousel
