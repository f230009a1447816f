#include "carousel/analysis/chains_calibration.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "carousel/analysis/run_layout.hpp"
#include "carousel/util/error.hpp"

namespace carousel::analysis {
namespace {

namespace fs = std::filesystem;

struct ChainPredictions {
  std::vector<double> rating, mean, sd;
};

// The predictions.csv of the chain whose draws are in `draws_file` (DIR/draws/chain-c.csv,
// perhaps a link into DIR/chain-c/draws/), if there is one.
std::optional<fs::path> PredictionsBeside(const std::string& draws_file) {
  const std::optional<std::string> chain = ChainDirOfDraws(draws_file);
  if (!chain) return std::nullopt;
  const fs::path path = fs::path(*chain) / "predictions.csv";
  std::error_code error;
  if (!fs::is_regular_file(path, error)) return std::nullopt;
  return path;
}

ChainPredictions ReadPredictions(const fs::path& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path.string(), "cannot be read");
  ChainPredictions p;
  std::string line;
  std::size_t line_number = 0;
  bool header = false;
  while (std::getline(in, line)) {
    ++line_number;
    if (line.empty() || line[0] == '#') continue;
    const std::string where = path.string() + ":" + std::to_string(line_number);
    if (!header) {
      if (line != "user,item,rating,mean,sd")
        throw InputError(where, "expected the header user,item,rating,mean,sd");
      header = true;
      continue;
    }
    std::istringstream fields(line);
    std::string user, item, rating, mean, sd;
    if (!std::getline(fields, user, ',') || !std::getline(fields, item, ',') ||
        !std::getline(fields, rating, ',') || !std::getline(fields, mean, ',') ||
        !std::getline(fields, sd))
      throw InputError(where, "expected 5 comma-separated fields");
    try {
      p.rating.push_back(std::stod(rating));
      p.mean.push_back(std::stod(mean));
      p.sd.push_back(std::stod(sd));
    } catch (const std::exception&) {
      throw InputError(where, "rating, mean or sd is not a number");
    }
  }
  return p;
}

}  // namespace

std::optional<PredictiveCalibration> ChainsCalibration(const std::vector<std::string>& files,
                                                       const std::vector<io::DrawsCsv>& chains,
                                                       std::size_t warmup) {
  double inverse_tau_sum = 0.0, draws = 0.0;
  for (const io::DrawsCsv& chain : chains) {
    const auto tau = std::find(chain.columns.begin(), chain.columns.end(), "tau");
    if (tau == chain.columns.end()) return std::nullopt;
    const std::vector<double>& values =
        chain.values[static_cast<std::size_t>(tau - chain.columns.begin())];
    for (std::size_t d = warmup; d < values.size(); ++d) {
      inverse_tau_sum += 1.0 / values[d];
      draws += 1.0;
    }
  }
  if (draws == 0.0) return std::nullopt;
  // The chains pooled as one mixture: the mean of their means, and the variance of the
  // mixture, E[sd^2 + mean^2] - mean^2 (each chain kept as many draws).
  ChainPredictions pooled;
  std::vector<double> second;
  for (const std::string& file : files) {
    const std::optional<fs::path> path = PredictionsBeside(file);
    if (!path) return std::nullopt;
    const ChainPredictions p = ReadPredictions(*path);
    if (pooled.rating.empty()) {
      pooled.rating = p.rating;
      pooled.mean.assign(p.rating.size(), 0.0);
      second.assign(p.rating.size(), 0.0);
    } else if (p.rating != pooled.rating) {
      return std::nullopt;  // not the same test ratings
    }
    for (std::size_t i = 0; i < p.rating.size(); ++i) {
      pooled.mean[i] += p.mean[i];
      second[i] += p.sd[i] * p.sd[i] + p.mean[i] * p.mean[i];
    }
  }
  if (pooled.rating.empty()) return std::nullopt;
  const double m = static_cast<double>(files.size());
  pooled.sd.resize(pooled.rating.size());
  for (std::size_t i = 0; i < pooled.rating.size(); ++i) {
    pooled.mean[i] /= m;
    pooled.sd[i] = std::sqrt(std::max(0.0, second[i] / m - pooled.mean[i] * pooled.mean[i]));
  }
  return CalibrationOf(pooled.rating, pooled.mean, pooled.sd, inverse_tau_sum / draws);
}

}  // namespace carousel::analysis
