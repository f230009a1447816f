// The report of `carousel version` (cli/version_text.hpp): the version line first, then
// every field once, none empty, and the MPI library's version read without MPI_Init.
#include "carousel/cli/version_text.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "carousel/comm/communicator.hpp"
#include "carousel/version.hpp"

namespace carousel::cli {
namespace {

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(VersionText, VersionLineThenEveryFieldOnce) {
  const std::vector<std::string> lines = Lines(VersionText());
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0], std::string("carousel ") + kVersion);
  for (const std::string key :
       {"commit", "compiler", "build type", "flags", "native", "MPI library", "huge pages"}) {
    int found = 0;
    for (const std::string& line : lines) {
      if (line.rfind(key + ": ", 0) != 0) continue;
      ++found;
      EXPECT_GT(line.size(), key.size() + 2) << "empty field: " << line;
    }
    EXPECT_EQ(found, 1) << key << " in:\n" << VersionText();
  }
}

TEST(VersionText, NativeAgreesWithTheFlags) {
  const std::string text = VersionText();
  const bool native_flag = text.find(" -march=native") != std::string::npos;
  EXPECT_NE(text.find(native_flag ? "\nnative: on" : "\nnative: off"), std::string::npos) << text;
}

TEST(MpiLibraryVersion, OneLineWithoutMpiInit) {
  const std::string version = MpiLibraryVersion();
  EXPECT_NE(version, "unknown");
  EXPECT_FALSE(version.empty());
  EXPECT_EQ(version.find('\n'), std::string::npos) << version;
  EXPECT_NE(version.back(), ' ');
}

TEST(VersionNumbers, MatchTheVersionString) {
  EXPECT_EQ(std::to_string(kVersionMajor) + "." + std::to_string(kVersionMinor) + "." +
                std::to_string(kVersionPatch),
            kVersion);
}

}  // namespace
}  // namespace carousel::cli
