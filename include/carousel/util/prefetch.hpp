// Asks for the cache lines of a range ahead of its use, for data whose order the hardware
// prefetcher cannot guess: rows picked by the data (a tile's users, a test rating's user, a
// document's piece of a tile).
#pragma once

#include <cstddef>
#include <cstdint>

namespace carousel {

// Every cache line that [first, first + bytes) touches; for_writing: the lines will be
// written, so they are fetched for ownership.
inline void PrefetchBytes(const void* first, std::size_t bytes, bool for_writing = false) {
  constexpr std::uintptr_t kLine = 64;
  const auto begin = reinterpret_cast<std::uintptr_t>(first) & ~(kLine - 1);
  const auto end = reinterpret_cast<std::uintptr_t>(first) + bytes;
  for (std::uintptr_t line = begin; line < end; line += kLine) {
    if (for_writing)
      __builtin_prefetch(reinterpret_cast<const void*>(line), 1);
    else
      __builtin_prefetch(reinterpret_cast<const void*>(line), 0);
  }
}

}  // namespace carousel
