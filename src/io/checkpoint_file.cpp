#include "carousel/io/checkpoint_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <utility>
#include <vector>

#include "carousel/io/atomic_file.hpp"
#include "carousel/util/crc64.hpp"
#include "carousel/util/error.hpp"

namespace carousel::io {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kMagic = "CRSLCKPT";
constexpr std::string_view kPrefix = "checkpoint-";
constexpr std::string_view kSuffix = ".ckpt";
constexpr std::string_view kTempInfix = ".tmp.";  // as WriteFileAtomically names temp files

void PutLe(std::string& out, std::uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out += static_cast<char>((value >> (8 * i)) & 0xff);
}

std::uint64_t GetLe(const char* in, int bytes) {
  std::uint64_t value = 0;
  for (int i = 0; i < bytes; ++i) {
    value |= static_cast<std::uint64_t>(static_cast<unsigned char>(in[i])) << (8 * i);
  }
  return value;
}

bool AllDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The iteration in a name CheckpointFileName produced, or nullopt for any other name.
// Iterations above 10^10 - 1 get more than 10 digits, so any length from 10 up is valid.
std::optional<std::uint64_t> ParseCheckpointName(std::string_view name) {
  if (name.size() < kPrefix.size() + kSuffix.size() || name.substr(0, kPrefix.size()) != kPrefix ||
      name.substr(name.size() - kSuffix.size()) != kSuffix) {
    return std::nullopt;
  }
  const std::string_view digits =
      name.substr(kPrefix.size(), name.size() - kPrefix.size() - kSuffix.size());
  if (digits.size() < 10 || digits.size() > 20 || !AllDigits(digits)) return std::nullopt;
  std::uint64_t value = 0;
  for (char c : digits) {
    const auto d = static_cast<std::uint64_t>(c - '0');
    if (value > (UINT64_MAX - d) / 10) return std::nullopt;
    value = value * 10 + d;
  }
  return value;
}

// A temp file left by a writer that died between create and rename.
bool IsStaleTemp(std::string_view name) {
  const std::size_t infix = name.find(kTempInfix);
  return infix != std::string_view::npos && ParseCheckpointName(name.substr(0, infix)) &&
         AllDigits(name.substr(infix + kTempInfix.size()));
}

// (iteration, path) of every checkpoint in `dir`, sorted by iteration.
std::vector<std::pair<std::uint64_t, fs::path>> ListCheckpoints(const fs::path& dir,
                                                                std::error_code& ec) {
  std::vector<std::pair<std::uint64_t, fs::path>> found;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (auto iteration = ParseCheckpointName(it->path().filename().string())) {
      found.emplace_back(*iteration, it->path());
    }
  }
  std::sort(found.begin(), found.end());
  return found;
}

void RemoveOrThrow(const fs::path& path) {
  std::error_code ec;
  fs::remove(path, ec);  // a file already gone is fine
  if (ec) throw OutputError(path.string(), "cannot delete old checkpoint: " + ec.message());
}

// Closes a file descriptor on scope exit.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

// Reads exactly `size` bytes into `out`; false on a short read (the file shrank).
bool ReadExactly(int fd, char* out, std::size_t size, const std::string& path) {
  while (size > 0) {
    const ssize_t n = ::read(fd, out, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw CheckpointError(path, std::string("read failed: ") + std::strerror(errno));
    }
    if (n == 0) return false;
    out += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

std::string CheckpointFileName(std::uint64_t iteration) {
  std::string digits = std::to_string(iteration);
  if (digits.size() < 10) digits.insert(0, 10 - digits.size(), '0');
  return std::string(kPrefix) + digits + std::string(kSuffix);
}

std::string WriteCheckpoint(const std::string& dir, std::uint64_t iteration,
                            std::string_view payload, int keep) {
  EnsureDirectory(dir);
  std::string header(kMagic);
  PutLe(header, kCheckpointFormatVersion, 4);
  PutLe(header, 0, 4);  // reserved
  PutLe(header, payload.size(), 8);
  PutLe(header, Crc64Xz(payload), 8);
  const std::string path = (fs::path(dir) / CheckpointFileName(iteration)).string();
  WriteFileAtomically(path, {header, payload});

  // Only checkpoints older than the new one are pruned: after a resume from an older
  // checkpoint, the new file must never be the one deleted.
  std::error_code ec;
  const auto found = ListCheckpoints(dir, ec);
  if (ec) throw OutputError(dir, "cannot list checkpoints: " + ec.message());
  std::size_t older = 0;
  while (older < found.size() && found[older].first < iteration) ++older;
  const std::size_t keep_older = static_cast<std::size_t>(std::max(keep, 1) - 1);
  for (std::size_t i = 0; i + keep_older < older; ++i) RemoveOrThrow(found[i].second);

  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (IsStaleTemp(it->path().filename().string())) RemoveOrThrow(it->path());
  }
  if (ec) throw OutputError(dir, "cannot list checkpoints: " + ec.message());
  return path;
}

std::string ReadCheckpoint(const std::string& path) {
  const Fd file{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (file.fd < 0) throw CheckpointError(path, std::string("cannot open: ") + std::strerror(errno));
  struct stat st {};
  if (::fstat(file.fd, &st) != 0) {
    throw CheckpointError(path, std::string("cannot stat: ") + std::strerror(errno));
  }
  if (!S_ISREG(st.st_mode)) throw CheckpointError(path, "not a regular file");
  const auto file_size = static_cast<std::uint64_t>(st.st_size);

  char header[kCheckpointHeaderSize];
  const std::size_t head = std::min<std::uint64_t>(file_size, kCheckpointHeaderSize);
  if (!ReadExactly(file.fd, header, head, path)) throw CheckpointError(path, "truncated");
  // Magic first, so that an unrelated short file is called what it is.
  const std::size_t magic_checked = std::min(head, kMagic.size());
  if (std::string_view(header, magic_checked) != kMagic.substr(0, magic_checked)) {
    throw CheckpointError(path, "not a Carousel checkpoint");
  }
  if (head < kCheckpointHeaderSize) {
    throw CheckpointError(path, "truncated: " + std::to_string(file_size) +
                                    " bytes, shorter than the checkpoint header");
  }
  const auto version = static_cast<std::uint32_t>(GetLe(header + 8, 4));
  if (version > kCheckpointFormatVersion) {
    throw CheckpointError(path, "written by a newer Carousel (format " + std::to_string(version) +
                                    ", this build reads up to " +
                                    std::to_string(kCheckpointFormatVersion) + ")");
  }
  if (version == 0) throw CheckpointError(path, "corrupt: format version 0");
  const std::uint64_t length = GetLe(header + 16, 8);
  const std::uint64_t checksum = GetLe(header + 24, 8);
  const std::uint64_t available = file_size - kCheckpointHeaderSize;
  if (length > available) {
    throw CheckpointError(path, "truncated: header says " + std::to_string(length) +
                                    " payload bytes, file has " + std::to_string(available));
  }
  if (length < available) {
    throw CheckpointError(path, "corrupt: " + std::to_string(available - length) +
                                    " unexpected bytes after the payload");
  }

  std::string payload(length, '\0');
  if (!ReadExactly(file.fd, payload.data(), payload.size(), path)) {
    throw CheckpointError(path, "truncated while reading");
  }
  if (Crc64Xz(payload) != checksum) throw CheckpointError(path, "corrupt: checksum mismatch");
  return payload;
}

std::vector<std::string> CheckpointsNewestFirst(const std::string& dir) {
  std::error_code ec;
  const bool exists = fs::exists(dir, ec);
  if (ec) throw CheckpointError(dir, "cannot access: " + ec.message());
  if (!exists) return {};
  const auto found = ListCheckpoints(dir, ec);
  if (ec) throw CheckpointError(dir, "cannot list checkpoints: " + ec.message());
  std::vector<std::string> paths;
  for (auto it = found.rbegin(); it != found.rend(); ++it) paths.push_back(it->second.string());
  return paths;
}

std::optional<std::string> LatestCheckpoint(const std::string& dir) {
  const std::vector<std::string> paths = CheckpointsNewestFirst(dir);
  if (paths.empty()) return std::nullopt;
  return paths.front();
}

std::size_t RemoveCheckpoints(const std::string& dir) {
  std::error_code ec;
  std::vector<fs::path> doomed;
  if (!fs::exists(dir, ec)) return 0;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (ParseCheckpointName(name) || IsStaleTemp(name)) doomed.push_back(it->path());
  }
  if (ec) throw OutputError(dir, "cannot list checkpoints: " + ec.message());
  for (const fs::path& path : doomed) RemoveOrThrow(path);
  return doomed.size();
}

}  // namespace carousel::io
