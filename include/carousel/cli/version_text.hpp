// What `carousel version` prints: enough to tell two builds apart when their results
// differ (commit, compiler, flags, MPI library), since rank-count invariance and the golden
// outputs hold for one binary only.
#pragma once

#include <string>

namespace carousel::cli {

// "carousel X.Y.Z" (the whole of `carousel --version`, which help2man reads), then one
// "key: value" line each: commit, compiler, build type, flags, native, MPI library.
std::string VersionText();

}  // namespace carousel::cli
