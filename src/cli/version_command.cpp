// `carousel version`: the version and how this binary was built. It starts no MPI job:
// the MPI library reports its version before MPI_Init.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>
#include <vector>

#include "build_info/build_config.hpp"
#include "build_info/git_commit.hpp"
#include "carousel/cli/command_support.hpp"
#include "carousel/cli/commands.hpp"
#include "carousel/cli/version_text.hpp"
#include "carousel/comm/communicator.hpp"
#include "carousel/util/malloc_policy.hpp"
#include "carousel/version.hpp"

namespace carousel::cli {

std::string VersionText() {
  std::string text = std::string("carousel ") + kVersion + "\n";
  text += std::string("commit: ") + build::kGitCommit + "\n";
  text += std::string("compiler: ") + build::kCompiler + "\n";
  text += std::string("build type: ") + build::kBuildType + "\n";
  text += std::string("flags: ") + build::kCompileFlags + "\n";
  text += std::string("native: ") + (build::kNative ? "on (-march=native)" : "off") + "\n";
  text += "MPI library: " + MpiLibraryVersion() + "\n";
  text += "huge pages: " + HugePagesText() + "\n";
  return text;
}

int RunVersionCommand(const std::vector<std::string>& args) {
  CLI::App app{
      "carousel version: the version, git commit, compiler, build type, compile flags and MPI "
      "library of this binary, and whether it asked for huge pages",
      "carousel version"};
  SetUpCommandApp(app);
  ParseOrThrow(app, args, "carousel version");
  std::printf("%s", VersionText().c_str());
  return 0;
}

}  // namespace carousel::cli
