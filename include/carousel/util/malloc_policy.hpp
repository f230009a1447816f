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
//
// Transparent huge pages: glibc's malloc asks the kernel for them (madvise MADV_HUGEPAGE on its
// large blocks and its heap) only under the tunable glibc.malloc.hugetlb=1, and the kernels of
// Debian and most distributions give them only where asked ("madvise" in
// /sys/kernel/mm/transparent_hugepage/enabled). A run fills hundreds of MiB of fresh memory
// while it reads its input and writes its outputs, a page fault per 4 KiB page otherwise: on
// the 2-core VM with 25M ratings and 2 ranks, reading took 5.94 s with 4 KiB pages and 3.25 s
// with huge pages, and a 2-iteration run 11.6 s against 6.4 s, for the same peak memory
// (bench/README.md, "Huge pages"). Tunables are read when a program starts, so main()
// starts the program again with the tunable set, unless the model command declines
// (driver::ModelCommand::huge_pages: lda, whose sweeps ran slower on huge pages).
#pragma once

#include <string>

namespace carousel {

// Replaces this process by the same program (/proc/self/exe) with the same arguments and
// environment plus glibc.malloc.hugetlb=1 in GLIBC_TUNABLES, unless GLIBC_TUNABLES names
// glibc.malloc.hugetlb already (a user's glibc.malloc.hugetlb=0 opts out, and the restarted
// program does not restart again). Returns only where it did not restart: the tunable was
// there, or the exec failed (the run then goes on with 4 KiB pages). Call it first in main(),
// before any thread or MPI exists.
void RestartWithHugePages(char** argv);

// For `carousel version`: whether this process asked for huge pages, with GLIBC_TUNABLES and
// the kernel's mode, e.g. "requested (GLIBC_TUNABLES=glibc.malloc.hugetlb=1; kernel: madvise)".
std::string HugePagesText();

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
