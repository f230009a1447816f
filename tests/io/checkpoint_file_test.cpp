#include "carousel/io/checkpoint_file.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>

#include "carousel/io/atomic_file.hpp"
#include "carousel/util/crc64.hpp"
#include "carousel/util/error.hpp"

namespace carousel::io {
namespace {

namespace fs = std::filesystem;

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

class CheckpointFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = (fs::path(::testing::TempDir()) /
            ("carousel_ckpt_" + std::string(info->name()) + "_" + std::to_string(::getpid())))
               .string();
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::set<std::string> Names() const {
    std::set<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir_)) {
      names.insert(entry.path().filename().string());
    }
    return names;
  }

  std::string dir_;
};

// Runs ReadCheckpoint(path), expects exit code 5 and a message with the path and `problem`.
void ExpectRefused(const std::string& path, const std::string& problem) {
  try {
    ReadCheckpoint(path);
    FAIL() << "no error for " << path;
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kCheckpoint);
    const std::string message = e.what();
    EXPECT_NE(message.find(path), std::string::npos) << message;
    EXPECT_NE(message.find(problem), std::string::npos) << message;
  }
}

TEST(CheckpointFileCrc, MatchesCrc64XzCheckValue) {
  EXPECT_EQ(Crc64Xz("123456789"), 0x995DC9BBDF1939FAULL);
  EXPECT_EQ(Crc64Xz(""), 0u);
}

TEST_F(CheckpointFileTest, RoundTrip) {
  const std::string payload("boost\0archive\xff\x01 bytes", 22);
  const std::string path = WriteCheckpoint(dir_, 42, payload);
  EXPECT_EQ(path, (fs::path(dir_) / "checkpoint-0000000042.ckpt").string());
  EXPECT_EQ(ReadCheckpoint(path), payload);
  EXPECT_EQ(fs::file_size(path), kCheckpointHeaderSize + payload.size());
  EXPECT_EQ(ReadAll(path).substr(0, 8), "CRSLCKPT");

  const std::string empty = WriteCheckpoint(dir_, 43, "");
  EXPECT_EQ(ReadCheckpoint(empty), "");
}

TEST_F(CheckpointFileTest, FileNamesSortByIteration) {
  EXPECT_EQ(CheckpointFileName(0), "checkpoint-0000000000.ckpt");
  EXPECT_EQ(CheckpointFileName(12345678901ULL), "checkpoint-12345678901.ckpt");
  WriteCheckpoint(dir_, 9999999999ULL, "a", 5);
  WriteCheckpoint(dir_, 12345678901ULL, "b", 5);
  EXPECT_EQ(LatestCheckpoint(dir_), (fs::path(dir_) / "checkpoint-12345678901.ckpt").string());
}

TEST_F(CheckpointFileTest, KeepsTheNewestTwo) {
  for (std::uint64_t it : {100, 200, 300, 400}) WriteCheckpoint(dir_, it, std::to_string(it));
  EXPECT_EQ(Names(),
            (std::set<std::string>{"checkpoint-0000000300.ckpt", "checkpoint-0000000400.ckpt"}));
  EXPECT_EQ(ReadCheckpoint(*LatestCheckpoint(dir_)), "400");

  WriteCheckpoint(dir_, 500, "500", 1);
  EXPECT_EQ(Names(), (std::set<std::string>{"checkpoint-0000000500.ckpt"}));
  WriteCheckpoint(dir_, 600, "600", 3);
  WriteCheckpoint(dir_, 700, "700", 3);
  EXPECT_EQ(Names().size(), 3u);
}

TEST_F(CheckpointFileTest, NeverPrunesTheNewFileOrNewerOnes) {
  WriteCheckpoint(dir_, 100, "100");
  WriteCheckpoint(dir_, 300, "300");
  // A run resumed from 100 writes 200; 300 (from the abandoned run) is not older, so it
  // neither counts against `keep` nor is deleted, and 100 stays as the one older fallback.
  WriteCheckpoint(dir_, 200, "200");
  EXPECT_EQ(Names(),
            (std::set<std::string>{"checkpoint-0000000100.ckpt", "checkpoint-0000000200.ckpt",
                                   "checkpoint-0000000300.ckpt"}));
  WriteCheckpoint(dir_, 200, "200", 1);
  EXPECT_EQ(Names(),
            (std::set<std::string>{"checkpoint-0000000200.ckpt", "checkpoint-0000000300.ckpt"}));
}

TEST_F(CheckpointFileTest, RemovesStaleTempFilesButNotOtherFiles) {
  EnsureDirectory(dir_);
  WriteFileAtomically(dir_ + "/checkpoint-0000000001.ckpt.tmp.99999999", "half");
  WriteFileAtomically(dir_ + "/notes.txt", "mine");
  WriteCheckpoint(dir_, 2, "x");
  EXPECT_EQ(Names(), (std::set<std::string>{"checkpoint-0000000002.ckpt", "notes.txt"}));
}

TEST_F(CheckpointFileTest, LatestIgnoresOtherNames) {
  EXPECT_EQ(LatestCheckpoint(dir_), std::nullopt);  // directory does not exist
  EnsureDirectory(dir_);
  EXPECT_EQ(LatestCheckpoint(dir_), std::nullopt);
  for (const char* name : {"checkpoint-9.ckpt", "checkpoint-00000000x1.ckpt",
                           "checkpoint-0000000099.ckpt.tmp.1", "other-0000000099.ckpt"}) {
    WriteFileAtomically(dir_ + "/" + name, "x");
  }
  EXPECT_EQ(LatestCheckpoint(dir_), std::nullopt);
  WriteCheckpoint(dir_, 7, "seven");
  EXPECT_EQ(LatestCheckpoint(dir_), (fs::path(dir_) / "checkpoint-0000000007.ckpt").string());
}

TEST_F(CheckpointFileTest, RefusesMissingFile) {
  ExpectRefused(dir_ + "/checkpoint-0000000001.ckpt", "No such file");
}

TEST_F(CheckpointFileTest, RefusesTruncatedFiles) {
  const std::string path = WriteCheckpoint(dir_, 1, std::string(1000, 'p'));
  const std::string bytes = ReadAll(path);
  WriteFileAtomically(path, bytes.substr(0, bytes.size() - 1));
  ExpectRefused(path, "truncated");
  WriteFileAtomically(path, bytes.substr(0, 20));
  ExpectRefused(path, "truncated");
  WriteFileAtomically(path, "");
  ExpectRefused(path, "truncated");
}

TEST_F(CheckpointFileTest, RefusesFlippedPayloadByte) {
  const std::string path = WriteCheckpoint(dir_, 1, std::string(1000, 'p'));
  std::string bytes = ReadAll(path);
  bytes[kCheckpointHeaderSize + 500] ^= 0x04;
  WriteFileAtomically(path, bytes);
  ExpectRefused(path, "corrupt: checksum mismatch");
}

TEST_F(CheckpointFileTest, RefusesNewerFormatVersion) {
  const std::string path = WriteCheckpoint(dir_, 1, "payload");
  std::string bytes = ReadAll(path);
  bytes[8] = 2;  // uint32 little-endian at offset 8
  WriteFileAtomically(path, bytes);
  ExpectRefused(path, "written by a newer Carousel (format 2, this build reads up to 1)");
}

TEST_F(CheckpointFileTest, RefusesWrongMagic) {
  const std::string path = WriteCheckpoint(dir_, 1, "payload");
  std::string bytes = ReadAll(path);
  bytes[0] = 'X';
  WriteFileAtomically(path, bytes);
  ExpectRefused(path, "not a Carousel checkpoint");
  WriteFileAtomically(path, "22 bytes of plain text");
  ExpectRefused(path, "not a Carousel checkpoint");
}

TEST_F(CheckpointFileTest, WriteFailureIsAnOutputError) {
  EnsureDirectory(dir_);
  WriteFileAtomically(dir_ + "/file", "x");
  try {
    WriteCheckpoint(dir_ + "/file", 1, "payload");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kOutput);
  }
}

}  // namespace
}  // namespace carousel::io
