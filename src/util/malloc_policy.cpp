#include "carousel/util/malloc_policy.hpp"

#include <malloc.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

namespace carousel {
namespace {

constexpr int kLoadingMmapThreshold = 1 << 20;  // 1 MiB
// glibc's defaults: the largest mmap threshold it accepts on 64-bit systems is 32 MiB,
// and 128 KiB of free heap top is trimmed.
constexpr int kSamplingMmapThreshold = 32 << 20;
constexpr int kSamplingTrimThreshold = 64 << 20;
constexpr int kDefaultTrimThreshold = 128 << 10;

}  // namespace

void RestartWithHugePages(char** argv) {
  constexpr const char* kTunable = "glibc.malloc.hugetlb";
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  const std::string given = tunables ? tunables : "";
  if (given.find(kTunable) != std::string::npos) return;
  const std::string wanted =
      given.empty() ? std::string(kTunable) + "=1" : given + ":" + kTunable + "=1";
  if (setenv("GLIBC_TUNABLES", wanted.c_str(), 1) != 0) return;
  execv("/proc/self/exe", argv);
  // Not restarted: leave the environment as it was for what this process starts.
  if (tunables)
    setenv("GLIBC_TUNABLES", given.c_str(), 1);
  else
    unsetenv("GLIBC_TUNABLES");
}

std::string HugePagesText() {
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  const std::string given = tunables ? tunables : "";
  const bool requested = given.find("glibc.malloc.hugetlb=1") != std::string::npos;
  // The kernel's mode is the bracketed word of "always [madvise] never".
  std::string modes, kernel = "unknown";
  if (std::getline(std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled"), modes)) {
    const auto open = modes.find('['), close = modes.find(']');
    if (open != std::string::npos && close != std::string::npos && close > open)
      kernel = modes.substr(open + 1, close - open - 1);
  }
  return std::string(requested ? "requested" : "not requested") + " (GLIBC_TUNABLES=" + given +
         "; kernel: " + kernel + ")";
}

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
