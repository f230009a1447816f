// A test fixture with a fresh directory of its own (so tests can run in parallel) that is
// removed with everything in it when the test ends, and files written into it byte for
// byte (no newline translation).
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>  // mkdtemp

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <system_error>

namespace carousel {

class ScratchDirTest : public testing::Test {
 protected:
  ~ScratchDirTest() override {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }

  // The path of `name` in the directory.
  std::string Path(const std::string& name) const {
    return (std::filesystem::path(dir_) / name).string();
  }

  // Writes `contents` to `name` in the directory and returns its path.
  std::string Write(const std::string& name, std::string_view contents) const {
    const std::string path = Path(name);
    std::ofstream(path, std::ios::binary) << contents;
    return path;
  }

  const std::string dir_ = [] {
    std::string pattern =
        (std::filesystem::path(testing::TempDir()) / "carousel_test_XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) ADD_FAILURE() << "mkdtemp failed for " << pattern;
    return pattern;
  }();
};

}  // namespace carousel
