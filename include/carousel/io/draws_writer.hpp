// A chain's kept draws as a CSV file in the layout of CmdStan's output (issue #13): '#'
// comment lines with the configuration (including CmdStan's `num_samples`, `num_warmup`,
// `thin`, `id` and `seed` keys), one header row, one row per kept draw. R's
// read.csv(comment.char = "#") and posterior::as_draws read it, as does `carousel summary`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace carousel::io {

struct DrawsHeader {
  std::string command;  // "carousel mf": CmdStan's `model`
  std::uint64_t burn_in = 0;
  std::uint64_t thin = 1;
  std::uint64_t seed = 0;  // this chain's seed
  int chain = 1;           // CmdStan's `id`
  std::string comments;    // the run's `# key: value` block (io::CommentBlock)
};

// Writes the file atomically. `values` is row-major with columns.size() values per draw.
void WriteDraws(const std::string& path, const DrawsHeader& header,
                const std::vector<std::string>& columns, const std::vector<double>& values);

}  // namespace carousel::io
