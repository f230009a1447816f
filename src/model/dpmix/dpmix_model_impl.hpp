// DpmixModel's state and steps, shared by its source files: set-up, checkpoints and the
// TileModel interface (dpmix_model.cpp), one iteration of the slice sampler (dpmix_step.cpp),
// evaluation and posterior summaries (dpmix_evaluation.cpp) and the survey of the data
// (dpmix_survey.cpp). Private to src/model/dpmix/.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "carousel/model/dpmix/dpmix_model.hpp"
#include "carousel/util/error.hpp"

namespace carousel {
namespace dpmix_detail {

inline constexpr std::uint64_t kNoComponent = std::numeric_limits<std::uint64_t>::max();
enum class Role : std::uint8_t { kTrain, kHeldOut, kEmpty };

// Observation d's part in a run: empty, held out or training (dpmix_survey.cpp).
Role RoleOf(const Corpus& corpus, std::uint32_t d, double fraction, std::uint64_t seed);

// The survey of the observations of row blocks [first_block, end_block) (dpmix_survey.cpp).
DpmixSurvey SurveyRows(const Corpus& corpus, const DpmixConfig& config, const TileGrid* grid,
                       int first_block, int end_block);

// Observations of one role in a row-block, their entries grouped by column block.
struct Observations {
  std::vector<std::uint32_t> id;     // global observation ids, local order
  std::vector<std::uint64_t> start;  // entries of (o, j): [start[o B + j], start[o B + j + 1])
  std::vector<std::uint32_t> cat;    // category, as its index within its column block
  std::vector<std::uint32_t> cnt;
  std::vector<double> n;            // n_i
  std::vector<double> log_coef;     // log n_i! - sum_c log x_ic!
  std::vector<double> log_dirmult;  // log DirMult(x_i; a), the rest measure's predictive
  std::size_t size() const { return id.size(); }
};

struct RowBlock {
  int id = 0;
  Observations train, held;
  std::vector<std::uint64_t> z;  // per training observation: component serial
  // Per training observation: how often each serial held it at the collected samples.
  std::vector<std::map<std::uint64_t, std::uint32_t>> mode;
  std::vector<double> log_pred_sum;      // per held-out: log sum of collected p(x | G)
  std::vector<std::uint64_t> held_best;  // per held-out: its likeliest component, last eval
  std::vector<double> phi_sum;           // K x |column block id|: sum of collected omega
};

}  // namespace dpmix_detail

struct DpmixModel::Impl {
  // Step 3 of the header's iteration: the minibatch of each local row-block (indices into
  // its training observations), their slice variables u_i, and the least u_i of all ranks.
  struct SliceMinibatch {
    double q = 1.0;  // the probability of each training observation to be in it
    std::vector<std::vector<std::size_t>> chosen;
    std::vector<std::vector<double>> slice;
    double u_min = 1.0;
  };

  Impl(const DpmixConfig& config, const Corpus& corpus, std::optional<DpmixSurvey> survey)
      : config_(config), corpus_(corpus), given_survey_(std::move(survey)) {}

  int B() const { return grid_->blocks(); }
  std::size_t K() const { return serial_.size(); }
  std::size_t Words(int j) const { return grid_->cols().Members(j).size(); }
  double Total() const {
    double total = g_rest_;
    for (double g : g_) total += g;
    return total;
  }
  std::size_t IndexOf(std::uint64_t serial) const {
    const auto it = std::lower_bound(serial_.begin(), serial_.end(), serial);
    if (it == serial_.end() || *it != serial)
      throw Error(ExitCode::kInternal, "dpmix: allocation to a component that does not exist");
    return static_cast<std::size_t>(it - serial_.begin());
  }
  double q() const { return std::min(1.0, config_.minibatch / static_cast<double>(survey_.train)); }

  std::vector<std::uint64_t> Attach(const TileRun& run);
  dpmix_detail::Observations Build(const std::vector<std::uint32_t>& ids) const;
  void AppendFreshRow(int j, std::vector<double>& theta, std::uint64_t serial) const;
  void AddComponent(double g);
  void RemoveComponent(std::size_t k);
  void RefreshTotals();
  std::vector<double> RowTotals(const std::map<int, std::vector<double>>& blocks) const;
  void CountAllocations();
  void Tour(int home, const std::function<void(std::size_t r, int j, const double* theta)>& visit);
  // One iteration (dpmix_step.cpp): Iterate takes the steps 1 to 7 of the header in order,
  // UpdateAlpha (1), UpdateWeights (2), ChooseMinibatch (3), BreakRest (4),
  // MinibatchLogLikelihood and Allocate (5), DropEmptyComponents (6), ScaledCounts and
  // StepTheta (7).
  void Iterate(std::uint64_t t, int stratum);
  void UpdateAlpha(std::uint64_t t);
  void UpdateWeights(std::uint64_t t);
  SliceMinibatch ChooseMinibatch(std::uint64_t t, double total) const;
  void BreakRest(std::uint64_t t, double total, double u_min);
  std::vector<std::vector<double>> MinibatchLogLikelihood(int stratum, const SliceMinibatch& batch);
  void Allocate(std::uint64_t t, double total, const SliceMinibatch& batch,
                const std::vector<std::vector<double>>& loglik);
  void DropEmptyComponents();
  std::map<int, std::vector<double>> ScaledCounts(int stratum, const SliceMinibatch& batch) const;
  void StepTheta(std::uint64_t t, const std::map<int, std::vector<double>>& counts);
  void Evaluate(const EvaluationContext& ctx);
  std::string Fingerprint() const;

  DpmixConfig config_;
  const Corpus& corpus_;
  std::optional<DpmixSurvey> given_survey_;
  DpmixSurvey survey_;
  Communicator* comm_ = nullptr;
  const TileGrid* grid_ = nullptr;
  const RankLayout* layout_ = nullptr;
  std::function<double()> seconds_running_;

  std::vector<dpmix_detail::RowBlock> rows_;
  std::map<int, std::vector<double>> cols_;  // theta, K x |block|, component-major

  // Global state, the same on every rank.
  std::vector<std::uint64_t> serial_;  // ascending: components are appended, never reordered
  std::vector<double> g_;              // unnormalised weights
  double g_rest_ = 1.0;
  double alpha_ = 1.0;
  std::uint64_t next_serial_ = 0;
  std::vector<double> m_;                // occupied counts
  std::vector<double> theta_total_;      // theta_k. (refreshed when needed)
  std::vector<double> w_sum_, present_;  // collected weights, and samples each was there
  std::uint64_t collected_ = 0;
  double eval_seconds_ = 0.0;
  bool finite_ = true;
  std::vector<DpmixTraceRow> trace_;
};

}  // namespace carousel
