#include "carousel/io/id_map.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "carousel/util/error.hpp"

namespace carousel::io {
namespace {

constexpr std::uint32_t kAbsent = std::numeric_limits<std::uint32_t>::max();

// Ids from 0 (or 1) to about the id count, as in MovieLens and Netflix, get a direct
// table; the bound keeps the table within twice the memory of the sorted ids themselves.
bool WorthATable(std::uint64_t span, std::size_t count) {
  return span <= 4 * static_cast<std::uint64_t>(count) + 1024;
}

// Distance from `low` to `id` without signed overflow (ids may span the int64 range).
std::uint64_t Offset(std::int64_t id, std::int64_t low) {
  return static_cast<std::uint64_t>(id) - static_cast<std::uint64_t>(low);
}

}  // namespace

IdMap IdMap::FromIds(std::vector<std::int64_t> ids) {
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  // kAbsent marks holes in the table, so it cannot be a dense index itself.
  if (ids.size() >= kAbsent) {
    throw Error(ExitCode::kInput, "too many distinct ids (" + std::to_string(ids.size()) +
                                      "): at most " + std::to_string(kAbsent - 1) +
                                      " are supported");
  }

  IdMap map;
  map.externals_ = std::move(ids);
  const auto& ext = map.externals_;
  if (!ext.empty() && WorthATable(Offset(ext.back(), ext.front()), ext.size())) {
    map.table_.assign(Offset(ext.back(), ext.front()) + 1, kAbsent);
    for (std::uint32_t dense = 0; dense < ext.size(); ++dense) {
      map.table_[Offset(ext[dense], ext.front())] = dense;
    }
  }
  return map;
}

std::optional<std::uint32_t> IdMap::Find(std::int64_t id) const {
  if (externals_.empty()) return std::nullopt;
  if (!table_.empty()) {
    // Ids below the smallest wrap around to huge offsets and fail the bound check too.
    const std::uint64_t offset = Offset(id, externals_.front());
    if (offset >= table_.size() || table_[offset] == kAbsent) return std::nullopt;
    return table_[offset];
  }
  const auto it = std::lower_bound(externals_.begin(), externals_.end(), id);
  if (it == externals_.end() || *it != id) return std::nullopt;
  return static_cast<std::uint32_t>(it - externals_.begin());
}

std::int64_t IdMap::External(std::uint32_t dense) const {
  if (dense >= externals_.size()) {
    throw Error(ExitCode::kInternal, "IdMap::External: dense index " + std::to_string(dense) +
                                         " out of range (size " + std::to_string(size()) + ")");
  }
  return externals_[dense];
}

void IdSet::Compact() {
  std::sort(large_.begin(), large_.end());
  large_.erase(std::unique(large_.begin(), large_.end()), large_.end());
  compacted_ = large_.size();
}

std::vector<std::int64_t> IdSet::Sorted() {
  Compact();
  std::vector<std::int64_t> ids;
  for (std::size_t w = 0; w < bits_.size(); ++w)
    for (std::uint64_t word = bits_[w]; word != 0; word &= word - 1)
      ids.push_back(
          static_cast<std::int64_t>(w * 64 + static_cast<unsigned>(__builtin_ctzll(word))));
  ids.insert(ids.end(), large_.begin(), large_.end());  // all >= 2^28, after the bitmap's
  return ids;
}

RatingMatrix ToMatrix(const RatingsFile& file, const IdMap& users, const IdMap& items,
                      std::vector<RawRating>* unmapped) {
  RatingMatrix matrix;
  matrix.rows = users.size();
  matrix.cols = items.size();
  matrix.entries.reserve(file.ratings.size());
  if (unmapped) unmapped->clear();

  for (const RawRating& r : file.ratings) {
    const std::optional<std::uint32_t> row = users.Find(r.user);
    const std::optional<std::uint32_t> col = items.Find(r.item);
    if (!row || !col) {
      if (unmapped) unmapped->push_back(r);
      continue;
    }
    const float value = static_cast<float>(r.value);
    // The reader accepts any finite double; the model stores floats.
    if (!std::isfinite(value)) {
      throw InputError(file.path + ":" + std::to_string(r.line),
                       "rating " + std::to_string(r.value) + " does not fit in a float");
    }
    matrix.entries.push_back({*row, *col, value});
  }
  return matrix;
}

}  // namespace carousel::io
