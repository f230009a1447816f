#include "carousel/util/malloc_policy.hpp"

#include <malloc.h>

namespace carousel {
namespace {

constexpr int kLoadingMmapThreshold = 1 << 20;  // 1 MiB
// glibc's defaults: the largest mmap threshold it accepts on 64-bit systems is 32 MiB,
// and 128 KiB of free heap top is trimmed.
constexpr int kSamplingMmapThreshold = 32 << 20;
constexpr int kSamplingTrimThreshold = 64 << 20;
constexpr int kDefaultTrimThreshold = 128 << 10;

}  // namespace

void ReturnLargeBlocksWhenFreed() {
  mallopt(M_MMAP_THRESHOLD, kLoadingMmapThreshold);
  mallopt(M_TRIM_THRESHOLD, kDefaultTrimThreshold);
}

ReuseFreedBlocks::ReuseFreedBlocks() {
  mallopt(M_MMAP_THRESHOLD, kSamplingMmapThreshold);
  mallopt(M_TRIM_THRESHOLD, kSamplingTrimThreshold);
}

ReuseFreedBlocks::~ReuseFreedBlocks() {
  ReturnLargeBlocksWhenFreed();
  malloc_trim(0);
}

}  // namespace carousel
