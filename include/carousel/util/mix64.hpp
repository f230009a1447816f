// SplitMix64's finaliser: a cheap, well-mixed hash of a 64-bit value (Steele, Lea and
// Flood 2014), for order-free checksums of data sets.
#pragma once

#include <cstdint>

namespace carousel {

inline std::uint64_t SplitMix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace carousel
