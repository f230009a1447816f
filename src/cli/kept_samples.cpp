#include "carousel/cli/kept_samples.hpp"

#include "carousel/cli/command_support.hpp"
#include "carousel/comm/collective.hpp"
#include "carousel/io/atomic_file.hpp"

namespace carousel::cli {

void AddKeepSamplesOption(CLI::App& app, long long& keep, const std::string& default_text) {
  app.add_option("--keep-samples", keep,
                 "save N kept draws of W and H whole into samples/, spread evenly over the "
                 "draws after burn-in, for carousel predict (0: none)")
      ->check(Within(0, 1 << 20))
      ->default_str(default_text);
}

std::uint64_t ResolveKeepSamples(long long given, std::uint64_t from_data, RunConfig& run_config) {
  if (given >= 0) return static_cast<std::uint64_t>(given);
  run_config.Resolve("--keep-samples", std::to_string(from_data),
                     "as many as fit in 256 MiB, from 2 to 20");
  return from_data;
}

std::unique_ptr<io::SampleWriter> StartSampleWriter(Communicator& comm, const std::string& out,
                                                    std::uint64_t keep, std::uint32_t rows,
                                                    int width) {
  std::unique_ptr<io::SampleWriter> writer;
  if (keep == 0) return writer;
  RunCollectively(comm, [&] {
    if (comm.rank() != 0) return;
    io::EnsureDirectory(out + "/" + io::kSamplesDir);
    writer = std::make_unique<io::SampleWriter>(out, rows, width);
  });
  return writer;
}

}  // namespace carousel::cli
