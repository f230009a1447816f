// The test-set calibration of an mf run's chains for `carousel summary`
// (model/bpmf/predictive_calibration.hpp): the predictions.csv of each chain (beside the
// draws/ that holds its draws file, links followed), pooled over the chains as one mixture,
// and the noise variance E[1/tau] over the chains' draws.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "carousel/io/draws_csv.hpp"
#include "carousel/model/bpmf/predictive_calibration.hpp"

namespace carousel::analysis {

// Nothing unless every chain has a predictions.csv (user,item,rating,mean,sd) of the same
// test ratings and a tau column in its draws; `warmup` draws of each chain are left out of
// E[1/tau]. A predictions.csv that cannot be read is an InputError naming its line.
std::optional<PredictiveCalibration> ChainsCalibration(const std::vector<std::string>& files,
                                                       const std::vector<io::DrawsCsv>& chains,
                                                       std::size_t warmup);

}  // namespace carousel::analysis
