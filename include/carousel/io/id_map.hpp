// Mapping external (file) ids to the dense 0-based indices the engine works with.
//
// The dense index of an id is its rank among the distinct ids in ascending order. That
// makes the mapping a function of the id set alone: reordering or re-splitting the
// training file does not renumber anybody, so results and checkpoints stay comparable.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "carousel/data/rating_matrix.hpp"
#include "carousel/io/ratings_reader.hpp"

namespace carousel::io {

class IdMap {
 public:
  IdMap() = default;

  // Builds the map from ids as they occur (duplicates and any order allowed). Throws
  // carousel::Error (kInput) if there are more distinct ids than a uint32 can index.
  static IdMap FromIds(std::vector<std::int64_t> ids);

  // The dense index of `id`, or nullopt if `id` was not among the ids the map was built on.
  std::optional<std::uint32_t> Find(std::int64_t id) const;

  // The external id of dense index `dense`; throws carousel::Error (kInternal) when
  // `dense` >= size(), since that is a bug in the caller, not bad input.
  std::int64_t External(std::uint32_t dense) const;

  std::uint32_t size() const { return static_cast<std::uint32_t>(externals_.size()); }

  // External ids in dense order (ascending).
  const std::vector<std::int64_t>& externals() const { return externals_; }

 private:
  std::vector<std::int64_t> externals_;  // sorted, distinct
  // Direct lookup table indexed by (id - externals_.front()), built when the ids are
  // dense enough that it is cheap: Find then costs one load instead of a binary search,
  // which matters when mapping 100M ratings. Empty otherwise.
  std::vector<std::uint32_t> table_;
};

// The distinct ids seen, collected without holding every occurrence: ids below 2^28 as
// bits of a bitmap (grown to the largest seen), larger ones in a buffer sorted and
// deduplicated whenever it doubles. Reading 25M ratings of 480K users this costs 60 KB.
class IdSet {
 public:
  void Add(std::int64_t id) {
    if (id < kBitmapIds) {
      const auto word = static_cast<std::size_t>(id >> 6);
      if (word >= bits_.size()) bits_.resize(word + 1 + word / 2, 0);
      bits_[word] |= std::uint64_t{1} << (id & 63);
    } else {
      large_.push_back(id);
      if (large_.size() >= 2 * compacted_ + 4096) Compact();
    }
  }
  // The ids in ascending order, each once.
  std::vector<std::int64_t> Sorted();

 private:
  static constexpr std::int64_t kBitmapIds = std::int64_t{1} << 28;
  void Compact();
  std::vector<std::uint64_t> bits_;
  std::vector<std::int64_t> large_;
  std::size_t compacted_ = 0;
};

// Converts the ratings of `file` whose user and item are both known to `users` and
// `items` into a RatingMatrix (file order kept, rows = users.size(), cols = items.size()).
// The others (e.g. test ratings of users absent from training) replace the contents of
// *unmapped when it is non-null, and are dropped otherwise. Throws carousel::InputError
// for a rating that does not fit in a float.
RatingMatrix ToMatrix(const RatingsFile& file, const IdMap& users, const IdMap& items,
                      std::vector<RawRating>* unmapped);

}  // namespace carousel::io
