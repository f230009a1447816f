// `carousel mf` as a model spec (model/model_spec.hpp): Bayesian matrix factorisation of
// ratings (bpmf_model.hpp), its options (mf_options.hpp) and its outputs (mf_outputs.hpp).
#pragma once

#include <cstdio>
#include <memory>
#include <string>

#include "carousel/io/mf_loader.hpp"
#include "carousel/model/bpmf/bpmf_model.hpp"
#include "carousel/model/bpmf/mf_options.hpp"
#include "carousel/model/bpmf/mf_outputs.hpp"
#include "carousel/model/model_spec.hpp"

namespace carousel {

// A rank's share of the ratings, with the writer of the kept samples (rank 0, with
// --keep-samples).
struct MfRunData : io::LoadedMf {
  std::unique_ptr<io::SampleWriter> sample_writer;
};

struct MfSpec : ModelSpecDefaults {
  static constexpr const char* kName = "mf";
  static constexpr const char* kDescription =
      "carousel mf: Bayesian matrix factorization by distributed SG-MCMC";
  static constexpr const char* kDefaultOut = "carousel-out";
  static constexpr RequiredInput kInput{"--train", "a training file"};
  static constexpr PassDefaults kPasses{kMfBurnInPasses, kMfEvalEveryPasses};
  static constexpr const char* kItemsHeld = "training ratings";
  using ModelOptions = MfOptions;
  using Data = MfRunData;
  using Model = BpmfModel;

  template <class Declarer>
  static void Declare(Declarer& declare, MfOptions& o) {
    DeclareMfOptions(declare, o);
  }
  template <class Declarer>
  static void ShowChainDefaults(Declarer& declare) {
    ShowMfChainDefaults(declare);
  }

  static std::unique_ptr<Model> Make(MfOptions& o, io::LoadedMf& data) {
    return std::make_unique<BpmfModel>(o.config, data.problem, std::move(data.share));
  }

  static std::vector<std::pair<std::string, std::string>> Comments(const MfOptions& o,
                                                                   const io::LoadedMf& data,
                                                                   const Model&) {
    return MfConfigurationLines(o, data);
  }
  static void Note(const MfOptions&, const io::LoadedMf& data, const Model&) {
    if (data.problem.test_count == 0)
      std::fputs(
          "carousel mf: note: no test set (use --test or --test-fraction): progress shows the "
          "RMSE on the training minibatches\n",
          stderr);
  }
  static void WriteTrace(const std::string& path, const std::string& comments, const Model& model) {
    io::WriteTrace(path, comments, model.trace());
  }
  static decltype(auto) Draws(const Model& model) { return model.draws(); }
  static std::string Status(const Model& model, const io::LoadedMf& data) {
    return MfStatus(model.trace().back(), data.problem.test_count > 0);
  }
  static std::uint64_t ItemsHeld(const Model& model, const io::LoadedMf&) {
    return model.ratings_held();
  }
};

}  // namespace carousel
