// How glibc's malloc treats large blocks, set per phase of a run.
//
// While input is read, blocks of 1 MiB and more come from mmap and go back to the system
// when freed, so that the loaders' pieces (parsed ratings, tokens) stop counting towards
// peak memory once they are freed; glibc would otherwise raise its mmap threshold after
// the first such free and keep them in the heap.
//
// While a chain samples, the same large blocks are allocated and freed every iteration
// (the column blocks in flight, their receive buffers, evaluation copies). Returned to the
// system each time, every one of their pages faults in again, zero-filled: on KOS at two
// ranks that was 383,000 page faults in 100 iterations and about 15% of the sampling time.
// So do a finished run's outputs, gathered slice by slice (16 MiB of sums each, allocated
// and freed per slice). ReuseFreedBlocks keeps freed blocks in the heap for reuse while it
// lives.
#pragma once

namespace carousel {

// Large blocks from mmap, returned when freed (main() sets this first).
void ReturnLargeBlocksWhenFreed();

// Scoped: freed blocks up to 32 MiB stay in the heap for reuse; on destruction the policy
// above comes back and the heap's unused top goes back to the system.
class ReuseFreedBlocks {
 public:
  ReuseFreedBlocks();
  ~ReuseFreedBlocks();
  ReuseFreedBlocks(const ReuseFreedBlocks&) = delete;
  ReuseFreedBlocks& operator=(const ReuseFreedBlocks&) = delete;
};

}  // namespace carousel
