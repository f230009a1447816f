#include "carousel/io/text_input.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <system_error>

namespace carousel::io {

std::string ReadWholeFile(const std::string& path) {
  errno = 0;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"),
                                                       &std::fclose);
  if (!file) throw InputError(path, std::string("cannot open: ") + std::strerror(errno));

  // Read in chunks rather than trusting the size: the file may be a pipe or still growing.
  // The size is a capacity hint, with one spare chunk so that the last (short) read does
  // not reallocate and copy the whole buffer.
  constexpr std::size_t kChunk = std::size_t{1} << 20;
  std::string text;
  std::error_code size_error;
  const auto size = std::filesystem::file_size(path, size_error);
  if (!size_error) text.reserve(size + kChunk);

  for (;;) {
    const std::size_t used = text.size();
    text.resize(used + kChunk);
    const std::size_t got = std::fread(text.data() + used, 1, kChunk, file.get());
    text.resize(used + got);
    if (got == kChunk) continue;
    // A directory opens fine on Linux and fails here with EISDIR.
    if (std::ferror(file.get())) {
      throw InputError(path, std::string("cannot read: ") + std::strerror(errno));
    }
    return text;
  }
}

}  // namespace carousel::io
