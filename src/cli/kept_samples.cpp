#include "carousel/cli/kept_samples.hpp"

#include "carousel/comm/collective.hpp"
#include "carousel/io/atomic_file.hpp"

namespace carousel::cli {

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
