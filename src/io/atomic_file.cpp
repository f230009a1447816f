#include "carousel/io/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "carousel/util/error.hpp"

namespace carousel::io {
namespace {

std::string ErrnoText(int err) {
  return std::strerror(err);
}

// The directory that holds `path`, for the directory fsync after the rename.
std::string ParentDirectory(const std::string& path) {
  const std::string parent = std::filesystem::path(path).parent_path().string();
  return parent.empty() ? "." : parent;
}

void WriteAll(int fd, std::string_view bytes, const std::string& path) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      throw OutputError(path, "write failed: " + ErrnoText(errno));
    }
    // write() may write less than asked (signals, quotas); a zero return would loop
    // forever, so treat it as out of space.
    if (n == 0) throw OutputError(path, "write failed: " + ErrnoText(ENOSPC));
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
}

void SyncDirectory(const std::string& dir, const std::string& path) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) throw OutputError(path, "cannot open directory " + dir + ": " + ErrnoText(errno));
  const int rc = ::fsync(fd);
  const int err = errno;
  ::close(fd);
  // Some file systems do not support fsync on directories (EINVAL); the rename is then
  // as durable as that file system can make it.
  if (rc != 0 && err != EINVAL) {
    throw OutputError(path, "fsync of directory " + dir + " failed: " + ErrnoText(err));
  }
}

// The directories whose sync a DirectorySyncBatch on this thread defers (null: none), by
// directory, with a path written there for the message of a failed sync.
thread_local std::map<std::string, std::string>* t_deferred_syncs = nullptr;

// Whether a SnapshotWrites lives on this thread.
thread_local bool t_snapshot = false;

}  // namespace

SnapshotWrites::SnapshotWrites() : outermost_(!t_snapshot) {
  t_snapshot = true;
}

SnapshotWrites::~SnapshotWrites() {
  if (outermost_) t_snapshot = false;
}

DirectorySyncBatch::DirectorySyncBatch() : outermost_(t_deferred_syncs == nullptr) {
  if (outermost_) t_deferred_syncs = new std::map<std::string, std::string>();
}

DirectorySyncBatch::~DirectorySyncBatch() {
  if (!outermost_) return;
  try {
    Finish();
  } catch (const Error&) {  // an exception is on its way already, or Finish() reported it
  }
  delete t_deferred_syncs;
  t_deferred_syncs = nullptr;
}

void DirectorySyncBatch::Finish() {
  if (!outermost_) return;
  std::map<std::string, std::string> pending;
  pending.swap(*t_deferred_syncs);
  for (const auto& [dir, path] : pending) SyncDirectory(dir, path);
}

void WriteFileAtomically(const std::string& path, std::string_view bytes) {
  WriteFileAtomically(path, std::vector<std::string_view>{bytes});
}

void WriteFileAtomically(const std::string& path, const std::vector<std::string_view>& pieces) {
  AtomicFileWriter writer(path);
  for (std::string_view piece : pieces) writer.Append(piece);
  writer.Commit();
}

AtomicFileWriter::AtomicFileWriter(std::string path)
    : path_(std::move(path)), temp_(path_ + ".tmp." + std::to_string(::getpid())) {
  fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) throw OutputError(path_, "cannot create " + temp_ + ": " + ErrnoText(errno));
}

AtomicFileWriter::~AtomicFileWriter() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_) ::unlink(temp_.c_str());
}

void AtomicFileWriter::Append(std::string_view bytes) {
  WriteAll(fd_, bytes, path_);
}

void AtomicFileWriter::Commit() {
  // Without the fsync, a crash soon after the rename can leave an empty or partial
  // file under the final name (delayed allocation on ext4/xfs).
  if (!t_snapshot && ::fsync(fd_) != 0)
    throw OutputError(path_, "fsync failed: " + ErrnoText(errno));
  const int fd = fd_;
  fd_ = -1;
  // close() can report a deferred write error (NFS), so it is checked too.
  if (::close(fd) != 0) throw OutputError(path_, "close failed: " + ErrnoText(errno));
  if (::rename(temp_.c_str(), path_.c_str()) != 0)
    throw OutputError(path_, "rename from " + temp_ + " failed: " + ErrnoText(errno));
  committed_ = true;
  if (t_snapshot) return;
  if (t_deferred_syncs)
    t_deferred_syncs->emplace(ParentDirectory(path_), path_);
  else
    SyncDirectory(ParentDirectory(path_), path_);
}

void EnsureDirectory(const std::string& dir) {
  if (dir.empty()) throw OutputError(dir, "empty directory name");
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw OutputError(dir, "cannot create directory: " + ec.message());
  if (!std::filesystem::is_directory(dir, ec)) throw OutputError(dir, "not a directory");
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    throw OutputError(dir, "directory not writable: " + ErrnoText(errno));
  }
}

}  // namespace carousel::io
