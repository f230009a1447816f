#include "carousel/io/draws_writer.hpp"

#include <cmath>

#include "carousel/io/atomic_file.hpp"
#include "carousel/io/text_output.hpp"

namespace carousel::io {
namespace {

// R's read.csv and CmdStan's readers know NaN, Inf and -Inf (not C's nan, inf).
void AppendDrawValue(std::string& out, double value) {
  if (std::isnan(value))
    out += "NaN";
  else if (std::isinf(value))
    out += value > 0 ? "Inf" : "-Inf";
  else
    AppendCsvNumber(out, value);
}

}  // namespace

void WriteDraws(const std::string& path, const DrawsHeader& header,
                const std::vector<std::string>& columns, const std::vector<double>& values) {
  const std::size_t width = columns.size();
  const std::size_t rows = width == 0 ? 0 : values.size() / width;
  // CmdStan's `key = value` lines, which its readers parse for the draw counts and thinning;
  // the kept draws are the iterations after burn-in, every `thin`-th.
  std::string out = "# model = " + header.command + "\n";
  out += "# method = sample (stochastic-gradient MCMC)\n";
  out += "#   num_samples = " + std::to_string(rows) + "\n";
  out += "#   num_warmup = " + std::to_string(header.burn_in) + "\n";
  out += "#   save_warmup = 0\n";
  out += "#   thin = " + std::to_string(header.thin) + "\n";
  out += "# id = " + std::to_string(header.chain) + "\n";
  out += "# seed = " + std::to_string(header.seed) + "\n";
  out += header.comments;
  for (std::size_t c = 0; c < width; ++c) out += (c ? "," : "") + columns[c];
  out += '\n';
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t c = 0; c < width; ++c) {
      if (c) out += ',';
      AppendDrawValue(out, values[r * width + c]);
    }
    out += '\n';
  }
  WriteFileAtomically(path, out);
}

}  // namespace carousel::io
