// The gzip reading of InputSource (input_source.hpp), on zlib. Private to src/io/.
#pragma once

#include <memory>
#include <string>

#include "carousel/io/input_source.hpp"

namespace carousel::io {

// Opens `path`, whose first bytes are the gzip magic number.
std::unique_ptr<InputSource> OpenGzipSource(const std::string& path);

}  // namespace carousel::io
