#include "carousel/analysis/run_layout.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <system_error>
#include <utility>

#include "carousel/io/atomic_file.hpp"
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
  std::vector<std::string> runs;
  for (int c = 1, chains = ReadChainsManifest(run).chains; c <= chains; ++c)
    runs.push_back(ChainDir(run, c));
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

void WriteChainsManifest(const std::string& out, const ChainsManifest& m) {
  std::string text = "# carousel: a run of " + std::to_string(m.chains) +
                     " chains; each chain's outputs are in chain-c/, its draws in "
                     "draws/chain-c.csv. Continue all with: carousel " +
                     m.command + " --resume " + out + "\n";
  text += "command " + m.command + "\nchains " + std::to_string(m.chains) + "\nseed " +
          std::to_string(m.seed) + "\n";
  if (m.round_iterations > 0)
    text += "round " + std::to_string(m.round_iterations) + "\nmax_iterations " +
            std::to_string(m.max_iterations) + "\n";
  for (std::size_t c = 1; c <= m.chain_seeds.size(); ++c)
    text += "chain " + std::to_string(c) + " seed " + std::to_string(m.chain_seeds[c - 1]) +
            " out chain-" + std::to_string(c) + "\n";
  for (const std::string& a : m.args) {
    if (a.find('\n') != std::string::npos)
      throw SettingError("chains", "an argument holds a line break: '" + a + "'");
    text += "arg " + a + "\n";
  }
  io::WriteFileAtomically(out + "/" + kChainsManifest, text);
}

ChainsManifest ReadChainsManifest(const std::string& out) {
  const std::string path = out + "/" + kChainsManifest;
  std::ifstream in(path);
  if (!in) throw CheckpointError(path, "cannot be read");
  ChainsManifest m;
  std::string line;
  int line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    if (line.empty() || line[0] == '#') continue;
    const std::size_t space = line.find(' ');
    const std::string key = line.substr(0, space);
    const std::string value = space == std::string::npos ? "" : line.substr(space + 1);
    try {
      if (key == "command")
        m.command = value;
      else if (key == "chains")
        m.chains = std::stoi(value);
      else if (key == "seed")
        m.seed = std::stoull(value);
      else if (key == "arg")
        m.args.push_back(value);
      else if (key == "round")
        m.round_iterations = std::stoull(value);
      else if (key == "max_iterations")
        m.max_iterations = std::stoull(value);
      else if (key != "chain")
        throw std::invalid_argument(key);
    } catch (const std::exception&) {
      throw CheckpointError(path,
                            "line " + std::to_string(line_number) + ": cannot read '" + line + "'");
    }
  }
  if (m.command.empty() || m.chains < 1) throw CheckpointError(path, "is incomplete");
  return m;
}

}  // namespace carousel::analysis
