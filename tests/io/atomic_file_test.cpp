#include "carousel/io/atomic_file.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "carousel/util/error.hpp"

namespace carousel::io {
namespace {

namespace fs = std::filesystem;

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Each test works in a fresh directory of its own.
class AtomicFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::path(::testing::TempDir()) /
           ("carousel_atomic_" + std::string(info->name()) + "_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  std::size_t EntryCount() const {
    return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir_), {}));
  }

  fs::path dir_;
};

// Runs `write`, expects an output error (exit code 4) that names `path`.
template <typename F>
void ExpectOutputError(F write, const std::string& path) {
  try {
    write();
    FAIL() << "no error for " << path;
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kOutput);
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
}

TEST_F(AtomicFileTest, WritesAndOverwrites) {
  const std::string path = Path("out.bin");
  WriteFileAtomically(path, std::string("first\0x", 7));
  EXPECT_EQ(ReadAll(path), std::string("first\0x", 7));
  WriteFileAtomically(path, "2nd");
  EXPECT_EQ(ReadAll(path), "2nd");
  WriteFileAtomically(path, "");
  EXPECT_TRUE(fs::exists(path));
  EXPECT_EQ(fs::file_size(path), 0u);
  EXPECT_EQ(EntryCount(), 1u);  // no temp file left behind
}

TEST_F(AtomicFileTest, WritesPieces) {
  const std::string path = Path("pieces.bin");
  WriteFileAtomically(path, std::vector<std::string_view>{"head", "", "er+", "payload"});
  EXPECT_EQ(ReadAll(path), "header+payload");
}

TEST_F(AtomicFileTest, WritesLargeFile) {
  const std::string path = Path("large.bin");
  std::string bytes(5 << 20, '\0');
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 131 % 251);
  WriteFileAtomically(path, bytes);
  EXPECT_EQ(ReadAll(path), bytes);
}

// Root ignores permission bits, so the failures use cases that stop root too.
TEST_F(AtomicFileTest, ThrowsWhenParentIsARegularFile) {
  WriteFileAtomically(Path("file"), "x");
  const std::string path = Path("file") + "/out.bin";
  ExpectOutputError([&] { WriteFileAtomically(path, "data"); }, path);
}

TEST_F(AtomicFileTest, ThrowsWhenDirectoryIsMissing) {
  const std::string path = Path("missing/out.bin");
  ExpectOutputError([&] { WriteFileAtomically(path, "data"); }, path);
  EXPECT_FALSE(fs::exists(Path("missing")));
}

TEST_F(AtomicFileTest, ThrowsOnUnwritableFileSystem) {
  const std::string path = "/proc/carousel_atomic_file_test.bin";
  ExpectOutputError([&] { WriteFileAtomically(path, "data"); }, path);
}

TEST_F(AtomicFileTest, FailedCreateLeavesOldFileIntact) {
  const std::string path = Path("out.bin");
  WriteFileAtomically(path, "old contents");
  // A directory where the temp file would go makes creating it fail (EISDIR).
  const std::string temp = path + ".tmp." + std::to_string(::getpid());
  fs::create_directory(temp);
  ExpectOutputError([&] { WriteFileAtomically(path, "new"); }, path);
  EXPECT_EQ(ReadAll(path), "old contents");
  EXPECT_TRUE(fs::is_directory(temp));  // not ours to delete
}

TEST_F(AtomicFileTest, FailedRenameRemovesTempFile) {
  // A non-empty directory at the target cannot be replaced by a file.
  const std::string path = Path("target");
  fs::create_directory(path);
  WriteFileAtomically(path + "/inside", "keep");
  ExpectOutputError([&] { WriteFileAtomically(path, "data"); }, path);
  EXPECT_EQ(ReadAll(path + "/inside"), "keep");
  EXPECT_EQ(EntryCount(), 1u);  // the temp file was removed
}

TEST_F(AtomicFileTest, EnsureDirectoryCreatesParents) {
  const std::string dir = Path("a/b/c");
  EnsureDirectory(dir);
  EXPECT_TRUE(fs::is_directory(dir));
  EnsureDirectory(dir);  // existing is fine
  WriteFileAtomically(dir + "/x", "y");
  EXPECT_EQ(ReadAll(dir + "/x"), "y");
}

TEST_F(AtomicFileTest, EnsureDirectoryRefusesFilesAndUnwritablePlaces) {
  WriteFileAtomically(Path("file"), "x");
  ExpectOutputError([&] { EnsureDirectory(Path("file")); }, Path("file"));
  ExpectOutputError([&] { EnsureDirectory(Path("file/sub")); }, Path("file/sub"));
  ExpectOutputError([&] { EnsureDirectory("/proc/carousel_test_dir"); }, "/proc/carousel_test_dir");
  ExpectOutputError([&] { EnsureDirectory(""); }, "");
}

}  // namespace
}  // namespace carousel::io

namespace carousel::io {
namespace {

// Inside a batch each file is complete under its name at once; only the directory fsyncs
// wait, and Finish() reports one that fails, naming a file written there.
TEST_F(AtomicFileTest, DirectorySyncBatchDefersOnlyTheDirectorySyncs) {
  fs::create_directories(dir_ / "sub");
  {
    DirectorySyncBatch batch;
    WriteFileAtomically(Path("a.txt"), "alpha");
    {
      DirectorySyncBatch inner;  // nested: leaves the directories to the outer batch
      WriteFileAtomically(Path("sub/b.txt"), "beta");
      inner.Finish();
    }
    EXPECT_EQ(ReadAll(Path("a.txt")), "alpha");
    EXPECT_EQ(ReadAll(Path("sub/b.txt")), "beta");
    EXPECT_EQ(EntryCount(), 2u);  // a.txt and sub/: no temp file left
    batch.Finish();
  }
  DirectorySyncBatch batch;
  WriteFileAtomically(Path("sub/c.txt"), "gamma");
  fs::remove_all(dir_ / "sub");  // the directory to sync is gone before Finish()
  try {
    batch.Finish();
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kOutput);
    EXPECT_NE(std::string(e.what()).find("c.txt"), std::string::npos) << e.what();
  }
  batch.Finish();                               // what failed is not tried again
  WriteFileAtomically(Path("d.txt"), "delta");  // the batch goes on after Finish()
  EXPECT_EQ(ReadAll(Path("d.txt")), "delta");
}

}  // namespace
}  // namespace carousel::io

namespace carousel::io {
namespace {

// A snapshot write skips the fsyncs only: the file is still replaced whole, no temp file is
// left, and the scope ends with the thread's writes durable again (a nested scope included).
TEST_F(AtomicFileTest, SnapshotWritesStillReplaceFilesWhole) {
  WriteFileAtomically(Path("trace.csv"), "old");
  {
    const SnapshotWrites snapshot;
    WriteFileAtomically(Path("trace.csv"), "newer");
    {
      const SnapshotWrites nested;
      WriteFileAtomically(Path("other.csv"), "x");
    }
    WriteFileAtomically(Path("trace.csv"), "newest");
    EXPECT_EQ(ReadAll(Path("trace.csv")), "newest");
  }
  EXPECT_EQ(EntryCount(), 2u);
  // After the scope a failing directory sync is reported again: the fsyncs are back.
  DirectorySyncBatch batch;
  WriteFileAtomically(Path("sub_gone.txt"), "y");
  fs::remove_all(dir_);
  EXPECT_THROW(batch.Finish(), Error);
}

}  // namespace
}  // namespace carousel::io
