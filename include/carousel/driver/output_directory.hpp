// A fresh run's --out: it must not mix the files of two runs. A directory holding another
// run's outputs or checkpoints is refused (a later --resume would otherwise continue the
// old chain), unless --overwrite is given; then those files are deleted first, so that no
// stale file (a bias array of a run with biases beside a --no-bias run) stays beside the
// new ones. Files that no Carousel command writes are never touched. A run's config.toml
// (run_config.hpp) alone does not keep a fresh run out: every fresh run writes its own, and
// one may have been put there to be replayed.
#pragma once

#include <string>
#include <vector>

namespace carousel::driver {

// The name of a fresh run's configuration in --out (cli/run_config.hpp).
inline constexpr const char* kRunConfigFile = "config.toml";

// The top-level files any sampling command writes into --out (checkpoints/ aside).
const std::vector<std::string>& RunOutputFiles();

// Checks (and with `overwrite` clears) `out` for a fresh run; rank 0 only. Throws
// UsageError("--out", ...) naming what is there, OutputError if a file cannot be deleted.
void PrepareFreshOutput(const std::string& out, bool overwrite);

}  // namespace carousel::driver
