// Crash-safe output: a file is either its old contents or its complete new contents.
//
// A run killed mid-write (SIGKILL, node failure, full disk) must never leave a
// half-written checkpoint or result where the next run would read it, so every output
// goes through a temp file that is fsynced and renamed over the target.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace carousel::io {

// Writes `bytes` to `path` atomically: temp file `path.tmp.<pid>` in the same directory
// (rename is only atomic within one file system), every write checked, fsync, rename
// over `path`, fsync of the directory so the rename itself survives a crash.
// Throws carousel::OutputError(path, reason) on any failure; the temp file is removed
// and an existing `path` is left untouched.
void WriteFileAtomically(const std::string& path, std::string_view bytes);

// Same, with the contents given as consecutive pieces (e.g. header + payload), so a
// large payload need not be copied into one buffer first.
void WriteFileAtomically(const std::string& path, const std::vector<std::string_view>& pieces);

// The same, for contents produced piece by piece (a large array written in slices): the
// pieces go to the temp file as they come; Commit() fsyncs and renames it over `path`.
// Destroyed without Commit() (an error on the way), it removes the temp file and leaves
// `path` untouched. Every failure throws carousel::OutputError(path, reason).
class AtomicFileWriter {
 public:
  explicit AtomicFileWriter(std::string path);
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;
  ~AtomicFileWriter();
  void Append(std::string_view bytes);
  void Commit();

 private:
  std::string path_, temp_;
  int fd_ = -1;
  bool committed_ = false;
};

// While one lives on a thread, the directory fsync after each rename of an atomic write on
// that thread waits for Finish(), which syncs each directory written to once: a command
// that writes its dozen final outputs pays one directory fsync instead of a dozen (each
// about 0.3 ms here; they were 5 of the 8 ms an mf run spent writing ml-100k's outputs).
// Every file is still fsynced before its rename, so a crash in between leaves the old or
// the new complete file under each name, never a torn one. Not for checkpoints, whose
// renames must be durable before older checkpoints are removed. Nested, the inner one
// leaves the directories to the outer. The destructor syncs what Finish() did not, and
// ignores errors there (a Finish() on the way was skipped by an exception already).
class DirectorySyncBatch {
 public:
  DirectorySyncBatch();
  DirectorySyncBatch(const DirectorySyncBatch&) = delete;
  DirectorySyncBatch& operator=(const DirectorySyncBatch&) = delete;
  ~DirectorySyncBatch();
  void Finish();  // throws carousel::OutputError

 private:
  bool outermost_;
};

// While one lives on a thread, atomic writes on that thread skip both fsyncs: the rename
// still replaces each file whole for every reader and after any crash of the process, but
// a power loss may leave an older or an empty file. For progress snapshots that the run
// writes again, durably, when it ends (the trace during sampling): each such write cost 2
// fsyncs, about 0.6 ms here, inside the sampling clock.
class SnapshotWrites {
 public:
  SnapshotWrites();
  SnapshotWrites(const SnapshotWrites&) = delete;
  SnapshotWrites& operator=(const SnapshotWrites&) = delete;
  ~SnapshotWrites();

 private:
  bool outermost_;
};

// Creates `dir` and any missing parents. Throws carousel::OutputError if it cannot, if
// `dir` exists but is not a directory, or if it is not writable, so that a run fails at
// startup rather than after hours of sampling when it first writes there.
void EnsureDirectory(const std::string& dir);

}  // namespace carousel::io
