#include "carousel/io/text_input.hpp"

#include <filesystem>
#include <memory>
#include <system_error>

#include "carousel/io/input_source.hpp"

namespace carousel::io {

std::string ReadWholeFile(const std::string& path) {
  const std::unique_ptr<InputSource> source = InputSource::Open(path);

  // Read in chunks rather than trusting the size: the file may be a pipe or still growing.
  // The size is a capacity hint, with one spare chunk so that the last (short) read does
  // not reallocate and copy the whole buffer (for gzip, a first guess).
  constexpr std::size_t kChunk = std::size_t{1} << 20;
  std::string text;
  std::error_code size_error;
  const auto size = std::filesystem::file_size(path, size_error);
  if (!size_error) text.reserve(size + kChunk);

  for (;;) {
    const std::size_t used = text.size();
    text.resize(used + kChunk);
    // A directory opens fine on Linux and fails in Open or here with EISDIR.
    const std::size_t got = source->Read(text.data() + used, kChunk);
    text.resize(used + got);
    if (got < kChunk) return text;
  }
}

}  // namespace carousel::io
