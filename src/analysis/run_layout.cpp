#include "carousel/analysis/run_layout.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <system_error>
#include <utility>

#include "carousel/io/run_model_json.hpp"
#include "carousel/util/error.hpp"

namespace carousel::analysis {
namespace {

namespace fs = std::filesystem;

// The number n of a file named chain-<n>.csv, or -1.
long long ChainNumber(const std::string& name) {
  const std::string prefix = "chain-", suffix = ".csv";
  if (name.size() <= prefix.size() + suffix.size() || name.compare(0, prefix.size(), prefix) != 0 ||
      name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
    return -1;
  const std::string digits =
      name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
  if (digits.size() > 18 ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return -1;
  return std::stoll(digits);
}

// The chain files of a run's output directory, by chain number (ChainDrawsFiles).
std::vector<std::string> ChainFilesOf(const std::string& dir) {
  const fs::path draws = fs::path(dir) / "draws";
  std::error_code error;
  const fs::path where = fs::is_directory(draws, error) ? draws : fs::path(dir);
  std::vector<std::pair<long long, std::string>> found;
  for (fs::directory_iterator it(where, error), end; !error && it != end; it.increment(error)) {
    const long long number = ChainNumber(it->path().filename().string());
    if (number >= 0 && it->is_regular_file(error)) found.emplace_back(number, it->path().string());
  }
  if (error) throw InputError(where.string(), "cannot list: " + error.message());
  if (found.empty())
    throw InputError(dir, "no draws files: expected " + draws.string() + "/chain-<n>.csv");
  std::sort(found.begin(), found.end());
  std::vector<std::string> files;
  for (auto& [number, path] : found) files.push_back(std::move(path));
  return files;
}

}  // namespace

std::string ChainDir(const std::string& out, int chain) {
  return out + "/chain-" + std::to_string(chain);
}

std::optional<std::string> ChainDirOfDraws(const std::string& draws_file) {
  std::error_code error;
  const fs::path real = fs::canonical(draws_file, error);
  if (error) return std::nullopt;
  return real.parent_path().parent_path().string();
}

std::vector<std::string> ChainDirectories(const std::string& run) {
  const std::string manifest = run + "/" + kChainsManifest;
  if (fs::exists(run + "/" + io::kModelJsonFile) || !fs::exists(manifest)) return {run};
  std::ifstream in(manifest);
  std::string line;
  int chains = 0;
  while (std::getline(in, line))
    if (line.rfind("chains ", 0) == 0) chains = std::atoi(line.c_str() + 7);
  if (chains < 1) throw InputError(manifest, "names no chains ('chains N' line)");
  std::vector<std::string> runs;
  for (int c = 1; c <= chains; ++c) runs.push_back(ChainDir(run, c));
  return runs;
}

std::vector<std::string> ChainDrawsFiles(const std::vector<std::string>& inputs) {
  std::vector<std::string> files;
  for (const std::string& input : inputs) {
    std::error_code error;
    if (fs::is_directory(input, error)) {
      for (std::string& f : ChainFilesOf(input)) files.push_back(std::move(f));
    } else {
      files.push_back(input);
    }
  }
  return files;
}

}  // namespace carousel::analysis
